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
//
// Imports nothing.

const AREAS = ['localStorage', 'sessionStorage'];
export const MAX_KEYS = 1000;
export const MAX_CHARS = 256 * 1024;

// One area now: `{ count, values }`, `values` a Map of key to value, or null
// past the bounds; null if the area cannot be read (an opaque origin).
function read(area) {
  let storage;
  let count;
  try {
    storage = window[area];
    count = storage.length;
  } catch {
    return null;
  }
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
}

// Both areas now, as a watched call starts or answers.
export const storageNow = () => AREAS.map(read);

// What changed between `before` and `after` (two `storageNow()`), as the
// core reads a write the shim saw: `{ area, op, key }`.
export function changes(before, after) {
  const found = [];
  AREAS.forEach((area, i) => {
    const [was, is] = [before[i], after[i]];
    if (was === null || is === null) return;
    if (was.values === null || is.values === null) {
      const op = was.count !== is.count || was.values !== is.values ? 'changed' : 'unchecked';
      found.push({ area, op, key: '' });
      return;
    }
    for (const key of was.values.keys()) if (!is.values.has(key)) found.push({ area, op: 'remove', key });
    for (const [key, value] of is.values) if (was.values.get(key) !== value) found.push({ area, op: 'set', key });
  });
  return found;
}
