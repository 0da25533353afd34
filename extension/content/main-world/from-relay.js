// What the relay hands this frame (fromRelay, which index.js connects with):
// the answers to its reports, the replies to native calls, and agents'
// calls, run here (runForAgent).
//
// Imports: primordials.js, json.js, text.js, dom.js, channel.js, native.js,
// events.js, outcome.js, registry.js, start.js, native-forms.js, watch.js,
// cross-origin.js, exposed-frames.js.

import {
  apply, isArray, MapCtor, mapDelete, mapGet, mapHas, mapSet, parse, promiseThen, setPrototypeOf, toString,
} from './primordials.js';
import { jsonText } from './json.js';
import { errorText } from './text.js';
import { AbortControllerCtor, abortController, controllerSignal } from './dom.js';
import { send, waiting } from './channel.js';
import { nativeCalls, nativeReply, nativeValues, wrapsDocumentContext } from './native.js';
import { isPlain, outcome, settled } from './outcome.js';
import { entries, keyOf } from './registry.js';
import { fireToolEvent } from './events.js';
import { start, started } from './start.js';
import { releaseForm } from './native-forms.js';
import { exposedAnswer } from './cross-origin.js';
import { exposedChanged, exposedRunAnswer, exposedToolsAnswer } from './exposed-frames.js';
import { startWatching, stopWatching } from './watch.js';

// The relay's answers, and the calls it hands on, as JSON text on the
// channel (channel.js). Heard from the start (connected at document_start):
// a call can come for a tool this frame never registered, and must get its
// answer at once, not at the call's timeout.
export function fromRelay(text) {
  if (typeof text !== 'string') return;
  let message;
  try {
    message = parse(text);
  } catch {
    return;
  }
  // Its members read as its own: none through a getter the page put on
  // Object.prototype (a native reply's missing `failed`, a call's `watch`).
  if (message === null || typeof message !== 'object') return;
  setPrototypeOf(message, null);
  if (message?.type === 'call') {
    // Unanswered if Toolgate could not start here: the worker's timeout answers.
    if (start()) runForAgent(message);
    return;
  }
  if (message?.type === 'call_abandoned') {
    abandoned(message.call_id);
    return;
  }
  if (message?.type === 'native_result') {
    nativeReply(message);
    return;
  }
  if (message?.type === 'exposed_result') {
    exposedAnswer(message);
    return;
  }
  // Other origins' frames' tools, where the worker reaches them (exposed-frames.js).
  if (message?.type === 'exposed_tools_result') {
    exposedToolsAnswer(message);
    return;
  }
  if (message?.type === 'exposed_run_result') {
    exposedRunAnswer(message);
    return;
  }
  if (message?.type === 'exposed_changed') {
    // A document that never used WebMCP has no listener to tell; wrapping
    // the browser's own object, the browser tells it (cross-origin.js).
    if (started() && !wrapsDocumentContext()) exposedChanged();
    return;
  }
  if (message?.type !== 'results' || !mapHas(waiting, message.batch)) return;
  const callbacks = mapGet(waiting, message.batch);
  mapDelete(waiting, message.batch);
  const results = isArray(message.results) ? message.results : [];
  for (let i = 0; i < callbacks.length; i++) {
    const result = i < results.length ? results[i] : undefined;
    if (result !== null && typeof result === 'object') setPrototypeOf(result, null);
    if (callbacks[i]) callbacks[i](result ?? { error: message.error ?? 'no answer from Toolgate' });
  }
}

// The agents' calls running in this frame: the relay's call id -> the
// controller of the signal the tool was given, and the record of its
// writes, if watched.
const running = new MapCtor();

// The relay gave up on a call (the tool did not settle within the call
// timeout): its tool's signal is aborted, so the page can stop it, and its
// record of writes is closed, so that later calls' writes are not told as
// "cannot tell" for the document's life (docs/classes.md, "Two calls at once").
function abandoned(callId) {
  const call = mapGet(running, callId);
  if (!call) return;
  mapDelete(running, callId);
  if (call.seen) stopWatching(call.seen);
  try {
    abortController(call.controller);
  } catch {
    // A page's abort listener threw: reported by the browser as the page's own error.
  }
}

// Runs a tool an agent called through Toolgate, and answers the relay with
// the result's JSON text (written once, handed on as text to the worker's
// core), or the reason it failed.
function runForAgent({ call_id: callId, source, name, arguments: input, native_call: nativeCall, watch }) {
  // A watched call's storage writes go with its answer (watch.js).
  const seen = watch === true ? startWatching() : null;
  const controller = new AbortControllerCtor();
  mapSet(running, callId, { controller, seen });
  const answer = (result) => {
    if (!mapHas(running, callId)) return; // given up on (abandoned, below)
    mapDelete(running, callId);
    send(jsonText({
      type: 'call_result', call_id: callId, ...result, ...(seen ? { seen: stopWatching(seen) } : {}),
    }));
  };
  // A native call's own value goes back to the browser, not its JSON.
  const keep = mapHas(nativeCalls, nativeCall)
    ? (outcome) => { mapSet(nativeValues, nativeCall, outcome); return outcome; }
    : (outcome) => outcome;
  const held = mapGet(nativeCalls, nativeCall);
  if (held?.form) {
    try {
      releaseForm(held);
      answer({ ok: true, json: 'null' });
    } catch (error) {
      answer({ ok: false, error: `${name}'s form could not be submitted: ${errorText(error)}` });
    }
    return;
  }
  const entry = mapGet(entries, keyOf(toString(source), 'tool', toString(name)));
  if (!entry) {
    answer({ ok: false, error: `${name} is no longer registered on this page` });
    return;
  }
  const finish = ({ text, unserialisable }) => {
    if (unserialisable) answer({ ok: false, error: `${name} returned a result that cannot be serialised (${errorText(unserialisable)})` });
    else answer({ ok: true, json: text === undefined ? 'null' : text });
  };
  const fail = (error) => answer({ ok: false, error: `${name} threw ${errorText(error)}` });
  // The page's execute runs now, then toolactivated fires, as for executeTool.
  // A form tool fires its own, once its controls are filled (form-calls.js).
  let value;
  let threw = false;
  try {
    value = apply(entry.execute, undefined, [input ?? {}, { signal: controllerSignal(controller) }]);
  } catch (error) {
    threw = true;
    value = error;
  }
  if (entry.source !== 'declarative') fireToolEvent('toolactivated', entry.snapshot.name);
  if (threw) fail(value);
  // A plain value is the result as it is: answered at once, not a turn
  // later (README, figure 4).
  else if (isPlain(value)) finish(keep(outcome(value)));
  else promiseThen(settled(value), (result) => finish(keep(result)), fail);
}
