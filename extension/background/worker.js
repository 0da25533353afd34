// Toolgate's service worker: the imperative shell around the Wasm core.
//
// MV3 stops this worker after 30 s idle and forgets every global, so nothing
// lives only here: the core is a cache of what is in chrome.storage.session,
// rebuilt by `ready` on every start. Every chrome.* listener is registered
// synchronously below (listeners added later miss the event that woke the
// worker), and every handler waits on `ready`.
import init, { Core, parseUiMessage } from '../../pkg/toolgate.js';

const TAB_KEY = 'tab:';

// Uncaught errors, kept so tests (and `self.toolgate.errors`) can fail on them.
const errors = [];
self.addEventListener('error', (e) => errors.push(String(e.error?.stack ?? e.message)));
self.addEventListener('unhandledrejection', (e) => errors.push(String(e.reason?.stack ?? e.reason)));

// Loads the Wasm core and the stored registry. Top-level await and import()
// both break MV3 workers, so this is a promise every handler awaits.
const ready = (async () => {
  await init();
  const stored = await chrome.storage.session.get(null);
  const records = Object.entries(stored)
    .filter(([key]) => key.startsWith(TAB_KEY))
    .map(([, record]) => record);
  return new Core(records);
})();

// Events change the registry one at a time, in arrival order, each persisted
// before the next starts, so a stop between two events loses nothing.
let queue = Promise.resolve();
function serially(task) {
  const run = queue.then(task);
  queue = run.catch(() => {});
  return run;
}

async function perform(effects) {
  for (const effect of effects) {
    if (effect.effect === 'persist') {
      const key = TAB_KEY + effect.tab_id;
      if (effect.record) await chrome.storage.session.set({ [key]: effect.record });
      else await chrome.storage.session.remove(key);
    } else if (effect.effect === 'badge') {
      const text = effect.count > 0 ? String(effect.count) : '';
      // The tab may have closed meanwhile; its badge went with it.
      await chrome.action.setBadgeText({ tabId: effect.tab_id, text }).catch(() => {});
    }
  }
}

function applyEvent(event) {
  return serially(async () => {
    const core = await ready;
    const { results, effects } = core.apply(event);
    await perform(effects);
    return results;
  });
}

// Trust tiers, decided from what the browser says about the sender, before
// the message is read. A page can send any message; it is only ever parsed as
// a page report about its own frame.
function tierOf(sender) {
  if (sender.id !== chrome.runtime.id) return 'none';
  const ownOrigin = new URL(chrome.runtime.getURL('')).origin;
  if (sender.url && new URL(sender.url).origin === ownOrigin) return 'ui';
  if (sender.tab && Number.isInteger(sender.frameId) && sender.documentId && sender.origin) return 'page';
  return 'none';
}

chrome.runtime.onMessage.addListener((message, sender, respond) => {
  const tier = tierOf(sender);
  let answer;
  if (tier === 'page') answer = fromPage(message, sender);
  else if (tier === 'ui') answer = fromUi(message);
  else return false;
  answer.then(respond, (error) => respond({ error: String(error?.message ?? error) }));
  return true;
});

function fromPage(message, sender) {
  const from = {
    tab_id: sender.tab.id,
    frame_id: sender.frameId,
    document_id: sender.documentId,
    origin: sender.origin,
  };
  return serially(async () => {
    const core = await ready;
    const { results, effects } = core.fromPage(from, message);
    await perform(effects);
    return { results };
  });
}

async function fromUi(message) {
  await ready;
  const request = parseUiMessage(message);
  switch (request.type) {
    case 'palette': return palette(request.tab_id);
    default: throw new Error(`no handler for ${request.type}`);
  }
}

// The palette of one tab, as the popup and `self.toolgate.palette` show it.
async function palette(tabId) {
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
  const groups = core.palette(tabId);
  return {
    tab_id: tabId,
    title: tab.title ?? '',
    url: tab.url ?? '',
    page: groups.length > 0 ? 'shimmed' : await pageState(tab),
    groups,
  };
}

// Whether Toolgate's scripts run in the tab: a tab loaded before Toolgate was
// installed or updated has none, and must be reloaded to show its tools.
async function pageState(tab) {
  if (!/^(https?|file):/.test(tab.url ?? '')) return 'unsupported';
  try {
    const answer = await chrome.tabs.sendMessage(tab.id, { type: 'ping' }, { frameId: 0 });
    return answer?.type === 'pong' ? 'shimmed' : 'needs_reload';
  } catch {
    return 'needs_reload';
  }
}

chrome.tabs.onRemoved.addListener((tabId) => {
  applyEvent({ type: 'tab_closed', tab_id: tabId });
});

chrome.webNavigation.onCommitted.addListener((details) => {
  if (!details.documentId) return;
  applyEvent({
    type: 'navigated',
    tab_id: details.tabId,
    frame_id: details.frameId,
    document_id: details.documentId,
  });
});

// For tests and for web developers' own CI: the same data the popup shows.
self.toolgate = {
  palette,
  errors,
  ready: () => ready.then(() => true),
};
