// Hints held to their word (docs/classes.md, "Hints held to their word"):
// while a tool runs for an agent, what its tab does that changes state or
// reaches another site. The browser reports the tab's requests
// (chrome.webRequest, which no page can hide from); the shim and the relay
// report the page's storage writes with the call's answer (calls.js;
// content/relay/storage.js compares the storage however it was written). The core judges
// what was seen (`observe`) and flags a tool that broke its hints; the flags
// are kept in chrome.storage.local until the person clears them.
//
// A tab is listened to from its first report of tools until it closes
// (what it sends while no call runs is its own traffic: watch-scope.js), or
// else while a watched call runs in it; a call is watched until it answers
// and for TAIL_MS after, or until the next call in the tab starts (what a
// call started as it answered, a beacon or a navigation, reaches the worker
// after its answer). Requests in no tab (the
// sites' service and shared workers) are listened to as long as a tab is.
// Every call in a tab is counted, watched or not, so that what is seen while
// two overlap is marked as impossible to tell apart. Whose a request is, the
// core decides (docs/classes.md, "What a call is judged on").
// A window a call opens (a new tab whose opener is the call's tab) is part
// of the call: it is listened to as well, until no call of the tab is watched;
// and its first navigation is the call's whenever it comes, within
// OPENED_WAIT_MS (a form posted into a new window may start after the tail).
//
// Everything seen that is not another site's (`Seen::part`) is handed to the
// core's `Witness` as it comes, with the facts of whose it is: the Witness
// counts it all and keeps, within bounds, the first of each kind
// (src/page/witnessed.rs): all the call's is judged, only what the reply
// shows is cut.
import { Witness } from '../../pkg/toolgate.js';
import { record } from './audit.js';
import { FLAGS_KEY, loaded, ready } from './core.js';
import { keepError } from './errors.js';
import {
  afterRestored, forgetTab, frameOf, otherTabsOf, remember, requestOf, restored, usualIn,
} from './watch-scope.js';

const TAIL_MS = 500;
// How long a call past its tail waits for a window it opened to navigate first.
const OPENED_WAIT_MS = 10_000;
// The types a worker with no tab sends that are listened to (a `tabId: -1`
// filter is no filter: measured on 148, every tab's requests come).
const WORKER_TYPES = ['xmlhttprequest', 'ping', 'websocket', 'other'];

// tab id -> { running, watches: Set, listener, sites: the sites that
// reported tools in it (null: listened to only during calls), opened:
// Map(tab id -> { by: the watches of the calls that opened it, navigated })
// of the windows its calls opened, openedAt: Set of the addresses those
// windows loaded, waiting: Set of the watches past their tail that wait for
// a window they opened to navigate first }
const tabs = new Map();
let workerListener = null;
// Addresses kept per tab of the windows its calls opened, at most.
const OPENED_AT_KEPT = 50;
let listened = 0; // tabs listened to

// Watching can be turned off only from the CI API (`self.toolgate.watchCalls`):
// by the benchmark that measures what it costs (README, figure 12), and by the
// test that freezes the worker in the debugger (tests/README.md, worker-stops).
let watching = true;
export function watchCalls(on) {
  watching = on === true;
  if (watching) return;
  for (const [tabId, tab] of tabs) {
    tab.sites = null;
    if (tab.watches.size === 0 && tab.waiting.size === 0) stopListening(tabId, tab);
  }
}

function tabOf(tabId) {
  let tab = tabs.get(tabId);
  if (tab === undefined) {
    tab = {
      running: 0, watches: new Set(), listener: null, sites: null, opened: new Map(), openedAt: new Set(), waiting: new Set(),
    };
    tabs.set(tabId, tab);
  }
  return tab;
}

// A document of `site` in the tab reported tools: from now on, what the tab
// sends while no call runs is known as its own (pages.js).
export function watchTab(tabId, site) {
  if (!watching) return;
  const tab = tabOf(tabId);
  tab.sites ??= new Set();
  if (tab.sites.size < 16) tab.sites.add(site);
  listen(tabId, tab);
  listenToWorkers();
  restored();
}

// The tab closed.
export function unwatchTab(tabId) {
  const tab = tabs.get(tabId);
  forgetTab(tabId);
  if (tab === undefined) return;
  tab.sites = null;
  tab.waiting.clear();
  hearingOpened();
  if (tab.watches.size === 0) stopListening(tabId, tab);
  if (tab.running === 0 && tab.watches.size === 0) tabs.delete(tabId);
}

// A call of `spec` (the core's `Run`) starts in its tab. Returns the call's
// watch, which `ended` closes.
export function watchCall(spec) {
  const tab = tabOf(spec.tab_id);
  tab.running += 1;
  const on = watching && spec.watch !== undefined;
  // `seen`: the call's Witness, made as the first thing is seen (witness).
  const watch = { spec, tab, on, seen: null, overlapped: tab.running > 1, late: false };
  if (tab.running > 1) for (const other of tab.watches) if (!other.late) other.overlapped = true;
  // An earlier call's tail ends here: what the tab sends from now on is the
  // new call's (what the earlier one set going as it answered came before).
  const tails = [...tab.watches].filter((other) => other.late);
  if (on) {
    tab.watches.add(watch);
    listen(spec.tab_id, tab);
    listenToWorkers();
    hearingOpened();
  }
  for (const other of tails) forget(spec.tab_id, other);
  return watch;
}

// What the tab sends: its own traffic while no call runs, else each watch's.
function listen(tabId, tab) {
  if (tab.listener !== null) return;
  // `opened`: sent from a window a call of the tab opened.
  tab.listener = (details, opened = false) => {
    const sent = requestOf(details);
    if (sent === null) return;
    let to = tab.watches;
    let first = null; // the window, at its first navigation
    if (opened) {
      const window = tab.opened.get(details.tabId);
      if (window !== undefined && !window.navigated && details.type === 'main_frame') {
        window.navigated = true;
        first = window;
      }
      // A first navigation is its calls', whether their tails have ended or not.
      to = first === null ? [...tab.watches] : [...first.by].filter((watch) => tab.watches.has(watch) || tab.waiting.has(watch));
      if (to.length === 0) return;
      if (details.type === 'main_frame' && tab.openedAt.size < OPENED_AT_KEPT) tab.openedAt.add(withoutFragment(details.url));
    } else if (tab.running === 0 && tab.watches.size === 0) {
      remember(tabId, sent.key);
      return;
    }
    const together = tab.running > 1;
    const { method, url, type, from } = sent.request;
    for (const watch of to) {
      tell(watch, (seen) => (opened ? seen.opened(method, url, type, together)
        : seen.request(method, url, type, together, frameOf(details, watch.spec), from, usualIn(tabId, sent.key))));
    }
    if (first !== null) for (const watch of first.by) if (!awaitsOpened(tab, watch)) letGo(tabId, watch);
  };
  chrome.webRequest.onBeforeRequest.addListener(tab.listener, { urls: ['<all_urls>'], tabId });
  if (++listened === 1) chrome.webNavigation.onCreatedNavigationTarget.addListener(opening);
}

const withoutFragment = (url) => String(url).split('#')[0];

// A new Witness for what `watch`'s call is seen doing (the core is loaded:
// it gave the call).
const witnessOf = (watch) => new Witness(watch.spec.watch.site);

// A window opened from a tab a call is watched in (or from a window it
// opened): its requests are the call's, for as long as a call of the tab is
// watched.
function opening({ sourceTabId, tabId }) {
  const tab = tabs.get(sourceTabId) ?? [...tabs.values()].find((t) => t.opened.has(sourceTabId));
  if (!tab?.listener || tab.watches.size === 0 || tab.opened.has(tabId)) return;
  tab.opened.set(tabId, { by: new Set(tab.watches), navigated: false });
}

// Whether `watch`'s call opened a window that has not navigated yet.
function awaitsOpened(tab, watch) {
  for (const window of tab.opened.values()) if (!window.navigated && window.by.has(watch)) return true;
  return false;
}

// Every tab's requests while a call is watched (and only then), for the
// windows calls opened: one listener (hearingOpened), so that a new
// window's first request (a form posted into it) is heard even when it
// comes right after the window is created; it is routed by the tab that
// `onCreatedNavigationTarget` named, which the browser says first.
function fromOpened(details) {
  for (const tab of tabs.values()) {
    if (tab.listener !== null && tab.opened.has(details.tabId)) tab.listener(details, true);
  }
}

let openedHeard = false;
function hearingOpened() {
  let any = false;
  for (const tab of tabs.values()) if (tab.watches.size > 0 || tab.waiting.size > 0) any = true;
  if (any === openedHeard) return;
  openedHeard = any;
  if (any) chrome.webRequest.onBeforeRequest.addListener(fromOpened, { urls: ['<all_urls>'] });
  else chrome.webRequest.onBeforeRequest.removeListener(fromOpened);
}

function forgetOpened(tab) {
  tab.opened.clear();
  tab.openedAt.clear();
}

function stopListening(tabId, tab) {
  if (tab.listener === null) return;
  chrome.webRequest.onBeforeRequest.removeListener(tab.listener);
  tab.listener = null;
  forgetOpened(tab);
  if (--listened === 0) chrome.webNavigation.onCreatedNavigationTarget.removeListener(opening);
  // Workers are listened to as long as a tab is.
  for (const other of tabs.values()) if (other.listener !== null) return;
  if (workerListener !== null) chrome.webRequest.onBeforeRequest.removeListener(workerListener);
  workerListener = null;
}

// Requests in no tab: a site's service or shared worker, whose initiator is
// the site. Told to the watches of that site's calls; with none running, its
// own traffic, for a site that reported tools.
function listenToWorkers() {
  if (workerListener !== null) return;
  workerListener = (details) => {
    if (details.tabId !== -1) return;
    const sent = requestOf(details);
    if (sent === null) return;
    const site = details.initiator;
    let busy = false;
    let known = false;
    const watches = [];
    for (const tab of tabs.values()) {
      for (const watch of tab.watches) if (watch.spec.watch.site === site) watches.push(watch);
      if (tab.sites?.has(site)) {
        known = true;
        busy ||= tab.running > 0 || tab.watches.size > 0;
      }
    }
    if (watches.length === 0) {
      if (known && !busy) remember(-1, sent.key);
      return;
    }
    const { method, url, type } = sent.request;
    for (const watch of watches) {
      const together = watches.length > 1 || watch.tab.running > 1;
      tell(watch, (seen) => seen.request(method, url, type, together, 'worker', site, usualIn(-1, sent.key)));
    }
  };
  chrome.webRequest.onBeforeRequest.addListener(workerListener, { urls: ['<all_urls>'], types: WORKER_TYPES });
}

// Hands what `watch`'s call was seen doing to its Witness (`hand`), once
// what the page sends on its own is known (watch-scope.js: what an earlier
// worker kept is read first); seen in the tail, judged on its own.
function tell(watch, hand) {
  const late = watch.late;
  afterRestored(() => {
    if (!late) {
      hand(watch.seen ??= witnessOf(watch));
      return;
    }
    const seen = witnessOf(watch);
    hand(seen);
    tellSent(watch, seen);
    observe(watch, seen, null).finally(() => seen.free());
  });
}

// What the call's document sent while it ran: which of its site's worker's
// requests are the call's while the site is open in another tab too.
function tellSent(watch, seen) {
  const read = (text) => (typeof text === 'string' ? text : undefined);
  for (const item of watch.sent ?? []) seen.pageSent(read(item?.method), read(item?.url));
  if (watch.sentMore) seen.pageSent(undefined, undefined);
}

// The call of `watch` answered (`shimSeen`: the storage writes its document
// saw, as the relay tells them). Judged by the core, as call `callId` (its
// reply then says what was seen). Resolves once a flag it earned is stored.
export async function ended(watch, shimSeen, callId) {
  const { tab, spec } = watch;
  tab.running -= 1;
  if (!watch.on) {
    if (tab.running === 0 && tab.watches.size === 0 && tab.sites === null) tabs.delete(spec.tab_id);
    return;
  }
  // What the call's document sent (main-world/requests.js), for what is
  // seen now and in the tail.
  watch.sent = Array.isArray(shimSeen?.sent) ? shimSeen.sent : [];
  watch.sentMore = shimSeen?.sent_more === true;
  watch.late = true;
  setTimeout(() => forget(spec.tab_id, watch), TAIL_MS);
  // What was seen before the answer and waits for what an earlier worker
  // kept is handed on first (`tell`).
  await restored();
  const writes = Array.isArray(shimSeen?.writes) ? shimSeen.writes : [];
  if (watch.seen === null && writes.length === 0) return;
  const seen = watch.seen ?? witnessOf(watch);
  watch.seen = null;
  try {
    tellSent(watch, seen);
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

// `watch`'s tail ended: it hears its tab no more, but waits, within
// OPENED_WAIT_MS, for the first navigation of each window its call opened.
function forget(tabId, watch) {
  const tab = tabs.get(tabId);
  if (tab === undefined || !tab.watches.delete(watch)) return;
  if (awaitsOpened(tab, watch)) {
    tab.waiting.add(watch);
    setTimeout(() => letGo(tabId, watch), OPENED_WAIT_MS);
    return;
  }
  settle(tabId, tab);
}

function letGo(tabId, watch) {
  const tab = tabs.get(tabId);
  if (tab === undefined || !tab.waiting.delete(watch)) return;
  settle(tabId, tab);
}

// What a tab no call is watched in any more stops listening to.
function settle(tabId, tab) {
  hearingOpened();
  const idle = tab.watches.size === 0 && tab.waiting.size === 0;
  if (idle) forgetOpened(tab);
  if (idle && tab.sites === null) stopListening(tabId, tab);
  if (idle && tab.running === 0 && tab.sites === null) tabs.delete(tabId);
}

// Hands the core what `watch`'s call was seen doing (`seen`, a Witness the
// caller frees); stores and audits a flag.
async function observe(watch, seen, callId) {
  try {
    const core = loaded ?? await ready;
    // Whether another tab could have sent what the site's worker sent, as
    // known now (watch-scope.js).
    if (seen.sawWorker() && await otherTabsOf(watch.spec.watch.site, watch.spec.tab_id, [...tabs].map(([id, t]) => [id, t.sites]))) {
      seen.otherTabs();
    }
    const conduct = JSON.stringify({ watch: watch.spec.watch, overlapped: watch.overlapped });
    const flagged = core.observe(callId ?? undefined, conduct, seen, Date.now());
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
