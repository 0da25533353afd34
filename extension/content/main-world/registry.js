// What this frame publishes: its entries (one per tool or skill, by source,
// kind and name), adding and removing them, reported to the worker through
// channel.js and mirrored to the browser's own WebMCP through native.js, and
// `toolchange`.
//
// Imports: primordials.js, dom.js, events.js, channel.js, native.js.

import {
  arrayOf, arrayPush, arraySort, hasOwn, dispatch, listen, MapCtor, mapDelete, mapGet, mapHas, mapSet,
  mapValues,
} from './primordials.js';
import { abortController, EventCtor } from './dom.js';
import { queueTask } from './events.js';
import { report } from './channel.js';
import { gatedExecute, mirror } from './native.js';

// "source/kind/name" -> entry. Sources: document, navigator, declarative.
export const entries = new MapCtor();
// Where document.modelContext stores a registration: under `navigator` when
// the page's polyfill on navigator forwarded it (see snapshotTool).
export const sourceOf = (path) => (path === 'navigator_object' ? 'navigator' : 'document');
// Whether document.modelContext already has a tool of this name where a
// registration by `path` goes (snapshotTool's `exists`).
export const keyOf = (source, kind, name) => `${source}/${kind}/${name}`;
export const has = (source, kind) => (name) => mapHas(entries, keyOf(source, kind, name));
// One name is one tool in a document, whichever object registered it: a
// second registration of the name, on any object, is a duplicate
// (ARCHITECTURE.md, "One name, one tool"; the worker refuses it too).
// How many tool entries have each name, over every source: one lookup per
// registration, not three keys built and looked up.
const toolNames = new MapCtor();
export const toolNamed = (name) => mapHas(toolNames, name);
function countName(name, by) {
  const count = (mapGet(toolNames, name) ?? 0) + by;
  if (count === 0) mapDelete(toolNames, name);
  else mapSet(toolNames, name, count);
}

// The tools of this frame, sorted by name as WebMCP lists them.
export function toolEntries() {
  const list = [];
  const all = arrayOf(mapValues(entries));
  for (let i = 0; i < all.length; i++) {
    if (all[i].snapshot.kind === 'tool') arrayPush(list, all[i]);
  }
  return arraySort(list, (a, b) => (a.snapshot.name < b.snapshot.name ? -1 : a.snapshot.name > b.snapshot.name ? 1 : 0));
}

export function findTool(name) {
  const tools = toolEntries();
  for (let i = 0; i < tools.length; i++) if (tools[i].snapshot.name === name) return tools[i];
  return null;
}

// `toolchange`: one event per change, as a task, on every object that has
// it, and on the document.modelContext of the tree's other same-origin
// documents (`fromFrame`), in the tree's order (frames.js sets `spread`).
export const changeTargets = [];
export function fireToolchange(fromFrame = false) {
  const targets = fromFrame ? [changeTargets[0]] : changeTargets;
  for (let i = 0; i < targets.length; i++) dispatch(targets[i], new EventCtor('toolchange'));
}
let spread = fireToolchange;
export function setSpread(across) {
  spread = across;
}
export function changed() {
  queueTask(() => spread(), true);
}

// Puts an entry for a snapshot in the frame's map, without reporting it.
export function makeEntry(source, taken) {
  const entry = {
    source,
    snapshot: taken.snapshot,
    execute: taken.execute,
    idl: taken.idl,
    exposedTo: hasOwn(taken, 'exposedTo') ? taken.exposedTo : undefined, // registerTool's list, for the browser's copy (native.js)
    removed: false,
    nativeController: null,
    gated: null,
    onRemove: null, // what else its removal ends (a form's waiting call)
  };
  entry.gated = gatedExecute(entry);
  const key = keyOf(source, entry.snapshot.kind, entry.snapshot.name);
  if (entry.snapshot.kind === 'tool' && !mapHas(entries, key)) countName(entry.snapshot.name, 1);
  mapSet(entries, key, entry);
  return entry;
}

// Adds an entry for a snapshot and reports it to the worker.
export function add(source, taken, signal) {
  const entry = makeEntry(source, taken);
  report({ op: 'register', decl: entry.snapshot }, (result) => mirror(entry, result));
  changed();
  if (signal !== undefined) {
    // Aborting unregisters this entry, not a later one of the same name.
    listen(signal, 'abort', () => {
      if (mapGet(entries, keyOf(source, entry.snapshot.kind, entry.snapshot.name)) === entry) {
        remove(source, entry.snapshot.kind, entry.snapshot.name);
      }
    }, { once: true });
  }
  return entry;
}

// Removes an entry. `reported` is false when the caller reports the change
// itself (clearContext, provideContext).
export function remove(source, kind, name, reported = true) {
  const key = keyOf(source, kind, name);
  const entry = mapGet(entries, key);
  if (!entry) return;
  mapDelete(entries, key);
  if (kind === 'tool') countName(name, -1);
  entry.removed = true;
  if (entry.nativeController) abortController(entry.nativeController);
  if (entry.onRemove) entry.onRemove();
  if (reported) report({ op: 'unregister', source, kind, name });
  changed();
}
