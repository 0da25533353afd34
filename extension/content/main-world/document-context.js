// document.modelContext: the current WebMCP draft (promises, getTools,
// executeTool). The class only; start.js makes the object, install.js the
// accessor.
//
// Imports: primordials.js, dom.js, events.js, declaration.js, secure-origins.js,
// registry.js, frames.js, execute-tool.js, native.js, cross-origin.js,
// exposed-frames.js.

import {
  arrayPush, arraySort, EventTargetCtor, parse, PromiseCtor, promiseThen, rejected, resolved, setOwn, stringify,
  TypeErrorCtor, win,
} from './primordials.js';
import {
  isSignal, notAllowed, signalAborted, signalReason, toolsAllowed,
} from './dom.js';
import { defineEventHandler, queueTask } from './events.js';
import {
  positionalTool, read, readOptions, snapshotSkill, snapshotTool, toDOMString,
} from './declaration.js';
import { exposedOriginsOf, insecureOrigins } from './secure-origins.js';
import { add, findTool, has, sourceOf, toolNamed } from './registry.js';
import { isTreeWindow, treeTools } from './frames.js';
import { runForTesting, unknownError } from './execute-tool.js';
import { nativeExecuteTool, nativeExposedCheck, nativeListTools, wrapsDocumentContext } from './native.js';
import { announceExposed, otherOrigins } from './cross-origin.js';
import { exposedTools, originsOf, runExposed } from './exposed-frames.js';

const byName = (x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0);

export class ModelContext extends EventTargetCtor {
  // registerTool(tool, {signal, exposedTo}) -> Promise<undefined>; errors reject.
  // Also takes the positional form (name, description, inputSchema, execute, annotations?).
  registerTool(tool, options) {
    if (!toolsAllowed) return rejected(notAllowed());
    try {
      const positional = typeof tool === 'string';
      const taken = positional
        ? positionalTool(arguments, 'document_positional', toolNamed)
        : snapshotTool(tool, 'document_object', toolNamed, options);
      const { signal } = taken;
      if (signal !== undefined && signalAborted(signal)) return rejected(signalReason(signal));
      // Same-origin documents see the tool whatever `exposedTo` says; other
      // origins' frames reach it through the browser's own WebMCP (native.js).
      const { origins, unsure } = exposedOriginsOf(taken.exposedTo);
      // The worker keeps them, to tell a page's call of the tool from an
      // agent's (cross-origin.js, announceExposed).
      if (origins.length > 0) setOwn(taken.snapshot, 'exposed_to', origins);
      if (!unsure) return registered(taken, signal);
      // An origin only the browser can judge: it answers, where it has a WebMCP.
      if (!wrapsDocumentContext()) return rejected(insecureOrigins());
      return promiseThen(nativeExposedCheck(taken.exposedTo), () => {
        if (signal !== undefined && signalAborted(signal)) throw signalReason(signal);
        return registered(taken, signal);
      });
    } catch (error) {
      return rejected(error);
    }
  }

  // registerSkill({name, description, instructions}, {signal}) -> Promise<undefined>.
  registerSkill(skill, options) {
    if (!toolsAllowed) return rejected(notAllowed());
    try {
      const taken = snapshotSkill(skill, 'document_object', has('document', 'skill'));
      const { signal } = readOptions(options, 'registerSkill');
      if (signal !== undefined && signalAborted(signal)) return rejected(signalReason(signal));
      add('document', taken, signal);
      return resolved(undefined);
    } catch (error) {
      return rejected(error);
    }
  }

  // getTools() -> Promise of the tools of every same-origin document of the
  // tab's frame tree (frames.js), sorted by name, as RegisteredTool.
  // Wrapping the browser's own (156), `options.fromOrigins` adds the tools
  // other origins' frames expose to this one, as the browser lists them
  // (cross-origin.js).
  // Where the browser has no WebMCP to ask, the worker lists what other
  // origins' frames expose to this one (exposed-frames.js).
  getTools(options = undefined) {
    if (!toolsAllowed) return rejected(notAllowed());
    const list = treeTools();
    const fromOrigins = options === undefined || options === null || wrapsDocumentContext()
      ? { value: undefined } : read(options, 'fromOrigins');
    if (fromOrigins.error) return rejected(fromOrigins.error);
    const origins = originsOf(fromOrigins.value);
    if (options === undefined || options === null || (!wrapsDocumentContext() && origins.length === 0)) {
      const sorted = arraySort(list, byName);
      return new PromiseCtor((resolve) => queueTask(() => resolve(sorted)));
    }
    if (!wrapsDocumentContext()) {
      return promiseThen(exposedTools(origins), (tools) => {
        for (let i = 0; i < tools.length; i++) arrayPush(list, tools[i]);
        const sorted = arraySort(list, byName);
        return new PromiseCtor((resolve) => queueTask(() => resolve(sorted)));
      });
    }
    let listed;
    try {
      listed = nativeListTools(options);
    } catch (error) {
      return rejected(error);
    }
    return promiseThen(listed, (tools) => {
      for (const tool of otherOrigins(tools)) arrayPush(list, tool);
      return arraySort(list, byName);
    });
  }

  // executeTool(registeredTool, inputObject = {}, {signal}) -> Promise of the
  // result as text (resultText, execute-tool.js), or null when a form's
  // submission navigated. As Chromium 156: the tool is a RegisteredTool
  // dictionary, found by its name, window and origin; the input is an
  // object (arrays too), and the tool gets it as its JSON reads back.
  // Where Toolgate's is the only document.modelContext, the input may also
  // be the JSON text of an object, as page polyfills (@mcp-b) pass it and
  // their own executeTool takes it (ARCHITECTURE.md, "Where the native API
  // and the draft differ"); other text is a TypeError, as in 156.
  executeTool(tool, inputObject = {}, options = undefined) {
    if (!toolsAllowed) return rejected(notAllowed());
    const dictionary = registeredTool(tool);
    if (dictionary.error) return rejected(dictionary.error);
    const { name, origin, window: where } = dictionary;
    const signal = options === undefined || options === null ? undefined : read(options, 'signal');
    if (signal?.error) return rejected(signal.error);
    if (signal !== undefined && signal.value !== undefined && !isSignal(signal.value)) {
      return rejected(new TypeErrorCtor(`${EXECUTE}Failed to read the 'signal' property from 'ExecuteToolOptions': Failed to convert value to 'AbortSignal'.`));
    }
    // A tool of another same-origin document runs there, as the draft runs it.
    if (where !== win && isTreeWindow(where)) {
      return where.document.modelContext.executeTool(tool, inputObject, options);
    }
    // Another origin's frame's tool, exposed to this one, runs there through
    // the browser's own WebMCP, once the worker knows this page is the caller
    // (cross-origin.js).
    if (origin !== win.origin && where !== win && wrapsDocumentContext()) {
      return promiseThen(announceExposed(origin, name, inputObject), () => nativeExecuteTool(tool, inputObject, options));
    }
    // Without it, through the worker, as the page's call too (exposed-frames.js).
    if (origin !== win.origin && where !== win) {
      const input = inputText(inputObject);
      if (input.error) return rejected(input.error);
      return runExposed(origin, name, where, input.text, signal?.value);
    }
    // Another window's or origin's tool is none of this document's.
    if (where !== win || origin !== win.origin) return rejected(unknownError(UNKNOWN_TRANSIENT));
    const entry = findTool(name);
    if (!entry) return rejected(unknownError(`Tool not found: ${name}`));
    if (typeof inputObject === 'string' && !wrapsDocumentContext() && isObjectText(inputObject)) {
      return runForTesting(entry, inputObject, signal?.value);
    }
    const input = inputText(inputObject);
    if (input.error) return rejected(input.error);
    return runForTesting(entry, input.text, signal?.value);
  }
}

// Adds a tool registerTool took; the draft resolves after toolchange was queued.
function registered(taken, signal) {
  add(sourceOf(taken.snapshot.path), taken, signal);
  return new PromiseCtor((resolve) => queueTask(() => resolve(undefined), true));
}

const EXECUTE = "Failed to execute 'executeTool' on 'ModelContext': ";
// Chromium 156's words for a RegisteredTool of another window or origin.
const UNKNOWN_TRANSIENT = 'The operation failed for an unknown transient reason (e.g. out of memory).';

// executeTool's first argument as WebIDL reads a RegisteredTool: its
// required members in the dictionary's order, each a string but `window`;
// `{ name, origin, window }`, or `{ error }` (a TypeError, or what a
// getter threw), as Chromium 156 rejects with.
function registeredTool(tool) {
  if (tool === null || (typeof tool !== 'object' && typeof tool !== 'function' && tool !== undefined)) {
    return { error: new TypeErrorCtor(`${EXECUTE}The provided value is not of type 'RegisteredTool'.`) };
  }
  const members = {};
  for (const member of ['description', 'name', 'origin', 'window']) {
    const { value, error } = tool === undefined ? { value: undefined } : read(tool, member);
    if (error) return { error };
    if (value === undefined) {
      return { error: new TypeErrorCtor(`${EXECUTE}Failed to read the '${member}' property from 'RegisteredTool': Required member is undefined.`) };
    }
    try {
      members[member] = member === 'window' ? value : toDOMString(value);
    } catch (thrown) {
      return { error: thrown };
    }
  }
  return members;
}

// Whether text is the JSON of an object (arrays too), as the page polyfills
// Toolgate's stands in for take their input: any other text, as any other
// primitive, is the TypeError Chromium 156 rejects it with (inputText).
function isObjectText(text) {
  try {
    const value = parse(text);
    return value !== null && typeof value === 'object';
  } catch {
    return false;
  }
}

// The input as JSON text, as Chromium 156 writes it before the tool gets it
// back: `{ text }`, or `{ error }` for what is not an object or has no JSON.
// Text that is not an object's (a toJSON that gives a string) fails later,
// as the browser fails it ("Failed to parse input arguments").
function inputText(input) {
  if (input === null || (typeof input !== 'object' && typeof input !== 'function')) {
    return { error: new TypeErrorCtor(`${EXECUTE}invalid input object: value is not an object`) };
  }
  let text;
  try {
    text = stringify(input);
  } catch (error) {
    return { error: new TypeErrorCtor(`${EXECUTE}${error?.message ?? error}`) };
  }
  if (text === undefined) return { error: new TypeErrorCtor(`${EXECUTE}invalid input object: toJSON() returns undefined`) };
  return { text };
}
defineEventHandler(ModelContext.prototype, 'toolchange');
defineEventHandler(ModelContext.prototype, 'toolactivated');
defineEventHandler(ModelContext.prototype, 'toolcancel');
