// A tool's inputSchema as the WebMCP draft's input validation has it
// (docs/classes.md, "What a page may register"), for document.modelContext:
// - registerTool refuses, with a TypeError, a schema that uses a keyword
//   outside the draft's supported subset or a `pattern` JavaScript cannot
//   read;
// - executeTool refuses, with a DataError, input the schema does not
//   accept, before the tool's `execute` runs (the worker's validator
//   decides, as it decides an agent's arguments).
// Chromium (148 and 156) does neither yet: ARCHITECTURE.md, "Where the
// native API and the draft differ".
//
// Imports: primordials.js, dom.js, channel.js.

import {
  hasOwn, isArray, MapCtor, mapDelete, mapGet, mapSet, parse, PromiseCtor, resolved,
  stringify, toString, TypeErrorCtor,
} from './primordials.js';
import { DOMExceptionCtor } from './dom.js';
import { send } from './channel.js';

const RegExpCtor = RegExp;
const objectKeys = Object.keys;

// Keywords the draft's subset leaves out: references, `format`, the
// unevaluated and dependent keywords, and content encodings.
const EXCLUDED = [
  '$ref', '$dynamicRef', '$recursiveRef', '$defs', 'definitions', 'format', 'unevaluatedProperties',
  'unevaluatedItems', 'dependentRequired', 'dependentSchemas', 'dependencies', 'contentEncoding',
  'contentMediaType', 'contentSchema',
];
// Keywords whose value is a schema, a list of schemas, or a map of them.
const ONE = ['items', 'not', 'contains', 'if', 'then', 'else', 'propertyNames', 'additionalItems'];
const LIST = ['prefixItems', 'anyOf', 'oneOf', 'allOf'];
const MAP = ['properties', 'patternProperties'];

const pointer = (path, key) => `${path}/${toString(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;

// What keeps the schema at `path` out of the subset, or null.
function problemAt(schema, path) {
  if (schema === null || typeof schema !== 'object' || isArray(schema)) return null;
  for (const keyword of EXCLUDED) {
    if (hasOwn(schema, keyword)) return `'${keyword}' is not supported (at ${pointer(path, keyword)})`;
  }
  if (hasOwn(schema, 'additionalProperties') && schema.additionalProperties !== false) {
    return `'additionalProperties' may only be false (at ${pointer(path, 'additionalProperties')})`;
  }
  if (hasOwn(schema, 'pattern')) {
    const where = pointer(path, 'pattern');
    if (typeof schema.pattern !== 'string') return `'pattern' is not a string (at ${where})`;
    try {
      new RegExpCtor(schema.pattern, 'u');
    } catch (error) {
      return `'pattern' is not a valid regular expression (at ${where}): ${error.message}`;
    }
  }
  for (const keyword of ONE) {
    if (!hasOwn(schema, keyword)) continue;
    const problem = problemAt(schema[keyword], pointer(path, keyword));
    if (problem) return problem;
  }
  for (const keyword of LIST) {
    if (!hasOwn(schema, keyword) || !isArray(schema[keyword])) continue;
    const list = schema[keyword];
    for (let i = 0; i < list.length; i++) {
      const problem = problemAt(list[i], pointer(pointer(path, keyword), i));
      if (problem) return problem;
    }
  }
  for (const keyword of MAP) {
    const map = hasOwn(schema, keyword) ? schema[keyword] : null;
    if (map === null || typeof map !== 'object') continue;
    for (const key of objectKeys(map)) {
      const problem = problemAt(map[key], pointer(pointer(path, keyword), key));
      if (problem) return problem;
    }
  }
  return null;
}

// registerTool's check of a snapshot's inputSchema (JSON text, or null for
// none): the TypeError it rejects with, or null. Reads the JSON, not the
// page's object, so nothing the page defines runs.
export function subsetError(schemaJson, prefix) {
  if (schemaJson === null) return null;
  const problem = problemAt(parse(schemaJson), '');
  return problem === null ? null : new TypeErrorCtor(`${prefix}invalid input schema: ${problem}`);
}

// executeTool's check of `input` against a tool's inputSchema (JSON text, or
// null): a promise of the DataError the call rejects with, or null. The
// worker's validator (background/arguments.js, inputFault) answers through
// the relay, so that no page pays for the validator's code until one calls
// a tool with a schema (benches/README.md, "The validator where the page
// calls"). Its message is JSON, as the draft's tests read it: {path,
// reason, schemaPath}. Input that cannot be written as JSON, or a worker
// that does not answer, goes unchecked.
let nextCheck = 1;
const checks = new MapCtor(); // check number -> resolve
export function checkedInput(schemaJson, input) {
  if (schemaJson === null) return resolved(null);
  let inputJson;
  try {
    inputJson = stringify(input);
  } catch {
    return resolved(null);
  }
  if (typeof inputJson !== 'string') return resolved(null);
  const check = nextCheck++;
  return new PromiseCtor((resolve) => {
    mapSet(checks, check, resolve);
    // In this order: the relay reads `type` and `check` from the text's start.
    send(stringify({ type: 'check_input', check, schema: schemaJson, input: inputJson }));
  });
}

// The relay's answer to a check (from-relay.js). The page could forge one:
// it would only change its own call's outcome.
export function inputChecked({ check, fault }) {
  const resolve = mapGet(checks, check);
  if (!resolve) return;
  mapDelete(checks, check);
  if (fault === null || typeof fault !== 'object') {
    resolve(null);
    return;
  }
  const message = stringify({ path: toString(fault.path), reason: toString(fault.reason), schemaPath: toString(fault.schemaPath) });
  resolve(new DOMExceptionCtor(message, 'DataError'));
}
