// What a call is judged on (docs/classes.md, "What a call is judged on"):
// the facts the browser gives about a request that let the core tell the
// call's own requests from the page's other traffic (src/page/conduct.rs,
// `Seen::part`). Which frame sent it beside the tool's; who started it (the
// browser's `initiator`); whether the page sends the same request on its own,
// outside calls (the tab's usual traffic, kept by endpoint: who sent it, its
// method and its address without the query); whether the site was open in
// another tab, whose requests its service worker could be sending.
import { keepError } from './errors.js';

// Endpoints kept a tab, and for the sites' workers; stored, at most
// STORED_KEPT in all (ARCHITECTURE.md, budgets).
const USUAL_KEPT = 64;
const STORED_KEPT = 1024;
// An endpoint's text is cut to this (the page chose it).
const KEY_CUT = 300;
// Stored with the session, so that a new worker knows what the page sends on its own.
const USUAL_KEY = 'watch_usual';

const usual = new Map(); // tab id -> Set of endpoints it sends outside calls
const workers = new Set(); // endpoints the watched sites' workers send outside calls

// Only what a document started: not what the person typed or the browser
// started (a navigation from the address bar has no initiator). Images,
// styles, scripts and fonts loaded by GET, HEAD or OPTIONS are left out.
const ACTIVE = new Set(['xmlhttprequest', 'ping', 'websocket', 'main_frame', 'sub_frame']);
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

// A request as the core reads it (`Seen::Request`, less what depends on the
// call), and its endpoint; null for one not told.
export function requestOf(details) {
  if (details.initiator === undefined) return null;
  const method = String(details.method).toUpperCase();
  if (SAFE.has(method) && !ACTIVE.has(details.type)) return null;
  const address = String(details.url).split(/[?#]/, 1)[0];
  const key = `${details.initiator} ${method} ${address}`.slice(0, KEY_CUT);
  return { key, request: { method, url: details.url, type: details.type, from: details.initiator } };
}

// Which frame sent it beside the tool's (`Frame` in src/page/conduct.rs).
// For a navigation, the browser's frame is the frame navigated.
export function frameOf(details, spec) {
  if (details.tabId === -1) return 'worker';
  if (details.frameId === spec.frame_id) return 'tool';
  if (details.parentFrameId === spec.frame_id) return 'child';
  return 'other';
}

// ---- The page's own traffic ---------------------------------------------------
const add = (set, key) => {
  if (set.has(key)) return false;
  set.add(key);
  if (set.size > USUAL_KEPT) set.delete(set.values().next().value);
  return true;
};

// `key` was sent by the tab (or, with no tab, by a watched site's worker)
// while no call ran in it.
export function remember(tabId, key) {
  let set = workers;
  if (tabId !== -1) {
    set = usual.get(tabId);
    if (set === undefined) usual.set(tabId, set = new Set());
  }
  if (add(set, key)) store();
}

export function usualIn(tabId, key) {
  return (tabId === -1 ? workers : usual.get(tabId))?.has(key) === true;
}

export async function forgetTab(tabId) {
  await restored();
  if (usual.delete(tabId)) store();
}

// What an earlier worker kept, read once, merged before a call is judged.
let restoring = null;
export function restored() {
  restoring ??= chrome.storage.session.get(USUAL_KEY).then((stored) => {
    const kept = stored[USUAL_KEY];
    for (const [tabId, keys] of Object.entries(kept?.tabs ?? {})) {
      if (!Array.isArray(keys)) continue;
      const set = usual.get(Number(tabId)) ?? new Set();
      for (const key of keys.slice(-USUAL_KEPT)) if (typeof key === 'string') add(set, key.slice(0, KEY_CUT));
      usual.set(Number(tabId), set);
    }
    for (const key of Array.isArray(kept?.workers) ? kept.workers.slice(-USUAL_KEPT) : []) {
      if (typeof key === 'string') add(workers, key.slice(0, KEY_CUT));
    }
  }).catch((error) => keepError("reading the pages' own traffic", error)).then(() => {
    isRestored = true;
  });
  return restoring;
}
let isRestored = false;

// `then()` now if what an earlier worker kept was read, else once it is; in
// the order asked.
export function afterRestored(then) {
  if (isRestored) then();
  else restored().then(then);
}

// Written at most once a second, however fast a page sends new endpoints.
let storing = false;
let stored = 0;
function store() {
  if (storing) return;
  storing = true;
  setTimeout(async () => {
    await restored();
    storing = false;
    stored = Date.now();
    let room = STORED_KEPT - workers.size;
    const tabs = {};
    for (const [tabId, set] of usual) {
      if (set.size > room) continue;
      tabs[tabId] = [...set];
      room -= set.size;
    }
    chrome.storage.session.set({ [USUAL_KEY]: { tabs, workers: [...workers] } })
      .catch((error) => keepError("keeping the pages' own traffic", error));
  }, Math.max(0, stored + 1000 - Date.now()));
}

// Whether `site` is open in a tab other than `tabId` (its top document, or a
// frame that reported tools: `sites`), whose requests the site's service
// worker could be sending too.
export async function otherTabsOf(site, tabId, sites) {
  if (sites.some(([id, set]) => id !== tabId && set?.has(site))) return true;
  try {
    const open = await chrome.tabs.query({});
    return open.some((tab) => tab.id !== tabId && originOf(tab.url) === site);
  } catch {
    return true;
  }
}

const originOf = (url) => {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
};
