// The JSON text of what the shim sends (jsonText): every message on the
// channel to the relay (channel.js) is written here, never by JSON.stringify,
// which calls hooks a page can set: a `toJSON` on Object.prototype or
// Array.prototype, or a getter for it, turned the shim's report into a native
// call of the page's choosing (ARCHITECTURE.md, "The shim–relay channel").
//
// This writes what JSON.stringify writes for the values the shim builds
// (objects and arrays of its own, made by literals, with strings, numbers,
// booleans and null in them), and reads nothing a page can hook: only own data
// properties, by Object.keys and Object.getOwnPropertyDescriptor as captured at
// document_start; strings and numbers by the captured JSON.stringify, which
// calls no hook for a primitive. No toJSON, no getter (an own accessor throws:
// the shim never makes one), no prototype, no iterator, no Symbol.toPrimitive.
// The values the browser hands the shim's copy of a tool (a native call's
// input) are plain JSON values too, read the same way (foreignJsonText).
//
// A value the shim built itself can meet a page's hook in JSON.stringify only
// through `toJSON` on its objects' and arrays' prototypes: Object.prototype,
// the realm's own Array.prototype, or an object the page put between the two.
// With none of those there, the captured JSON.stringify writes it as `write`
// would, in half the page's time (a registration 8 µs, not 16: benches/JOURNAL.md).
//
// Imports: primordials.js only.

import {
  getOwnPropertyDescriptor, getPrototypeOf, hasOwn, isArray, ObjectCtor, objectKeys, stringify, TypeErrorCtor,
} from './primordials.js';

const ObjectPrototype = ObjectCtor.prototype;
const ArrayPrototype = getPrototypeOf([]);
// Reads own properties of two ordinary objects: no hook of the page's runs.
const hooksAbsent = () => !hasOwn(ObjectPrototype, 'toJSON') && !hasOwn(ArrayPrototype, 'toJSON')
  && getPrototypeOf(ArrayPrototype) === ObjectPrototype;

// Nesting deeper than this is refused, as a cycle would be (a call's input
// from the browser is JSON, so it is never deep).
const DEEPEST = 256;

// The JSON text of a value the shim built (objects and arrays made by its own
// literals, nothing of the page's in them); undefined for undefined, a
// function or a symbol, as JSON.stringify gives. Throws a TypeError for a
// BigInt, a cycle or an accessor.
export function jsonText(value) {
  return hooksAbsent() ? stringify(value) : write(value, 0);
}

// The same for a value the shim did not build (the browser's input to a
// native call): only its own data properties are read, whatever the page did.
export function foreignJsonText(value) {
  return write(value, 0);
}

function write(value, depth) {
  switch (typeof value) {
    case 'string': case 'number': return stringify(value); // a primitive: no hook (NaN and Infinity: null)
    case 'boolean': return value ? 'true' : 'false';
    case 'undefined': case 'function': case 'symbol': return undefined;
    case 'bigint': throw new TypeErrorCtor('Do not know how to serialize a BigInt');
    default:
  }
  if (value === null) return 'null';
  if (depth > DEEPEST) throw new TypeErrorCtor('Toolgate will not write JSON nested this deep (or a cycle)');
  if (isArray(value)) {
    const length = own(value, 'length');
    let text = '[';
    for (let i = 0; i < length; i++) {
      const item = write(own(value, `${i}`), depth + 1);
      text += (i === 0 ? '' : ',') + (item === undefined ? 'null' : item);
    }
    return `${text}]`;
  }
  const keys = objectKeys(value);
  let text = '{';
  let first = true;
  for (let i = 0; i < keys.length; i++) {
    const item = write(own(value, keys[i]), depth + 1);
    if (item === undefined) continue;
    text += `${first ? '' : ','}${stringify(keys[i])}:${item}`;
    first = false;
  }
  return `${text}}`;
}

// An own data property's value (undefined for an array's hole), read
// without any getter, own or inherited.
function own(object, key) {
  const descriptor = getOwnPropertyDescriptor(object, key);
  if (descriptor === undefined) return undefined;
  if (!hasOwn(descriptor, 'value')) throw new TypeErrorCtor(`Toolgate will not read the accessor ${stringify(key)}`);
  return descriptor.value;
}
