// The Wasm core, loaded once per worker start, and the serial queue every
// change to it goes through.
//
// MV3 stops this worker after 30 s idle and forgets every global, so the core
// is a cache of what is in chrome.storage.session, rebuilt by `ready` on every
// start, and every handler waits on `ready`.
import init, { Core, errorReply as writeErrorReply, pageText } from '../../pkg/toolgate.js';
import { keepError } from './errors.js';
import { adminBook, LAST_POLICY_KEY, policy, samePolicy } from './policy.js';
import { coreModule } from './start.js';

// Each tool a page publishes is stored under its own key (`tool:<tab>:<n>`,
// src/page/registry/stored.rs); the agent session under `session`.
export const TOOL_KEY = 'tool:';
export const SESSION_KEY = 'session';
// The site rules (docs/rules.md), in chrome.storage.local: they outlive the
// browser's restart, as settings do. rules.js keeps them; the core gets them whole.
export const RULES_KEY = 'rules';
// The tools seen breaking their hints (docs/classes.md, "Hints held to their
// word"), by site, as the core's record of them (JSON text): watch.js writes it.
export const FLAGS_KEY = 'hints_broken';

// The core takes and gives JSON text (src/wasm.rs says why); these turn JS
// values into it and back. `undefined` goes in as null and comes back as null.
export function toJson(value, what) {
  let text;
  try {
    text = JSON.stringify(value ?? null);
  } catch {
    // A cycle or a BigInt: said below.
  }
  if (typeof text !== 'string') throw new Error(`bad ${what}: not JSON (a cycle, a BigInt, or a function)`);
  return text;
}
export const fromJson = (text) => (text === undefined ? null : JSON.parse(text));

// The JSON-RPC error reply to request `id` that the shell gives an agent, as
// the core writes it (`RpcError::from_shell`, src/protocol/error.rs): `kind`
// is 'withdrawn', 'refused_extension', 'session_not_opened', 'internal' or
// 'not_carried_out'; `detail`, what only the shell knows. Once the core is loaded.
export async function errorReply(kind, id, detail = '') {
  await ready;
  return JSON.parse(writeErrorReply(kind, toJson(id, 'request id'), String(detail)));
}

// Page text as Toolgate's pages show it (docs/cards.md, "How page text is
// shown"): `kind` is 'title', 'name', 'url' and the others of
// `views::text::page_text_as`. Once the core is loaded.
export async function shownText(text, kind) {
  await ready;
  return pageText(String(text), kind);
}

// What chrome.storage.session held as this worker started: the tools pages
// published and the agent session, read once, while the core compiles.
export const storedAtStart = chrome.storage.session.get(null);

// Loads the Wasm core (compiled from the worker's first line: start.js) and
// the stored registry. Top-level await and import() both break MV3 workers,
// so this is a promise every handler awaits.
export const ready = (async () => {
  const [, stored, local] = await Promise.all([
    init({ module_or_path: coreModule }), storedAtStart, chrome.storage.local.get([RULES_KEY, LAST_POLICY_KEY, FLAGS_KEY]),
  ]);
  // Each stored tool is JSON text under its key (see Effect::Store in
  // src/page/registry.rs); the core reads a tab's only once it needs them.
  const tools = Object.entries(stored).filter(([key, tool]) => key.startsWith(TOOL_KEY) && typeof tool === 'string');
  const core = new Core(tools.map(([key]) => key), tools.map(([, tool]) => tool), stored[SESSION_KEY] ?? null);
  try {
    // A new core holds no rules: with none stored and no policy, setting
    // them would only run the core's rule reader on a first call's path
    // (ARCHITECTURE.md, "A worker's start").
    const managed = local[LAST_POLICY_KEY] ?? {};
    if (local[RULES_KEY] === undefined && adminBook(managed) === null) policyNow = managed;
    else setRules(core, local[RULES_KEY], managed);
  } catch (error) {
    keepError('reading the stored site rules', error);
  }
  try {
    if (typeof local[FLAGS_KEY] === 'string') core.setFlags(local[FLAGS_KEY]);
  } catch (error) {
    keepError('reading the tools flagged for breaking their hints', error);
  }
  return core;
})();

// The administrator's policy the core holds now (docs/rules.md, "Who can
// change the rules"). A worker starts from the last one read, not waiting
// for Chromium's (ARCHITECTURE.md, "The policy at a start").
let policyNow = {};
function setRules(core, rules, managed) {
  core.setRules(JSON.stringify(rules ?? {}), JSON.stringify(adminBook(managed)));
  policyNow = managed;
}

// Hands `core` the person's stored rules and the administrator's policy,
// whenever either changes; `managed`, when Chromium has just given it.
export async function loadRules(core, managed = policyNow) {
  const { [RULES_KEY]: rules } = await chrome.storage.local.get(RULES_KEY);
  setRules(core, rules, managed);
}

// Chromium's policy, read once the core is loaded (not before: the read
// takes some 3 s after a browser start), and applied in the session's turn
// if it is not the one the worker started from; then kept as the last read.
// Resolves once applied. `policyChanges` counts the policies applied so.
let policyChanges = 0;
let policyKnown = false;
export async function applyPolicy(core, managed) {
  if (!samePolicy(managed, policyNow)) {
    // Only a change of what decides calls stops a call decided before it:
    // where the audit is sent decides nothing (docs/rules.md, "Sending the
    // audit where your team collects it").
    if (!samePolicy(adminBook(managed), adminBook(policyNow))) policyChanges += 1;
    await chrome.storage.local.set({ [LAST_POLICY_KEY]: managed });
    await loadRules(core, managed);
  }
  policyKnown = true;
}
const policyRead = Promise.all([ready, policy()])
  .then(([core, managed]) => serially(() => applyPolicy(core, managed)))
  .catch((error) => {
    policyKnown = true;
    keepError("applying the administrator's policy", error);
  });

// Before this worker has Chromium's policy (some 3 s after a browser start),
// a call about to run waits for it: it was decided under the last policy
// read, and if Chromium's is another, it does not run. Resolves to null, or
// to why the call must not run. Checked the moment the call would start, in
// the same turn as the decision (calls.js).
export async function policyHolds() {
  if (policyKnown) return null;
  const before = policyChanges;
  await policyRead;
  return policyChanges === before ? null
    : "the administrator's policy changed as Toolgate started, after this call was decided; nothing ran, ask again";
}
// The core once loaded, so that the handlers on an agent call's path need not
// wait a turn for `ready` each time.
export let loaded = null;
ready.then((core) => { loaded = core; }, () => {});

// Changes to the agent session go one at a time, in arrival order (session.js).
let queue = Promise.resolve();
export function serially(task) {
  const run = queue.then(task);
  queue = run.catch(() => {});
  return run;
}

// ---- Page events, one queue per tab ----------------------------------------
// A tab's events change the registry in arrival order, and what each changed
// is stored before it is answered and before any later event of the tab is
// stored: a worker stopped between two answered reports loses nothing. Each
// tab has its own queue, so one tab's writes never hold up another tab's
// events, nor any agent call (README, figure 10). A tab's events that
// arrive while its last write is under way are applied together when it
// ends, and stored in one write, each key once: a page that floods is
// throttled to one write at a time, and re-registering one tool a hundred
// times meanwhile costs one write of that tool (ARCHITECTURE.md, "stored
// state is the page's raw snapshots").
const tabQueues = new Map(); // tab id -> the events waiting while its write is under way
// A tab that keeps writing writes at most once per WRITE_SPACING_MS; its
// first WRITE_BURST writes in a row go at once, so that a page that is not
// flooding (a navigation, then its first tools) never waits (README, figure 3a).
const WRITE_SPACING_MS = 20;
const WRITE_BURST = 5;
const unspaced = new Map(); // tab id -> {writes, at}: the writes it may still make at once, at `at`

// A tab's write, begun at `at`: how long after `at` its next may begin. Each
// WRITE_SPACING_MS gives back one write of the burst.
function spacingAfterWrite(tabId, at) {
  const last = unspaced.get(tabId) ?? { writes: WRITE_BURST, at };
  const writes = Math.min(WRITE_BURST, last.writes + (at - last.at) / WRITE_SPACING_MS) - 1;
  unspaced.set(tabId, { writes, at });
  return writes >= 0 ? 0 : -writes * WRITE_SPACING_MS;
}

// Applies `change(core)` (which returns the core's `{ results, effects }`)
// in tab `tabId`'s turn; resolves with its results once its effects are
// carried out.
export function inTab(tabId, change) {
  return new Promise((resolve, reject) => {
    const waiting = tabQueues.get(tabId);
    if (waiting) {
      waiting.push({ change, resolve, reject });
      return;
    }
    const events = [{ change, resolve, reject }];
    tabQueues.set(tabId, events);
    drain(tabId, events).catch((error) => keepError(`tab ${tabId}'s events`, error));
  });
}

async function drain(tabId, events) {
  let core;
  try {
    core = loaded ?? await ready;
  } catch (error) {
    tabQueues.delete(tabId);
    for (const event of events) event.reject(error);
    return;
  }
  while (events.length) {
    const batch = events.splice(0);
    const writes = new Writes();
    const applied = [];
    for (const event of batch) {
      try {
        const { results, effects } = event.change(core);
        writes.add(effects);
        applied.push([event, results]);
      } catch (error) {
        event.reject(error);
      }
    }
    const wrote = performance.now();
    try {
      await writes.carryOut();
      for (const [event, results] of applied) event.resolve(results);
      // A turn that wrote nothing (a native call read)
      // is no flood to space out.
      if (writes.empty) continue;
      // A tab that keeps reporting is spaced (spacingAfterWrite): what it
      // reports meanwhile waits, and goes in the next write. The wait comes
      // after a write, not only when more is queued: the relay sends a
      // frame's next report as soon as this one is answered, so a flooding
      // page would otherwise be written as fast as the worker can answer it.
      const wait = spacingAfterWrite(tabId, wrote) - (performance.now() - wrote);
      if (wait > 0) await new Promise((done) => setTimeout(done, wait));
    } catch (error) {
      // Not said to the page: a storage error's text could tell it how full
      // storage is. The registry refuses what would pass the caps
      // (docs/classes.md, "What Toolgate keeps"), so this is Toolgate's bug.
      keepError(`storing tab ${tabId}'s tools`, error);
      for (const [event] of applied) event.reject(new Error('Toolgate could not store this report'));
    }
  }
  tabQueues.delete(tabId);
  // A tab whose burst has come back whole needs no entry.
  const last = unspaced.get(tabId);
  if (last && last.writes + (performance.now() - last.at) / WRITE_SPACING_MS >= WRITE_BURST) unspaced.delete(tabId);
}

// The effects of several events of one tab, merged: each key's last word,
// and the last badge.
class Writes {
  set = {};
  remove = new Set();
  badge = null;

  add(effects) {
    for (const effect of effects) {
      if (effect.effect === 'store') {
        for (const key of effect.remove) {
          delete this.set[key];
          this.remove.add(key);
        }
        for (const [key, text] of Object.entries(effect.set)) {
          this.set[key] = text;
          this.remove.delete(key);
        }
      } else if (effect.effect === 'badge') {
        this.badge = effect;
      }
    }
  }

  get empty() {
    return Object.keys(this.set).length === 0 && this.remove.size === 0 && this.badge === null;
  }

  // Both writes are issued before either is awaited: the browser applies
  // them in that order, and a worker stopped after issuing them does not
  // take them back. Their keys are disjoint.
  async carryOut() {
    const writing = [];
    if (this.remove.size) writing.push(chrome.storage.session.remove([...this.remove]));
    if (Object.keys(this.set).length) writing.push(chrome.storage.session.set(this.set));
    await Promise.all(writing);
    if (this.badge) {
      const { tab_id: tabId, count } = this.badge;
      // The tab may have closed meanwhile; its badge went with it.
      await chrome.action.setBadgeText({ tabId, text: count > 0 ? String(count) : '' }).catch(() => {});
    }
  }
}

// One registry event (navigation, frames, a tab closed), in its tab's turn.
export function applyEvent(event) {
  return inTab(event.tab_id, (core) => fromJson(core.apply(toJson(event, 'event'))));
}
