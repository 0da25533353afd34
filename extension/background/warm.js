// The JS a first agent call runs besides the core, run once on made-up input
// while the core's Wasm compiles off the worker's thread (worker.js), so that
// the first call does not wait for it to be compiled, and the API the call's
// watch listens with built (ARCHITECTURE.md, "A worker's start"). It changes
// nothing a call is decided on (the check's validators are kept by schema
// text, this one beside the pages').
import { checkArguments } from './arguments.js';
import { keepError } from './errors.js';

const SCHEMA = JSON.stringify({
  type: 'object', properties: { text: { type: 'string', minLength: 1 }, count: { type: 'integer' } }, required: ['text'],
});

export function warmUp() {
  // Chromium builds an API's bindings at its first use: a watched call's
  // first listener (watch.js) then waits for less.
  void chrome.webRequest.onBeforeRequest;
  try {
    checkArguments(SCHEMA, JSON.stringify({ text: 'a', count: 1 }));
  } catch (error) {
    keepError('warming up the arguments\' check', error);
  }
}
