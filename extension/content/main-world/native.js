// The browser's own WebMCP, if it has one: finding it (its accessors are taken
// as this module is evaluated, before install.js replaces them), the copy of
// each tool Toolgate registers with it (mirror), whose `execute` is gated
// (gatedExecute), and the worker's replies to the calls that come through it
// (nativeReply). Form tools called through it are held in native-forms.js.
//
// Imports: primordials.js, json.js, text.js, dom.js, events.js, channel.js, outcome.js.

import {
  apply, doc, DocumentProto, ErrorCtor, getOwnPropertyDescriptor, getPrototypeOf, listen,
  MapCtor, mapDelete, mapGet, mapHas, mapSet, parse, PromiseCtor, promiseThen, rejected, setOwn, setPrototypeOf,
  toString, TypeErrorCtor, warn, win,
} from './primordials.js';
import { errorText } from './text.js';
import { foreignJsonText } from './json.js';
import { abortController, AbortControllerCtor, controllerSignal, DOMExceptionCtor } from './dom.js';
import { fireToolEvent } from './events.js';
import { send } from './channel.js';
import { handedOn } from './outcome.js';

// Chromium with --enable-features=WebMCP has `navigator.modelContext` (M148);
// the draft puts it on `document`. Either is wrapped the same way.

// The browser's own accessors, taken before Toolgate's replace them (see
// install.js); the objects they give are read at start().
export const NavigatorProto = Navigator.prototype;
const nativeOnDocument = getOwnPropertyDescriptor(DocumentProto, 'modelContext');
const nativeOnNavigator = getOwnPropertyDescriptor(NavigatorProto, 'modelContext');
function nativeContextOf(desc, target) {
  if (!desc || typeof desc.get !== 'function') return null;
  try {
    const context = apply(desc.get, target, []);
    const proto = context && getPrototypeOf(context);
    const register = proto?.registerTool;
    if (typeof register !== 'function') return null;
    // 156's document.modelContext runs form tools itself (getTools, executeTool).
    const runsForms = typeof proto.getTools === 'function' && typeof proto.executeTool === 'function';
    return { context, register, getTools: runsForms ? proto.getTools : null, executeTool: runsForms ? proto.executeTool : null };
  } catch {
    return null;
  }
}
let native = null;

// Finds the browser's own API, once, at start().
export function detectNative() {
  native = nativeContextOf(nativeOnDocument, doc) ?? nativeContextOf(nativeOnNavigator, win.navigator);
}

// The browser's own object where it runs form tools (156), else null.
export const nativeFormContext = () => (native?.executeTool ? native.context : null);
// Whether Toolgate's document.modelContext wraps the browser's own (156).
export const wrapsDocumentContext = () => nativeFormContext() !== null;

// The browser's own getTools(options) and executeTool, and its `toolchange`,
// where Toolgate's document.modelContext wraps it (cross-origin.js).
export const nativeListTools = (options) => apply(native.getTools, native.context, [options]);
export const nativeExecuteTool = (tool, input, options) => apply(native.executeTool, native.context, [tool, input, options]);
export const onNativeToolchange = (listener) => listen(native.context, 'toolchange', listener);

// Asks the browser's own registerTool whether it takes `exposedTo`, for
// origins only it can judge (secure-origins.js): it registers a tool of
// Toolgate's own with that list, and unregisters it once the browser
// answered. Settles with undefined, or rejects with the browser's own error
// (a SecurityError). The page's objects hear nothing of it: Toolgate's
// document.modelContext fires `toolchange` for other origins' tools alone,
// and lists none named so, in this frame or another (cross-origin.js).
let probes = 0;
export const PROBE_PREFIX = 'toolgate.exposedTo.probe.';
export function nativeExposedCheck(exposedTo) {
  const controller = new AbortControllerCtor();
  probes += 1;
  const probe = {
    __proto__: null,
    name: `${PROBE_PREFIX}${probes}`,
    description: 'Toolgate asks the browser whether it takes these origins.',
    execute: () => undefined,
  };
  const options = { __proto__: null, exposedTo, signal: controllerSignal(controller) };
  let done;
  try {
    done = apply(native.register, native.context, [probe, options]);
  } catch (error) {
    return rejected(error);
  }
  return promiseThen(done, () => abortController(controller), (error) => {
    abortController(controller);
    throw error;
  });
}

// Runs a form tool through the browser's own executeTool, where it has one:
// settles with the browser's answer (text, or null after a navigation);
// null when the browser runs no form tools.
export function nativeExecuteForm(name, input, signal) {
  if (!native?.executeTool) return null;
  return promiseThen(apply(native.getTools, native.context, []), (tools) => {
    let tool = null;
    for (const candidate of tools) if (candidate.name === name && candidate.window === win) tool = candidate;
    if (!tool) throw new DOMExceptionCtor(`Tool not found: ${name}`, 'UnknownError');
    return apply(native.executeTool, native.context, [tool, input, signal ? { signal } : {}]);
  });
}

// The `execute` of the copy Toolgate registers with the browser's own
// WebMCP. Whatever calls it comes from outside Toolgate: the browser's own
// agent, or an agent driving the browser through DevTools
// (`WebMCP.invokeTool`). So it runs nothing itself: it asks the worker,
// through the relay, as the chat "the browser's agent in this tab", and
// the worker decides as for any agent (ARCHITECTURE.md, "Who is gated").
// If the call may run, the worker runs it as it runs every agent's call
// (`runForAgent`, in from-relay.js), and the value the page's function gave
// is what the browser gets; if not, this throws the refusal, which the
// browser reports as the call's failure. A page calling its own tool (executeTool)
// never comes here. A page of another origin calling a tool this frame exposed
// to it (`exposedTo`) does, and the worker tells it apart by what that page
// said it was about to call (cross-origin.js, announceExposed): such a call
// runs here, as the browser called it (runAsPage; docs/agents.md, "Pages
// calling each other's tools").
let lastNativeCall = 0;
export const nativeCalls = new MapCtor(); // call number -> {resolve, reject, entry, input, options}, or a form's (native-forms.js)
export const nativeValues = new MapCtor(); // call number -> the page's result, once run
// The number of a new native call: a tool's (here) or a form's
// (holdAgentSubmit, in native-forms.js).
export function nextNativeCall() {
  return ++lastNativeCall;
}
export function gatedExecute(entry) {
  return function execute(input, options) {
    return new PromiseCtor((resolve, reject) => {
      const call = ++lastNativeCall;
      let detail;
      try {
        detail = foreignJsonText({ type: 'native_call', call, source: entry.source, name: entry.snapshot.name, arguments: input ?? {} });
      } catch (error) {
        reject(new TypeErrorCtor(`Toolgate could not read the call's input: ${errorText(error)}`));
        return;
      }
      mapSet(nativeCalls, call, { resolve, reject, entry, input, options });
      send(detail);
    });
  };
}

// The worker's reply to a native call: a JSON-RPC response, as an agent
// gets it; or, from the relay, why Toolgate could not decide it (`failed`).
export function nativeReply({ call, reply, failed }) {
  const waiting = mapGet(nativeCalls, call);
  if (!waiting) return;
  mapDelete(nativeCalls, call);
  const ran = mapHas(nativeValues, call);
  const value = mapGet(nativeValues, call);
  mapDelete(nativeValues, call);
  if (typeof failed === 'string') {
    waiting.reject(new ErrorCtor(`Toolgate could not decide this call: ${failed}`));
    return;
  }
  if (reply?.page_call === true && !waiting.form && !ran) {
    runAsPage(waiting);
    return;
  }
  const result = reply?.result;
  if (waiting.form) {
    // Allowed: the page's answer to the released submission is the call's.
    if (!(result && result.isError === false)) waiting.reject(refusalOf(reply));
    return;
  }
  if (result && result.isError === false) {
    if (ran) {
      try {
        waiting.resolve(handedOn(value));
      } catch (error) {
        waiting.reject(error);
      }
    } else {
      waiting.resolve(result.structuredContent ?? result.content?.[0]?.text);
    }
    return;
  }
  waiting.reject(refusalOf(reply));
}
// A native call the worker found to be a page's call of a tool this frame
// exposed to it: the page's function runs with what the browser gave it, and
// its value (or what it threw) is the browser's, as with no Toolgate; then
// toolactivated fires, as for an agent's call (from-relay.js, runForAgent).
function runAsPage({ resolve, reject, entry, input, options }) {
  let value;
  let threw = false;
  try {
    value = apply(entry.execute, undefined, [input, options]);
  } catch (error) {
    threw = true;
    value = error;
  }
  fireToolEvent('toolactivated', entry.snapshot.name);
  if (threw) reject(value);
  else resolve(value);
}

// Why a native call failed: Toolgate refused it, or it ran and failed.
function refusalOf(reply) {
  const why = toString(reply?.result?.content?.[0]?.text ?? reply?.error?.message ?? 'Toolgate gave no answer');
  const ran = reply?.result?._meta?.toolgate?.decision === 'run';
  return new ErrorCtor(ran ? why : `Toolgate refused this call: ${why}`);
}

// Annotations for the native copy: the class Toolgate decided, as the
// core gives its hints (Class::native_hints); Consequential's where none came.
// What the shim hands the browser has no prototype, so the browser reads no
// member of it through a getter the page put on Object.prototype.
function nativeAnnotations(result) {
  const given = result?.annotations;
  if (given && typeof given.readOnlyHint === 'boolean') {
    const copy = { __proto__: null, readOnlyHint: given.readOnlyHint };
    if (typeof given.consequentialHint === 'boolean') setOwn(copy, 'consequentialHint', given.consequentialHint);
    return copy;
  }
  return { __proto__: null, readOnlyHint: false, consequentialHint: true };
}

// The schema's objects and arrays without a prototype, as JSON.parse's
// reviver: the browser writes the schema as JSON, and a toJSON the page put on
// Object.prototype or Array.prototype would otherwise run on them.
function bare(key, value) {
  if (value !== null && typeof value === 'object') setPrototypeOf(value, null);
  return value;
}

// Registers Toolgate's copy of a tool with the browser's own API once the
// worker has classed it, so the browser's own agent sees the same class.
// Declarative tools are left to the browser, which registers forms itself.
export function mirror(entry, result) {
  if (!native || entry.removed || entry.snapshot.kind !== 'tool' || entry.source === 'declarative') return;
  entry.nativeController = new AbortControllerCtor();
  const copy = {
    __proto__: null,
    name: entry.snapshot.name,
    description: entry.snapshot.description,
    execute: entry.gated,
    annotations: nativeAnnotations(result),
  };
  if (entry.snapshot.title !== null) setOwn(copy, 'title', entry.snapshot.title);
  // The schema as the page gave it, even where that is not an object (a Date,
  // a toJSON that returns a string), which the native API refuses as a value.
  const schemaJson = entry.snapshot.input_schema;
  if (schemaJson !== null) setOwn(copy, 'inputSchema', { __proto__: null, toJSON: () => parse(schemaJson, bare) });
  const failed = (error) => warn(`Toolgate could not register ${copy.name} with the browser's WebMCP: ${errorText(error)}`);
  try {
    const options = { __proto__: null, signal: controllerSignal(entry.nativeController) };
    // Other origins' frames reach it through the browser (cross-origin.js).
    if (entry.exposedTo !== undefined && wrapsDocumentContext()) setOwn(options, 'exposedTo', entry.exposedTo);
    const done = apply(native.register, native.context, [copy, options]);
    if (done && typeof done.then === 'function') promiseThen(done, undefined, failed);
  } catch (error) {
    failed(error);
  }
}
