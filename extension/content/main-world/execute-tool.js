// Running a tool, as WebMCP's executeTool does: for the page's own
// executeTool (document.modelContext, navigator.modelContextTesting), with
// the caller's AbortSignal, and the `toolactivated` / `toolcancel` events
// every run fires. An agent's call through Toolgate runs in from-relay.js
// (runForAgent).
//
// Imports: primordials.js, dom.js, events.js, outcome.js.

import {
  listen, parse, PromiseCtor, promiseThen, rejected, reportErrorFn, toString,
} from './primordials.js';
import {
  abortController, AbortControllerCtor, controllerSignal, DOMExceptionCtor, signalAborted,
  signalReason,
} from './dom.js';
import { fireToolEvent, queueTask } from './events.js';
import { runTool, servable } from './outcome.js';

export const unknownError = (message) => new DOMExceptionCtor(message, 'UnknownError');
const INVOCATION_FAILED = 'Tool was executed but the invocation failed. For example, the script function threw an error';

// The result as executeTool gives it: strings as they are, objects as JSON,
// anything else as String() gives it, as Chromium gives them (148's testing
// API and 156's document.modelContext alike). A form call that navigated
// gives null (the draft: "null if the execution navigated the document").
function resultText({ value, text }, navigated) {
  if (navigated) return null;
  if (typeof value === 'string') return value === '' ? 'Operation succeeded' : value;
  if (value !== null && typeof value === 'object') return text;
  if (typeof value === 'function') return 'undefined';
  return toString(value);
}

// Runs a tool for the page with `input` (an object) and the caller's signal,
// if any. The tool's `execute(input, {signal})` gets a signal of its own run,
// which aborts when the caller's does: the call then rejects with the
// signal's reason, and `toolcancel` fires. An already-aborted signal rejects
// at once, and nothing runs. As Chromium 156 runs it, `execute` runs in a
// later task, and what it throws is the caller's failure alone. The input
// is not checked against the tool's inputSchema, as Chromium and the merged
// draft check none (docs/classes.md, "What a page may register").
// `bare`: as Chromium 148's navigator.modelContextTesting runs it, the tool
// gets `execute(input)` alone, at once, and what it throws is also reported
// as the page's uncaught error.
export function executeForPage(entry, input, signal, bare = false) {
  if (signal !== undefined && signal !== null && signalAborted(signal)) return rejected(signalReason(signal));
  const run = new AbortControllerCtor();
  return new PromiseCtor((resolve, reject) => {
    let settled = false;
    if (signal !== undefined && signal !== null) {
      // As Chromium 156 cancels: in a task queued after the one that runs
      // `execute` (which has run by then, even when the caller aborts in
      // the task that called), the call rejects with the caller's reason;
      // in a later one, the tool's own signal aborts (an AbortError,
      // whatever the caller's reason), after what the page chained on the
      // rejection, then `toolcancel` fires. A form call fires its own
      // (form-calls.js), or the browser does.
      listen(signal, 'abort', () => queueTask(() => {
        if (settled) return;
        settled = true;
        reject(signalReason(signal));
        queueTask(() => {
          abortController(run);
          if (entry.source !== 'declarative') fireToolEvent('toolcancel', entry.snapshot.name);
        }, true);
      }), { once: true });
    }
    const failed = (error) => {
      if (entry.source === 'declarative') return error;
      if (bare) reportErrorFn(error);
      return unknownError(INVOCATION_FAILED);
    };
    const begin = () => {
      if (settled) return;
      // The page's execute runs now, before toolactivated, as in Chromium; a
      // form's fills its controls first (form-calls.js).
      const running = runTool(entry, input, bare ? null : controllerSignal(run));
      if (entry.source !== 'declarative') fireToolEvent('toolactivated', entry.snapshot.name);
      promiseThen(running, (result) => {
        if (settled) return;
        settled = true;
        let value;
        try {
          value = servable(result);
        } catch (error) {
          reject(failed(error));
          return;
        }
        resolve(resultText({ value, text: result.text }, result.navigated === true));
      }, (error) => {
        if (settled) return;
        settled = true;
        reject(failed(error));
      });
    };
    if (bare) begin();
    else queueTask(begin);
  });
}

// Runs a tool with input given as JSON text (navigator.modelContextTesting,
// `bare`, and page polyfills that pass text to document.modelContext.executeTool).
export function runForTesting(entry, inputJson, signal, bare = false) {
  let input;
  try {
    input = parse(inputJson);
  } catch {
    input = null;
  }
  if (input === null || typeof input !== 'object') {
    const failed = () => {
      fireToolEvent('toolactivated', entry.snapshot.name);
      return unknownError('Failed to parse input arguments');
    };
    // At once, as 148's testing API; else in a later task, as 156's executeTool.
    if (bare) return rejected(failed());
    return new PromiseCtor((resolve, reject) => queueTask(() => reject(failed())));
  }
  return executeForPage(entry, input, signal, bare);
}
