// Hints held to their word (docs/classes.md, "Hints held to their word"):
// while a tool runs for an agent, what its tab does that changes state or
// reaches another site. The browser reports the tab's requests
// (chrome.webRequest, which no page can hide from); the shim reports the
// page's storage writes with the call's answer (calls.js). The core judges
// what was seen (`observe`) and flags a tool that broke its hints; the flags
// are kept in chrome.storage.local until the person clears them.
//
// A tab is listened to only while a watched call runs in it, and for
// TAIL_MS after (what a call started as it answered, a beacon or a
// navigation, reaches the worker after its answer). Every call in a tab is
// counted, watched or not, so that what is seen while two overlap is marked
// as impossible to tell apart.
import { record } from './audit.js';
import { FLAGS_KEY, loaded, ready } from './core.js';
import { keepError } from './errors.js';

const TAIL_MS = 500;
// What one call is told of, at most (the core judges no more: `Conduct::SEEN_TOLD`).
const SEEN_KEPT = 20;
// The request types that act for a tool (src/page/conduct.rs, `ACTIVE_TYPES`):
// images, styles, scripts and fonts a page loads are not told unless they change state.
const ACTIVE = new Set(['xmlhttprequest', 'ping', 'websocket', 'main_frame', 'sub_frame']);
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

const tabs = new Map(); // tab id -> { running, watches: Set, listener }

// Watching can be turned off only from the CI API (`self.toolgate.watchCalls`):
// by the benchmark that measures what it costs (README, figure 12), and by the
// test that freezes the worker in the debugger (tests/README.md, worker-stops).
let watching = true;
export function watchCalls(on) {
  watching = on === true;
}

// A call of `spec` (the core's `Run`) starts in its tab. Returns the call's
// watch, which `ended` closes.
export function watchCall(spec) {
  let tab = tabs.get(spec.tab_id);
  if (tab === undefined) {
    tab = { running: 0, watches: new Set(), listener: null };
    tabs.set(spec.tab_id, tab);
  }
  tab.running += 1;
  const on = watching && spec.watch !== undefined;
  const watch = { spec, tab, on, seen: [], overlapped: tab.running > 1, late: false };
  if (tab.running > 1) for (const other of tab.watches) if (!other.late) other.overlapped = true;
  if (on) {
    tab.watches.add(watch);
    listen(spec.tab_id, tab);
  }
  return watch;
}

function listen(tabId, tab) {
  if (tab.listener !== null) return;
  tab.listener = (details) => {
    // Only what a document started: not what the person typed or the
    // browser started (a navigation from the address bar has no initiator).
    if (details.initiator === undefined) return;
    const method = String(details.method).toUpperCase();
    if (SAFE.has(method) && !ACTIVE.has(details.type)) return;
    const together = tab.running > 1;
    const seen = { request: { method, url: details.url, type: details.type, together } };
    for (const watch of tab.watches) {
      if (watch.late) observe(watch, [seen], null);
      else if (watch.seen.length < SEEN_KEPT) watch.seen.push(seen);
    }
  };
  chrome.webRequest.onBeforeRequest.addListener(tab.listener, { urls: ['<all_urls>'], tabId });
}

// The call of `watch` answered (`shimSeen`: the storage writes its document
// saw). Judged by the core, as call `callId` (its reply then says what was
// seen). Resolves once a flag it earned is stored.
export async function ended(watch, shimSeen, callId) {
  const { tab, spec } = watch;
  tab.running -= 1;
  if (!watch.on) {
    if (tab.running === 0 && tab.watches.size === 0) tabs.delete(spec.tab_id);
    return;
  }
  const fromPage = Array.isArray(shimSeen) ? shimSeen.slice(0, SEEN_KEPT) : [];
  const seen = [...watch.seen, ...fromPage];
  watch.late = true;
  setTimeout(() => forget(spec.tab_id, watch), TAIL_MS);
  if (seen.length) await observe(watch, seen, callId);
}

function forget(tabId, watch) {
  const tab = tabs.get(tabId);
  tab.watches.delete(watch);
  if (tab.watches.size === 0 && tab.listener !== null) {
    chrome.webRequest.onBeforeRequest.removeListener(tab.listener);
    tab.listener = null;
  }
  if (tab.watches.size === 0 && tab.running === 0) tabs.delete(tabId);
}

// Hands the core what `watch`'s call was seen doing; stores and audits a flag.
async function observe(watch, seen, callId) {
  try {
    const core = loaded ?? await ready;
    const conduct = JSON.stringify({ watch: watch.spec.watch, seen, overlapped: watch.overlapped });
    const flagged = core.observe(callId ?? undefined, conduct, Date.now());
    if (flagged === undefined) return;
    const { site, tool, said, text, line, record: flags } = JSON.parse(flagged);
    record({ what: 'flagged', site, tool, said, text, line, tab: watch.spec.tab_id });
    await chrome.storage.local.set({ [FLAGS_KEY]: flags });
  } catch (error) {
    keepError('judging what a call was seen doing', error);
  }
}

// The person cleared a flag (the palette, the settings page): `tool` on
// `site`, or with no tool the site's as a whole.
export async function clearFlag(site, tool) {
  const core = await ready;
  const flags = core.clearFlag(site, tool ?? undefined);
  if (flags === undefined) return { cleared: false };
  await chrome.storage.local.set({ [FLAGS_KEY]: flags });
  record({ what: 'cleared', site, tool: tool ?? null });
  return { cleared: true };
}

// Every flag, for the settings page.
export async function flagList() {
  return JSON.parse((await ready).flagList());
}
