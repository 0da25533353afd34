// Hints held to their word (docs/classes.md, "Hints held to their word"):
// while a tool runs for an agent, what its tab does that changes state or
// reaches another site. The browser reports the tab's requests
// (chrome.webRequest, which no page can hide from); the shim and the relay
// report the page's storage writes with the call's answer (calls.js;
// content/relay/storage.js compares the storage however it was written). The core judges
// what was seen (`observe`) and flags a tool that broke its hints; the flags
// are kept in chrome.storage.local until the person clears them.
//
// A tab is listened to only while a watched call runs in it, and for
// TAIL_MS after (what a call started as it answered, a beacon or a
// navigation, reaches the worker after its answer). Every call in a tab is
// counted, watched or not, so that what is seen while two overlap is marked
// as impossible to tell apart. A window a call opens (a new tab whose opener
// is the call's tab) is part of the call: it is listened to as well, until
// the call's tab is no longer listened to.
//
// Everything seen is handed to the core's `Witness` as it comes, which
// counts it all and keeps, within bounds, the first of each kind
// (src/page/witnessed.rs): all is judged, only what the reply shows is cut.
import { Witness } from '../../pkg/toolgate.js';
import { record } from './audit.js';
import { FLAGS_KEY, loaded, ready } from './core.js';
import { keepError } from './errors.js';

const TAIL_MS = 500;
// The request types that act for a tool (src/page/conduct.rs, `ACTIVE_TYPES`):
// images, styles, scripts and fonts a page loads are not told unless they change state.
const ACTIVE = new Set(['xmlhttprequest', 'ping', 'websocket', 'main_frame', 'sub_frame']);
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

// tab id -> { running, watches: Set, listener, opened: Map(tab id -> listener),
// openedAt: Set of the addresses those windows loaded }
const tabs = new Map();
// Addresses kept per tab of the windows its calls opened, at most.
const OPENED_AT_KEPT = 50;
let listened = 0; // tabs listened to

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
    tab = { running: 0, watches: new Set(), listener: null, opened: new Map(), openedAt: new Set() };
    tabs.set(spec.tab_id, tab);
  }
  tab.running += 1;
  const on = watching && spec.watch !== undefined;
  // `seen`: the call's Witness, made as the first thing is seen (witness).
  const watch = { spec, tab, on, seen: null, overlapped: tab.running > 1, late: false };
  if (tab.running > 1) for (const other of tab.watches) if (!other.late) other.overlapped = true;
  if (on) {
    tab.watches.add(watch);
    listen(spec.tab_id, tab);
  }
  return watch;
}

function listen(tabId, tab) {
  if (tab.listener !== null) return;
  // `opened`: sent from a window the call opened.
  tab.listener = (details, opened = false) => {
    // Only what a document started: not what the person typed or the
    // browser started (a navigation from the address bar has no initiator).
    if (details.initiator === undefined) return;
    const method = String(details.method).toUpperCase();
    if (SAFE.has(method) && !ACTIVE.has(details.type)) return;
    const together = tab.running > 1;
    if (opened && details.type === 'main_frame' && tab.openedAt.size < OPENED_AT_KEPT) tab.openedAt.add(withoutFragment(details.url));
    for (const watch of tab.watches) {
      const seen = watch.late ? witnessOf(watch) : (watch.seen ??= witnessOf(watch));
      seen.request(method, details.url, details.type, together, opened);
      if (watch.late) observe(watch, seen, null).finally(() => seen.free());
    }
  };
  chrome.webRequest.onBeforeRequest.addListener(tab.listener, { urls: ['<all_urls>'], tabId });
  if (++listened === 1) chrome.webNavigation.onCreatedNavigationTarget.addListener(opening);
}

const withoutFragment = (url) => String(url).split('#')[0];

// A new Witness for what `watch`'s call is seen doing (the core is loaded:
// it gave the call).
const witnessOf = (watch) => new Witness(watch.spec.watch.site);

// A window opened from a tab listened to (or from a window it opened): its
// requests are the call's, for as long as the tab is listened to.
function opening({ sourceTabId, tabId }) {
  const tab = tabs.get(sourceTabId) ?? [...tabs.values()].find((t) => t.opened.has(sourceTabId));
  if (!tab?.listener || tab.opened.has(tabId)) return;
  const listener = (details) => tab.listener(details, true);
  tab.opened.set(tabId, listener);
  chrome.webRequest.onBeforeRequest.addListener(listener, { urls: ['<all_urls>'], tabId });
}

// The call of `watch` answered (`shimSeen`: the storage writes its document
// saw, as the relay tells them). Judged by the core, as call `callId` (its
// reply then says what was seen). Resolves once a flag it earned is stored.
export async function ended(watch, shimSeen, callId) {
  const { tab, spec } = watch;
  tab.running -= 1;
  if (!watch.on) {
    if (tab.running === 0 && tab.watches.size === 0) tabs.delete(spec.tab_id);
    return;
  }
  watch.late = true;
  setTimeout(() => forget(spec.tab_id, watch), TAIL_MS);
  const writes = Array.isArray(shimSeen?.writes) ? shimSeen.writes : [];
  if (watch.seen === null && writes.length === 0) return;
  const seen = watch.seen ?? witnessOf(watch);
  watch.seen = null;
  try {
    // The relay's account (content/relay/storage.js): the writes the shim
    // saw and those the relay found comparing the storage, and how many more.
    // A key another document wrote meanwhile (`by`, its address) is the
    // call's if that document is in a window the call opened; else Toolgate
    // cannot tell ('elsewhere').
    for (const { storage } of writes) {
      const by = storage?.by;
      const op = typeof by === 'string' && !tab.openedAt.has(withoutFragment(by)) ? 'elsewhere' : String(storage?.op);
      seen.storage(String(storage?.area), op, String(storage?.key), storage?.together === true);
    }
    if (shimSeen?.more > 0) seen.unkeptWrites(Math.min(shimSeen.more, 1e9));
    await observe(watch, seen, callId);
  } catch (error) {
    keepError('reading what a call was seen doing', error);
  } finally {
    seen.free();
  }
}

function forget(tabId, watch) {
  const tab = tabs.get(tabId);
  tab.watches.delete(watch);
  if (tab.watches.size === 0 && tab.listener !== null) {
    chrome.webRequest.onBeforeRequest.removeListener(tab.listener);
    tab.listener = null;
    for (const listener of tab.opened.values()) chrome.webRequest.onBeforeRequest.removeListener(listener);
    tab.opened.clear();
    tab.openedAt.clear();
    if (--listened === 0) chrome.webNavigation.onCreatedNavigationTarget.removeListener(opening);
  }
  if (tab.watches.size === 0 && tab.running === 0) tabs.delete(tabId);
}

// Hands the core what `watch`'s call was seen doing (`seen`, a Witness the
// caller frees); stores and audits a flag.
async function observe(watch, seen, callId) {
  try {
    const core = loaded ?? await ready;
    const conduct = JSON.stringify({ watch: watch.spec.watch, overlapped: watch.overlapped });
    const flagged = core.observe(callId ?? undefined, conduct, seen, Date.now());
    if (flagged === undefined) return;
    const { site, tool, said, text, record: flags } = JSON.parse(flagged);
    record({ what: 'flagged', site, tool, said, text, tab: watch.spec.tab_id });
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
