// Where a registration came from (docs/classes.md, "Where a tool comes
// from"; the core chooses from them, src/page/provenance.rs): the scripts on the stack of the call that
// registered a tool, innermost first, read from V8's own call sites, never
// from the page's formatting of a stack.
//
// How, and why so (measured on 148, 7 December 2026):
// - A stack read as text is the page's to format (`Error.prepareStackTrace`)
//   or to empty (`Error.stackTraceLimit = 0`), and its script names follow a
//   script's `//# sourceURL=`, which any script may set to look like the
//   page's own. So the call sites are read as objects, by `getFileName`
//   (the script's real URL, never its sourceURL) and `isEval`.
// - The realm's own `Error` is the only one whose stack holds the page's
//   frames: an isolated world's Error sees none of them (V8 keeps other
//   security contexts' frames out), and a fresh iframe's realm costs 10-20 ms
//   to make, too much at every document's start or first registration.
// - So for the one capture, the realm's `Error.stackTraceLimit` and
//   `Error.prepareStackTrace` are set to the shim's and put back as they
//   were. A page that made either unchangeable (non-configurable and not
//   writable) leaves Toolgate unable to see: the registration's scripts are
//   then unknown, which asks, never passes (`null`).
// - The call sites' methods are taken from a call site of the shim's own,
//   before any page script runs, so a page that reaches `CallSite.prototype`
//   through its own `prepareStackTrace` cannot answer for them.
//
// Imports: primordials.js.

import {
  apply, arrayPush, defineProperty, doc, ErrorCtor, getOwnPropertyDescriptor, getPrototypeOf, hasOwn,
  isArray, MapCtor, mapHas, mapSet, mapSize, queueMicrotaskFn, setOwn, stringIndexOf, stringSlice,
} from './primordials.js';

// Frames read, and scripts sent: the innermost that matter are near the call
// (a capture's cost grows with its frames).
const FRAMES = 24;
const SCRIPTS = 8;
// The most characters of a script's address sent (its origin and path).
const ADDRESS = 300;

const sitesOf = (error, sites) => sites;
const deleteProperty = Reflect.deleteProperty;

let fileOf = null;
let evalOf = null;
let evalOriginOf = null;
let ownFile = null;
// The addresses of the scripts that defined the page's own WebMCP polyfill
// (polyfill.js): its frames are not where a tool comes from.
const polyfills = new MapCtor();

// Sets `key` of the realm's Error to `value` for one capture; returns what
// puts it back, or throws where the page made it unchangeable.
function swap(key, value) {
  const before = getOwnPropertyDescriptor(ErrorCtor, key);
  if (before === undefined) {
    defineProperty(ErrorCtor, key, { __proto__: null, value, writable: true, configurable: true, enumerable: false });
    return () => deleteProperty(ErrorCtor, key);
  }
  if (hasOwn(before, 'value') && before.writable) {
    // An own writable value (as the browser makes stackTraceLimit): set as
    // it is, which runs no setter and costs a tenth of a redefinition.
    ErrorCtor[key] = value;
    return () => { ErrorCtor[key] = before.value; };
  }
  // A getter, or a value the page made read-only but left configurable. Put
  // back from a copy with no prototype: no getter a page put on
  // Object.prototype (`value`, `get`) is read into it.
  defineProperty(ErrorCtor, key, {
    __proto__: null, value, writable: true, configurable: true, enumerable: before.enumerable,
  });
  const back = { __proto__: null, ...before };
  return () => defineProperty(ErrorCtor, key, back);
}

// The stack here, captured (an Error of the realm's, its frames not yet read
// into call sites), or null where the page made the realm's Error unchangeable.
function captured() {
  let restore = null;
  try {
    restore = swap('stackTraceLimit', FRAMES);
    return new ErrorCtor();
  } catch {
    return null;
  } finally {
    try {
      if (restore) restore();
    } catch {
      // Put back as far as the page lets it: never a throw into the page.
    }
  }
}

// Each captured stack's call sites, innermost first (null for a stack that
// could not be captured or read), read in one swap of prepareStackTrace:
// adding and removing it costs more than reading a stack.
function callSites(stacks) {
  const sites = [];
  let restore = null;
  try {
    restore = swap('prepareStackTrace', sitesOf);
    for (let i = 0; i < stacks.length; i++) {
      const read = stacks[i] === null ? null : stacks[i].stack;
      defineProperty(sites, i, { __proto__: null, value: isArray(read) ? read : null, writable: true, enumerable: true, configurable: true });
    }
  } catch {
    // Unread stacks stay unknown.
  } finally {
    try {
      if (restore) restore();
    } catch {
      // As above.
    }
  }
  return sites;
}

// The call sites of the stack here, innermost first, or null.
function sitesHere() {
  const read = callSites([captured()]);
  // By length first: an empty array's [0] would be Array.prototype's.
  return read.length > 0 ? read[0] : null;
}

// Takes the call sites' methods and the shim's own script, at document_start.
export function installProvenance() {
  const sites = sitesHere();
  if (sites === null || sites.length === 0) return;
  const proto = getPrototypeOf(sites[0]);
  fileOf = proto.getFileName;
  evalOf = proto.isEval;
  evalOriginOf = proto.getEvalOrigin;
  ownFile = apply(fileOf, sites[0], []);
}

// A script's address without its query and fragment, cut to ADDRESS.
// (No for...of here: a page's hook on Array.prototype's iterator would run.)
function addressOf(file) {
  let end = file.length;
  const query = stringIndexOf(file, '?');
  if (query >= 0) end = query;
  const fragment = stringIndexOf(file, '#');
  if (fragment >= 0 && fragment < end) end = fragment;
  return stringSlice(file, 0, end > ADDRESS ? ADDRESS : end);
}

// The document's own address: an inline script's frames name it.
const documentAddress = () => addressOf(doc.URL);

// Registrations whose stacks are captured and not yet read: a snapshot, and
// its stack. Read when the task's reports are sent (`readRegistrations`,
// channel.js), so that a registration pays only for the capture.
let pending = [];

// A snapshot is being taken: its registration's stack is captured now, and
// its `scripts` written in a microtask, or when its report is sent if that
// comes first (a `pagehide`). Until then it says "unknown", never the
// page's own.
export function noteRegistration(snapshot) {
  setOwn(snapshot, 'scripts', [{ kind: 'unknown' }]);
  if (pending.length === 0) queueMicrotaskFn(readRegistrations);
  arrayPush(pending, snapshot);
  arrayPush(pending, fileOf === null ? null : captured());
}

// Writes each noted snapshot's `scripts`: the scripts on its registration's
// stack, innermost first, without Toolgate's own or the page's WebMCP
// polyfill's, each once in a row, SCRIPTS at most (`{kind: 'script', url}`,
// `{kind: 'inline'}`, `{kind: 'eval'}`); a stack Toolgate could not see is
// `[{kind: 'unknown'}]`, which the core never takes for the page's own.
export function readRegistrations() {
  if (pending.length === 0) return;
  const noted = pending;
  pending = [];
  const stacks = [];
  for (let i = 1; i < noted.length; i += 2) arrayPush(stacks, noted[i]);
  const sites = callSites(stacks);
  for (let i = 0; i < stacks.length; i++) {
    const read = i < sites.length ? sites[i] : null;
    setOwn(noted[2 * i], 'scripts', (read === null ? null : scriptsOf(read)) ?? [{ kind: 'unknown' }]);
  }
}

// The page's own polyfill is being defined (polyfill.js): the script that
// defines it is left out of where its forwarded tools come from.
export function notePolyfill() {
  const sites = fileOf === null ? null : sitesHere();
  const scripts = sites === null ? null : scriptsOf(sites);
  // Read by length first: an empty array's [0] would be Array.prototype's.
  const first = scripts !== null && scripts.length > 0 ? scripts[0] : null;
  if (first !== null && first.kind === 'script' && mapSize(polyfills) < SCRIPTS) mapSet(polyfills, first.url, true);
}

// The scripts of `sites`, as `readRegistrations` writes them; null where a
// call site cannot be read.
function scriptsOf(sites) {
  const scripts = [];
  const own = documentAddress();
  let last = null;
  for (let i = 0; i < sites.length && scripts.length < SCRIPTS; i++) {
    let file;
    let madeBy = null;
    try {
      file = apply(fileOf, sites[i], []);
      if (apply(evalOf, sites[i], []) === true) madeBy = apply(evalOriginOf, sites[i], []);
    } catch {
      return null;
    }
    if (file === ownFile) continue;
    let entry;
    // Code made at run time by a page's script: its eval origin names the
    // script ("eval at f (https://…)"). One that names none was run from
    // DevTools or through its protocol (a test's evaluate): the person's,
    // not the page's, as is a frame whose script name has no scheme (every
    // script a page can load or make has one: http:, blob:, data:). A
    // built-in's frame has no script.
    if (madeBy !== null) {
      if (typeof madeBy !== 'string' || stringIndexOf(madeBy, '://') < 0) continue;
      entry = 'eval';
    } else if (typeof file !== 'string' || stringIndexOf(file, ':') < 0) continue;
    else entry = addressOf(file);
    if (mapHas(polyfills, entry)) continue;
    if (entry === last) continue;
    last = entry;
    let script;
    if (entry === 'eval') script = { kind: 'eval' };
    else if (entry === own) script = { kind: 'inline' };
    else script = { kind: 'script', url: entry };
    defineProperty(scripts, scripts.length, { __proto__: null, value: script, writable: true, enumerable: true, configurable: true });
  }
  return scripts;
}
