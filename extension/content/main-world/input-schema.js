// A tool's inputSchema at document.modelContext.executeTool: input the
// schema does not accept is refused with a DataError before the tool's
// `execute` runs (the worker's validator decides, as it decides an agent's
// arguments; docs/classes.md, "What a page may register"). A schema outside
// the subset a draft proposal would allow is not refused at registerTool:
// the browser and the merged draft take it, so it is a lint note
// (src/page/schema/subset.rs). Chromium (148 and 156) checks neither:
// ARCHITECTURE.md, "Where the native API and the draft differ".
//
// Imports: primordials.js, dom.js, channel.js.

import {
  MapCtor, mapDelete, mapGet, mapSet, PromiseCtor, resolved, stringify, toString,
} from './primordials.js';
import { DOMExceptionCtor } from './dom.js';
import { send } from './channel.js';

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

// The relay's answer to a check (from-relay.js).
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
