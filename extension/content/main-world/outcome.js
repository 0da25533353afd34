// A tool's result: running the function the page gave (runTool), its value
// and JSON text (outcome, settled), and what a caller of `execute` gets
// (servable), and what the browser is handed for its agent (handedOn).
//
// Imports: primordials.js.

import { apply, stringify, TypeErrorCtor } from './primordials.js';

// Runs the function the page gave at registration and settles with its
// result, the result's JSON text (undefined for undefined or a function),
// and why it cannot be serialised, if it cannot (a Symbol, a cycle, a
// BigInt, a throwing toJSON). Its getters and toJSON run once, here.
// The tool gets `execute(input, {signal})`, as the draft has it, or
// `execute(input)` where `signal` is null (Chromium 148's testing API).
export async function runTool(entry, input, signal) {
  return settled(apply(entry.execute, undefined, signal === null ? [input] : [input, { signal }]));
}

// What a form tool's run settles with when its submission navigated the
// document instead of answering (form-calls.js): executeTool gives null.
export const NAVIGATED = { navigated: true };
export function outcome(value) {
  if (value === NAVIGATED) return { value: null, text: 'null', unserialisable: null, navigated: true };
  if (typeof value === 'symbol') {
    return { value, text: undefined, unserialisable: new TypeErrorCtor('The tool returned a Symbol, which cannot be serialised.') };
  }
  try {
    return { value, text: stringify(value), unserialisable: null };
  } catch (error) {
    return { value, text: undefined, unserialisable: error };
  }
}

// The result a caller of `execute` gets: the page's value, undefined for
// an object whose JSON is nothing. A Symbol, or an object that cannot be
// serialised, throws, so the call fails cleanly; a bare BigInt is the
// page's value, as Chromium's own API hands it on.
export function servable({ value, text, unserialisable }) {
  const isObject = value !== null && typeof value === 'object';
  if (unserialisable && (isObject || typeof value === 'symbol')) throw unserialisable;
  return isObject && text === undefined ? undefined : value;
}

// What the browser is handed for a native call Toolgate ran and checked:
// the value's JSON text, written once (`outcome`), which the worker read for
// untrusted content, and not the value itself. The browser hands a value
// that is not a string on as its JSON text, and would write it again,
// calling the page's `toJSON` and getters a second time: a page could answer
// the check honestly and the agent otherwise (docs/cards.md, "After untrusted
// content"). A string is handed on as it is, as the browser would; what has
// no JSON text goes as `servable` says.
export function handedOn(result) {
  if (typeof result.value === 'string' || typeof result.text !== 'string') return servable(result);
  return result.text;
}

export const isPlain = (value) => value === null || value === undefined
  || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
// Awaited as `await` does it: a page's thenable, or a promise whose
// `constructor` getter throws, rejects instead of throwing here.
export async function settled(value) {
  return outcome(await value);
}
