// navigator.modelContextTesting, as Chromium's (WebMCPTesting): listTools and
// executeTool. The class only; start.js makes the object.
//
// Imports: primordials.js, events.js, declaration.js, registry.js,
// execute-tool.js.

import { EventTargetCtor, rejected, TypeErrorCtor } from './primordials.js';
import { defineEventHandler } from './events.js';
import { toDOMString } from './declaration.js';
import { findTool, toolEntries } from './registry.js';
import { runForTesting, unknownError } from './execute-tool.js';

export class ModelContextTesting extends EventTargetCtor {
  // The frame's tools, sorted by name: {description, inputSchema (JSON text, '' if none), name}.
  listTools() {
    return toolEntries().map(({ snapshot }) => ({
      description: snapshot.description,
      inputSchema: snapshot.input_schema ?? '',
      name: snapshot.name,
    }));
  }

  // executeTool(name, inputArgsJson) -> Promise of the result as text.
  executeTool(...args) {
    if (args.length < 2) {
      return rejected(new TypeErrorCtor(`Failed to execute 'executeTool' on 'ModelContextTesting': 2 arguments required, but only ${args.length} present.`));
    }
    const name = toDOMString(args[0]);
    const entry = findTool(name);
    if (!entry) return rejected(unknownError(`Tool not found: ${name}`));
    return runForTesting(entry, toDOMString(args[1]), undefined, true);
  }
}
defineEventHandler(ModelContextTesting.prototype, 'toolchange');
