// Reading a declaration, once, without ever throwing into the page: a tool's
// or a skill's members read in WebIDL's order into a snapshot (the JSON the
// worker's core validates), with the errors the native API throws.
//
// Imports: primordials.js, text.js, dom.js.

import {
  arrayFrom, arrayPush, isArray, NAME_RULE, regexTest, stringify, stringSlice, SymbolIterator,
  toString, TypeErrorCtor,
} from './primordials.js';
import { describe, errorText } from './text.js';
import { noteRegistration } from './provenance.js';
import { DOMExceptionCtor, isSignal } from './dom.js';

const HINTS = ['readOnlyHint', 'consequentialHint', 'destructiveHint', 'idempotentHint',
  'openWorldHint', 'untrustedContentHint', 'debugging'];
// The same, in the order WebIDL reads a dictionary's members (by name).
const HINTS_READ = ['consequentialHint', 'debugging', 'destructiveHint', 'idempotentHint',
  'openWorldHint', 'readOnlyHint', 'untrustedContentHint'];
const NO_HINTS = { hints: null, idl: null };

// The page's declaration while its polyfill runs (set by polyfill.js, read
// by snapshotTool).
export let foreignCall = null;
export function setForeignCall(call) {
  foreignCall = call;
}

// Reads one member; a throwing getter or Proxy trap gives `{ error }`. Both
// fields are the answer's own: a getter a page put on Object.prototype is
// never read in their place.
export function read(object, key) {
  try {
    return { value: object[key], error: undefined };
  } catch (error) {
    return { value: undefined, error };
  }
}

// WebIDL's DOMString conversion, as the native API does it.
export function toDOMString(value) {
  if (typeof value === 'symbol') throw new TypeErrorCtor('Cannot convert a Symbol value to a string');
  return toString(value);
}

export const REGISTER = "Failed to execute 'registerTool' on 'ModelContext': ";
const memberError = (member, dictionary, reason) => new TypeErrorCtor(
  `${REGISTER}Failed to read the '${member}' property from '${dictionary}': ${reason}`,
);
const invalidState = (message) => new DOMExceptionCtor(REGISTER + message, 'InvalidStateError');

// Reads `annotations` as the browser reads a ToolAnnotations dictionary: each
// member once, by name, in WebIDL's order, through getters, Proxies and
// prototypes alike (docs/classes.md, "Unreadable declarations"). A member
// that throws makes the declaration unreadable (Consequential) instead of
// throwing into the page.
function readAnnotations(annotations, problems) {
  if (annotations === undefined || annotations === null) return NO_HINTS;
  if (typeof annotations !== 'object' && typeof annotations !== 'function') {
    arrayPush(problems, `annotations is ${describe(annotations)}, not an object`);
    return NO_HINTS;
  }
  // Every slot its own from the start, so that filling one sets no setter
  // a page put on Array.prototype.
  const values = [undefined, undefined, undefined, undefined, undefined, undefined, undefined];
  let at = 0;
  try {
    for (; at < HINTS_READ.length; at++) values[at] = annotations[HINTS_READ[at]];
  } catch (error) {
    arrayPush(problems, `reading annotations.${HINTS_READ[at]} threw ${errorText(error)}`);
    return NO_HINTS;
  }
  // By index: the page may have replaced Array.prototype's iterator.
  const consequential = values[0];
  const debugging = values[1];
  const readOnly = values[5];
  const untrusted = values[6];
  // Object literals: a setter the page put on Object.prototype never runs.
  // An absent hint stays undefined, which the snapshot's JSON leaves out.
  const hints = {
    consequentialHint: hintOf(consequential),
    debugging: hintOf(debugging),
    destructiveHint: hintOf(values[2]),
    idempotentHint: hintOf(values[3]),
    openWorldHint: hintOf(values[4]),
    readOnlyHint: hintOf(readOnly),
    untrustedContentHint: hintOf(untrusted),
  };
  // The draft's ToolAnnotations, which getTools() reports in this order (as
  // Chromium 156 does): any value converted to a boolean.
  const idl = {
    consequentialHint: Boolean(consequential),
    debugging: Boolean(debugging),
    readOnlyHint: Boolean(readOnly),
    untrustedContentHint: Boolean(untrusted),
  };
  return { hints, idl };
}

// A hint as the snapshot carries it: a boolean, or what the page gave instead.
function hintOf(value) {
  if (value === undefined || typeof value === 'boolean') return value;
  return describe(value);
}

// Reads a declaration's hints: `annotations` and hints misplaced beside it.
export function readHints(tool) {
  const problems = [];
  const annotations = read(tool, 'annotations');
  const { hints, idl } = annotations.error
    ? (arrayPush(problems, `reading annotations threw ${errorText(annotations.error)}`), NO_HINTS)
    : readAnnotations(annotations.value, problems);
  const strayHints = [];
  for (let i = 0; i < HINTS.length; i++) {
    const stray = read(tool, HINTS[i]);
    if (stray.error || stray.value !== undefined) arrayPush(strayHints, HINTS[i]);
  }
  return { hints, idl, strayHints, problems };
}

// Snapshots a tool given as an object. Members are read in WebIDL's order
// (alphabetical), each once: a later change to the page's object changes
// nothing. Then the checks run in the spec's order: duplicate, name,
// description, schema. `options` is read between the two, as the native API
// reads it. Returns the entry's parts and the signal, or throws the error
// the registration fails with.
export function snapshotTool(tool, path, exists, options) {
  if (tool === null || typeof tool !== 'object') {
    throw new TypeErrorCtor(`${REGISTER}The provided value is not of type 'ModelContextTool'.`);
  }
  const member = (key) => {
    const { value, error } = read(tool, key);
    if (error) throw error;
    return value;
  };
  let { hints, idl, strayHints, problems } = readHints(tool);
  const description = member('description');
  if (description === undefined) throw memberError('description', 'ModelContextTool', 'Required member is undefined.');
  if (typeof description === 'symbol') throw memberError('description', 'ModelContextTool', 'Cannot convert a Symbol value to a string');
  const execute = member('execute');
  if (execute === undefined) throw memberError('execute', 'ModelContextTool', 'Required member is undefined.');
  if (typeof execute !== 'function') throw memberError('execute', 'ModelContextTool', 'The given value is not a function.');
  const schema = member('inputSchema');
  if (schema !== undefined && (schema === null || (typeof schema !== 'object' && typeof schema !== 'function'))) {
    throw memberError('inputSchema', 'ModelContextTool', "Failed to convert value to 'object'.");
  }
  const nameValue = member('name');
  if (nameValue === undefined) throw memberError('name', 'ModelContextTool', 'Required member is undefined.');
  if (typeof nameValue === 'symbol') throw memberError('name', 'ModelContextTool', 'Cannot convert a Symbol value to a string');
  const tags = read(tool, 'tags');
  const titleRead = read(tool, 'title');
  const title = titleRead.error || typeof titleRead.value === 'symbol' ? undefined : titleRead.value;
  const { signal, exposedTo } = readOptions(options, 'registerTool', path === 'document_object');

  const name = toDOMString(nameValue);
  // A registration forwarded by the page's own polyfill (see
  // polyfill.js, "Pages that bring their own polyfill") takes its hints and path from what the
  // page declared, not from the polyfill's cleaned copy; its duplicates are
  // looked for where it will be stored, under that path.
  let registeredAs = path;
  if (foreignCall && foreignCall.name === name) {
    ({ hints, idl, strayHints, problems } = foreignCall);
    registeredAs = foreignCall.path;
  }
  if (exists(name, registeredAs)) throw invalidState('Duplicate tool name');
  if (name === '') throw invalidState('Tool name is required');
  // The draft's name rule. Chromium's native API (M148) does not check it;
  // docs/classes.md, "What a page may register", asks for it.
  if (!regexTest(NAME_RULE, name)) {
    throw invalidState(`Tool name must be 1 to 128 characters of A-Z a-z 0-9 _ . - (got ${stringify(stringSlice(name, 0, 140))})`);
  }
  const descriptionText = toDOMString(description);
  if (descriptionText === '') throw invalidState('Description is required');
  let schemaJson = null;
  if (schema !== undefined) {
    try {
      schemaJson = stringify(schema);
    } catch (error) {
      throw new TypeErrorCtor(REGISTER + (error?.message ?? toString(error)));
    }
    if (schemaJson === undefined) throw new TypeErrorCtor(`${REGISTER}invalid input schema: toJSON() returns undefined`);
  }
  const snapshot = {
    kind: 'tool',
    path: registeredAs,
    name,
    title: title === undefined ? null : toDOMString(title),
    description: descriptionText,
    input_schema: schemaJson,
    annotations: hints,
    stray_hints: strayHints,
    tags: !tags.error && isArray(tags.value) ? stringsOf(arrayFrom(tags.value)) : [],
    instructions: null,
    unreadable: problems.length ? joined(problems, '; ') : null,
  };
  noteRegistration(snapshot);
  return { snapshot, execute, idl, signal, exposedTo };
}

// What the snapshot is made of is made by the shim, with the built-ins as
// captured: the page's Array.prototype.filter or join would choose its parts.
function stringsOf(list) {
  const strings = [];
  for (let i = 0; i < list.length; i++) if (typeof list[i] === 'string') arrayPush(strings, list[i]);
  return strings;
}
function joined(list, separator) {
  let text = '';
  for (let i = 0; i < list.length; i++) text += (i === 0 ? '' : separator) + list[i];
  return text;
}

// `registerTool(name, description, inputSchema, execute, annotations?)`.
export function positionalTool(args, path, exists) {
  const [name, description, inputSchema, execute, annotations] = args;
  return snapshotTool({ name, description, inputSchema, execute, annotations }, path, exists, undefined);
}

// Skills: instructions for agents, never called.
export function snapshotSkill(skill, path, exists) {
  const fail = (message) => new TypeErrorCtor(`Failed to execute 'registerSkill' on 'ModelContext': ${message}`);
  if (skill === null || typeof skill !== 'object') throw fail('The provided value is not an object.');
  const get = (key) => {
    const { value, error } = read(skill, key);
    if (error) throw error;
    return value === undefined ? undefined : toDOMString(value);
  };
  const description = get('description') ?? '';
  const instructions = get('instructions');
  const name = get('name');
  const title = get('title');
  if (name === undefined) throw fail('Skill name is required.');
  if (exists(name)) throw new DOMExceptionCtor("Failed to execute 'registerSkill' on 'ModelContext': Duplicate skill name", 'InvalidStateError');
  if (!regexTest(NAME_RULE, name)) {
    throw new DOMExceptionCtor("Failed to execute 'registerSkill' on 'ModelContext': Skill name must be 1 to 128 characters of A-Z a-z 0-9 _ . -", 'InvalidStateError');
  }
  if (instructions === undefined) throw fail('Skill instructions are required.');
  const snapshot = {
    kind: 'skill', path, name, title: title ?? null, description, input_schema: null,
    annotations: null, stray_hints: [], tags: [], instructions, unreadable: null,
  };
  return { snapshot, execute: null, idl: null };
}

// Reads registerTool's (or registerSkill's) options in WebIDL's order:
// `exposedTo` (only where the API has it: `exposed`), then `signal`.
export function readOptions(options, method, exposed = false) {
  if (options === undefined || options === null) return { signal: undefined, exposedTo: undefined };
  if (typeof options !== 'object' && typeof options !== 'function') {
    throw new TypeErrorCtor(`Failed to execute '${method}' on 'ModelContext': The provided value is not of type 'ModelContextRegisterToolOptions'.`);
  }
  let exposedTo;
  if (exposed) {
    const given = read(options, 'exposedTo');
    if (given.error) throw given.error;
    if (given.value !== undefined) exposedTo = readSequence(given.value, method, 'exposedTo');
  }
  const { value: signal, error } = read(options, 'signal');
  if (error) throw error;
  if (signal !== undefined && !isSignal(signal)) {
    throw new TypeErrorCtor(`Failed to execute '${method}' on 'ModelContext': Failed to read the 'signal' property from 'ModelContextRegisterToolOptions': Failed to convert value to 'AbortSignal'.`);
  }
  return { signal, exposedTo };
}

// WebIDL's sequence<USVString>: any iterable object but a string.
function readSequence(value, method, member) {
  const fail = (why) => new TypeErrorCtor(`Failed to execute '${method}' on 'ModelContext': Failed to read the '${member}' property from 'ModelContextRegisterToolOptions': ${why}`);
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) throw fail('The provided value cannot be converted to a sequence.');
  const iterator = value[SymbolIterator];
  if (typeof iterator !== 'function') throw fail('The object must have a callable @@iterator property.');
  const list = [];
  for (const item of arrayFrom(value)) arrayPush(list, toDOMString(item));
  return list;
}
