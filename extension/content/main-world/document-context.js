// document.modelContext: the current WebMCP draft (promises, getTools,
// executeTool). The class only; start.js makes the object, install.js the
// accessor.
//
// Imports: primordials.js, dom.js, events.js, declaration.js, registry.js,
// frames.js, execute-tool.js.

import {
  arraySort, EventTargetCtor, PromiseCtor, rejected, resolved, toString, TypeErrorCtor, win,
} from './primordials.js';
import {
  isSignal, notAllowed, signalAborted, signalReason, toolsAllowed,
} from './dom.js';
import { defineEventHandler, queueTask } from './events.js';
import {
  exposedOriginsOf, positionalTool, read, readOptions, snapshotSkill, snapshotTool,
} from './declaration.js';
import { add, findTool, has, sourceOf, toolNamed } from './registry.js';
import { isTreeWindow, treeTools } from './frames.js';
import { executeForPage, runForTesting, unknownError } from './execute-tool.js';

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
      // Kept with the tool; same-origin documents see it whatever it says,
      // and cross-origin ones are out of reach (frames.js).
      taken.exposedOrigins = exposedOriginsOf(taken.exposedTo);
      add(sourceOf(taken.snapshot.path), taken, signal);
      // The spec resolves after toolchange was queued.
      return new PromiseCtor((resolve) => queueTask(() => resolve(undefined)));
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
  getTools() {
    if (!toolsAllowed) return rejected(notAllowed());
    const list = arraySort(treeTools(), (x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
    return new PromiseCtor((resolve) => queueTask(() => resolve(list)));
  }

  // executeTool(registeredTool, inputObject = {}, {signal}) -> Promise of the
  // result as text (resultText, execute-tool.js), or null when a form's
  // submission navigated. The input may also be JSON text, as page
  // polyfills (@mcp-b) pass it.
  executeTool(tool, inputObject = {}, options = undefined) {
    if (!toolsAllowed) return rejected(notAllowed());
    const name = read(tool ?? {}, 'name');
    const signal = options === undefined || options === null ? undefined : read(options, 'signal');
    if (signal?.error) return rejected(signal.error);
    if (signal !== undefined && signal.value !== undefined && !isSignal(signal.value)) {
      return rejected(new TypeErrorCtor("Failed to execute 'executeTool' on 'ModelContext': Failed to read the 'signal' property from 'ExecuteToolOptions': Failed to convert value to 'AbortSignal'."));
    }
    // A tool of another same-origin document runs there, as the draft runs it.
    const where = read(tool ?? {}, 'window');
    if (!where.error && where.value !== undefined && where.value !== win && isTreeWindow(where.value)) {
      return where.value.document.modelContext.executeTool(tool, inputObject, options);
    }
    const entry = name.error ? null : findTool(toString(name.value));
    if (!entry) return rejected(unknownError(`Tool not found: ${name.error ? '' : toString(name.value)}`));
    if (typeof inputObject === 'string') return runForTesting(entry, inputObject, signal?.value);
    if (inputObject === null || typeof inputObject !== 'object') {
      return rejected(new TypeErrorCtor("Failed to execute 'executeTool' on 'ModelContext': invalid input object: value is not an object"));
    }
    return executeForPage(entry, inputObject, signal?.value);
  }
}
defineEventHandler(ModelContext.prototype, 'toolchange');
defineEventHandler(ModelContext.prototype, 'toolactivated');
defineEventHandler(ModelContext.prototype, 'toolcancel');
