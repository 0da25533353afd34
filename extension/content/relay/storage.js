// Storage written however it was written (docs/classes.md, "Hints held to
// their word"): the shim wraps the storage methods, but a page can write
// `localStorage.x = …`, `sessionStorage['k'] = …` or `delete localStorage.k`,
// named properties no wrapper sees. So the relay reads localStorage and
// sessionStorage as a watched call starts and again as it answers, and
// tells the keys whose values changed. It reads them from this isolated
// world, whose `Storage` the page cannot replace.
//
// Bounded (ARCHITECTURE.md, budgets): at most MAX_KEYS keys and MAX_CHARS
// characters of keys and values are read per area. Past that, the area is
// only counted: if its number of keys changed, it was written ("changed");
// if not, Toolgate cannot tell ("unchecked"), and says so without flagging.
// A key another window of the site wrote meanwhile (one the call did not
// open) is told, not flagged ("elsewhere", decided in the worker).
//
// Imports nothing.

const AREAS = ['localStorage', 'sessionStorage'];
export const MAX_KEYS = 1000;
export const MAX_CHARS = 256 * 1024;

// One area now: `{ count, values }`, `values` a Map of key to value, or null
// past the bounds; null if the area cannot be read (an opaque origin).
function read(area) {
  try {
    const storage = window[area];
    const count = storage.length;
    if (count > MAX_KEYS) return { count, values: null };
    const values = new Map();
    let chars = 0;
    for (let i = 0; i < count; i++) {
      const key = storage.key(i);
      const value = key === null ? null : storage.getItem(key);
      if (value === null) continue;
      chars += key.length + value.length;
      if (chars > MAX_CHARS) return { count, values: null };
      values.set(key, value);
    }
    return { count, values };
  } catch {
    return null;
  }
}

// Both areas now, as a watched call starts or answers, with the keys
// another document wrote meanwhile (`elsewhere`, filled by `storage` events:
// key -> the writing document's URL).
export function storageNow() {
  listenElsewhere();
  return { areas: AREAS.map(read), elsewhere: AREAS.map(() => new Map()) };
}

// The storage another document of the site writes (another tab, another
// frame) is shared: this window hears it as `storage` events. A key written
// there while a call runs here cannot be pinned on the call (a site's tabs
// often keep a heartbeat in localStorage), unless that document is in a
// window the call opened, which the worker knows (watch.js). `null` as a
// key: the area cleared.
const open = new Set(); // the `storageNow()` of calls still running
let listening = false;
function listenElsewhere() {
  if (listening) return;
  listening = true;
  window.addEventListener('storage', (event) => {
    // Only the browser's: the page can dispatch a `storage` event of its own.
    if (open.size === 0 || !event.isTrusted) return;
    let i = -1;
    try {
      i = AREAS.findIndex((area) => event.storageArea === window[area]);
    } catch {
      return;
    }
    if (i < 0) return;
    const url = String(event.url).slice(0, 2048);
    for (const state of open) {
      const keys = state.elsewhere[i];
      // Bounded: past MAX_KEYS keys, the whole area (as when it is cleared).
      const key = keys.size < MAX_KEYS ? event.key : null;
      if (!keys.has(key)) keys.set(key, url);
    }
  });
}
export const watching = (state) => open.add(state);
// A call that never answered: no longer listened for.
export const unwatch = (state) => open.delete(state);

// What changed between `before` (a `storageNow()`, whose watch this ends)
// and now, as the core reads a write the shim saw: `{ area, op, key }`, and
// `by`, the URL of another document that wrote the key (or cleared the area)
// meanwhile: then Toolgate cannot tell which wrote it.
export function changes(before) {
  open.delete(before);
  const after = AREAS.map(read);
  const found = [];
  AREAS.forEach((area, i) => {
    const [was, is, elsewhere] = [before.areas[i], after[i], before.elsewhere[i]];
    if (was === null || is === null) return;
    const tell = (op, key) => found.push({ area, op, key, by: elsewhere.get(key) ?? elsewhere.get(null) });
    if (was.values === null || is.values === null) {
      const changed = was.count !== is.count || was.values !== is.values;
      if (changed) found.push({ area, op: 'changed', key: '', by: elsewhere.values().next().value });
      else found.push({ area, op: 'unchecked', key: '' });
      return;
    }
    for (const key of was.values.keys()) if (!is.values.has(key)) tell('remove', key);
    for (const [key, value] of is.values) if (was.values.get(key) !== value) tell('set', key);
  });
  return found;
}
