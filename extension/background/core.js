// The Wasm core, loaded once per worker start, and the serial queue every
// change to it goes through.
//
// MV3 stops this worker after 30 s idle and forgets every global, so the core
// is a cache of what is in chrome.storage.session, rebuilt by `ready` on every
// start, and every handler waits on `ready`.
import init, { Core } from '../../pkg/toolgate.js';

export const TAB_KEY = 'tab:';
export const SESSION_KEY = 'session';

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

// Loads the Wasm core and the stored registry. Top-level await and import()
// both break MV3 workers, so this is a promise every handler awaits.
export const ready = (async () => {
  await init();
  const stored = await chrome.storage.session.get(null);
  // Each tab's record is JSON text (see Effect::Persist in src/registry.rs).
  const records = Object.entries(stored)
    .filter(([key, record]) => key.startsWith(TAB_KEY) && typeof record === 'string')
    .map(([, record]) => record);
  return new Core(records, stored[SESSION_KEY] ?? null);
})();
// The core once loaded, so that the handlers on an agent call's path need not
// wait a turn for `ready` each time.
export let loaded = null;
ready.then((core) => { loaded = core; }, () => {});

// Events change the registry one at a time, in arrival order, each persisted
// before the next starts, so a stop between two events loses nothing.
let queue = Promise.resolve();
export function serially(task) {
  const run = queue.then(task);
  queue = run.catch(() => {});
  return run;
}

// Carries out the effects the core returns: a tab's record stored (or
// removed), a tab's badge set.
export async function perform(effects) {
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

// One registry event, in turn; its effects carried out before the next.
export function applyEvent(event) {
  return serially(async () => {
    const core = await ready;
    const { results, effects } = fromJson(core.apply(toJson(event, 'event')));
    await perform(effects);
    return results;
  });
}
