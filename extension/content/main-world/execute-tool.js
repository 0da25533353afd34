// Running a tool, as WebMCP's executeTool does: for the page's own
// executeTool (document.modelContext, navigator.modelContextTesting), and the
// `toolactivated` event every run fires. An agent's call through Toolgate runs
// in from-relay.js (runForAgent).
//
// Imports: primordials.js, dom.js, outcome.js.

import {
  defineProperty, dispatch, parse, promiseThen, rejected, reportErrorFn, toString, win,
} from './primordials.js';
import { DOMExceptionCtor, EventCtor } from './dom.js';
import { runTool, servable } from './outcome.js';

export const unknownError = (message) => new DOMExceptionCtor(message, 'UnknownError');
const INVOCATION_FAILED = 'Tool was executed but the invocation failed. For example, the script function threw an error';

// Runs a tool with input given as JSON text. The result is text: strings as
// they are, objects as JSON, anything else as String() gives it, as
// Chromium's testing API returns them.
export function runForTesting(entry, inputJson) {
  let input;
  try {
    input = parse(inputJson);
  } catch {
    input = null;
  }
  if (input === null || typeof input !== 'object') {
    dispatch(win, toolActivated(entry.snapshot.name));
    return rejected(unknownError('Failed to parse input arguments'));
  }
  // The page's execute runs now, before toolactivated, as in Chromium.
  const running = promiseThen(runTool(entry, input), (result) => ({ text: result.text, value: servable(result) }));
  dispatch(win, toolActivated(entry.snapshot.name));
  return promiseThen(running, ({ value, text }) => {
    if (typeof value === 'string') return value === '' ? 'Operation succeeded' : value;
    if (value !== null && typeof value === 'object') return text;
    if (typeof value === 'function') return 'undefined';
    return toString(value);
  }, (error) => { reportErrorFn(error); throw unknownError(INVOCATION_FAILED); });
}

// `toolactivated`: a WebMCPEvent where the browser has one, else an Event with `toolName`.
export function toolActivated(toolName) {
  if (typeof win.WebMCPEvent === 'function') return new win.WebMCPEvent('toolactivated', { toolName });
  const event = new EventCtor('toolactivated');
  defineProperty(event, 'toolName', { value: toolName, enumerable: true });
  return event;
}
