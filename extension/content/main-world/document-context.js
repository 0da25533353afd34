// document.modelContext: the current WebMCP draft (promises, getTools,
// executeTool). The class only; start.js makes the object, install.js the
// accessor.
//
// Imports: primordials.js, dom.js, events.js, declaration.js, registry.js,
// execute-tool.js.

import {
  arrayPush, EventTargetCtor, parse, PromiseCtor, rejected, resolved, toString, TypeErrorCtor, win,
} from './primordials.js';
import { isSignal, signalAborted, signalReason } from './dom.js';
import { defineEventHandler, queueTask } from './events.js';
import { positionalTool, read, readOptions, snapshotSkill, snapshotTool } from './declaration.js';
import { add, findTool, has, sourceOf, toolEntries, toolNamed } from './registry.js';
import { executeForPage, runForTesting, unknownError } from './execute-tool.js';

export class ModelContext extends EventTargetCtor {
  // registerTool(tool, {signal, exposedTo}) -> Promise<undefined>; errors reject.
  // Also takes the positional form (name, description, inputSchema, execute, annotations?).
  registerTool(tool, options) {
    try {
      const positional = typeof tool === 'string';
      const taken = positional
        ? positionalTool(arguments, 'document_positional', toolNamed)
        : snapshotTool(tool, 'document_object', toolNamed, options);
      const { signal } = taken;
      if (signal !== undefined && signalAborted(signal)) return rejected(signalReason(signal));
      add(sourceOf(taken.snapshot.path), taken, signal);
      // The spec resolves after toolchange was queued.
      return new PromiseCtor((resolve) => queueTask(() => resolve(undefined)));
    } catch (error) {
      return rejected(error);
    }
  }

  // registerSkill({name, description, instructions}, {signal}) -> Promise<undefined>.
  registerSkill(skill, options) {
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

  // getTools() -> Promise of this frame's tools, sorted by name, as RegisteredTool.
  getTools() {
    const list = [];
    for (const entry of toolEntries()) {
      const { snapshot } = entry;
      const item = {
        name: snapshot.name,
        title: snapshot.title ?? '',
        description: snapshot.description,
        inputSchema: snapshot.input_schema === null ? undefined : parse(snapshot.input_schema),
        window: win,
        origin: win.origin,
      };
      if (entry.idl) item.annotations = { ...entry.idl };
      arrayPush(list, item);
    }
    return new PromiseCtor((resolve) => queueTask(() => resolve(list)));
  }

  // executeTool(registeredTool, inputObject = {}, {signal}) -> Promise of the
  // result as text (resultText, execute-tool.js), or null when a form's
  // submission navigated. The input may also be JSON text, as page
  // polyfills (@mcp-b) pass it.
  executeTool(tool, inputObject = {}, options = undefined) {
    const name = read(tool ?? {}, 'name');
    const signal = options === undefined || options === null ? undefined : read(options, 'signal');
    if (signal?.error) return rejected(signal.error);
    if (signal !== undefined && signal.value !== undefined && !isSignal(signal.value)) {
      return rejected(new TypeErrorCtor("Failed to execute 'executeTool' on 'ModelContext': Failed to read the 'signal' property from 'ExecuteToolOptions': Failed to convert value to 'AbortSignal'."));
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
