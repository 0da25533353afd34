// The palette of one tab, as the popup and `self.toolgate.palette` show it.
import { applyEvent, fromJson, ready, shownText } from './core.js';

export async function palette(tabId) {
  const tab = await chrome.tabs.get(tabId).catch(() => null);
  if (!tab) throw new Error(`there is no tab ${tabId}`);
  // Frames removed or navigated since their last report are dropped first.
  const frames = await chrome.webNavigation.getAllFrames({ tabId }).catch(() => null);
  if (frames) {
    await applyEvent({
      type: 'live_documents',
      tab_id: tabId,
      documents: frames.filter((f) => f.documentId).map((f) => [f.frameId, f.documentId]),
    });
  }
  const core = await ready;
  const groups = fromJson(core.palette(tabId));
  return {
    tab_id: tabId,
    title: tab.title ?? '',
    url: tab.url ?? '',
    page: groups.length > 0 ? 'shimmed' : await pageState(tab),
    groups,
  };
}

// The tabs loaded before Toolgate was installed or updated: no shim runs in
// them, so no rule holds there until they are reloaded (docs/rules.md). Each
// with its site (an origin), as the settings page names them.
export async function tabsWithoutToolgate() {
  const tabs = await chrome.tabs.query({ url: ['http://*/*', 'https://*/*'] });
  const states = await Promise.all(tabs.map((tab) => pageState(tab)));
  // Their titles and addresses are the pages' text: escaped and cut by the core.
  return Promise.all(tabs
    .filter((_, i) => states[i] === 'needs_reload')
    .map(async (tab) => ({
      tab_id: tab.id,
      title: await shownText(tab.title ?? '', 'title'),
      url: await shownText(tab.url ?? '', 'url'),
      site: new URL(tab.url).origin,
    })));
}

// Whether Toolgate's scripts run in the tab: a tab loaded before Toolgate was
// installed or updated has none, and must be reloaded to show its tools. A
// page's relay answers once the page has loaded or reported a tool
// (relay.js), so a page still loading without tools cannot be told yet.
async function pageState(tab) {
  if (!/^(https?|file):/.test(tab.url ?? '')) return 'unsupported';
  try {
    const answer = await chrome.tabs.sendMessage(tab.id, { type: 'ping' }, { frameId: 0 });
    if (answer?.type === 'pong') return 'shimmed';
  } catch {
    // No relay listens in the tab's page (yet).
  }
  return tab.status === 'loading' ? 'loading' : 'needs_reload';
}
