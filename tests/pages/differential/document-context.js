// document.modelContext, Toolgate's draft-shaped object, on every side:
// registerTool's refusals (a duplicate, an empty name or description, a
// cyclic schema), annotations read as a dictionary, and getTools()'s entries.
'use strict';

(() => {
  const { errorOf, cyclic, tool } = window.diff;

  async function settle(call) {
    let promise;
    try {
      promise = call();
    } catch (error) {
      return { syncThrew: true, ...errorOf(error) };
    }
    const isPromise = promise instanceof Promise;
    return promise.then(
      (value) => ({ syncThrew: false, isPromise, resolved: value === undefined ? '<undefined>' : value }),
      (error) => ({ syncThrew: false, isPromise, rejected: errorOf(error) }),
    );
  }

  async function documentContext() {
    const context = document.modelContext;
    const out = { present: context !== undefined && context !== null };
    out.first = await settle(() => context.registerTool(tool('dm.a')));
    out.cases = {
      'dup.plain': await settle(() => context.registerTool(tool('dm.a', { description: 'again' }))),
      'name.empty': await settle(() => context.registerTool(tool(''))),
      'desc.empty': await settle(() => context.registerTool(tool('dm.empty', { description: '' }))),
      'schema.cyclic': await settle(() => context.registerTool(tool('dm.cyclic', { inputSchema: cyclic() }))),
    };
    const schema = { type: 'object', properties: { q: { type: 'string', description: 'query' } }, required: ['q'] };
    await context.registerTool(tool('dm.c', { title: 'Pretty C', inputSchema: schema }));
    await context.registerTool(tool('dm.B'));
    await context.registerTool(tool('Dm.z', { inputSchema: {} }));
    await context.registerTool(tool('dm.b', { title: '' }));
    // Annotations read as a dictionary: through a Proxy, a prototype, a function; any value as a boolean.
    const ANNOTATIONS = {
      'dm.ann.proxy': new Proxy({ readOnlyHint: true }, {}),
      'dm.ann.inherited': Object.create({ readOnlyHint: true, debugging: 1 }),
      'dm.ann.function': Object.assign(() => 1, { untrustedContentHint: true }),
      'dm.ann.values': { readOnlyHint: 'no', consequentialHint: 0, untrustedContentHint: {} },
    };
    const gone = new AbortController();
    for (const [name, annotations] of Object.entries(ANNOTATIONS)) {
      await context.registerTool(tool(name, { annotations }), { signal: gone.signal });
    }
    out.annotations = Object.fromEntries((await context.getTools())
      .filter((entry) => entry.name.startsWith('dm.ann.'))
      .map((entry) => [entry.name, JSON.stringify(entry.annotations)]));
    gone.abort();
    const listed = await settle(() => context.getTools());
    const tools = await context.getTools();
    out.getTools = {
      isPromise: listed.isPromise,
      syncThrew: listed.syncThrew,
      names: tools.map((entry) => entry.name),
      entries: tools.map((entry) => ({
        name: entry.name,
        title: entry.title,
        description: entry.description,
        hasInputSchema: 'inputSchema' in entry,
        inputSchemaType: typeof entry.inputSchema,
        inputSchema: entry.inputSchema === undefined ? '<undefined>' : entry.inputSchema,
        schemaIsCopy: entry.inputSchema !== schema,
        windowIsWindow: entry.window === window,
        origin: entry.origin,
      })),
      schemaGiven: schema,
      origin: location.origin,
    };
    return out;
  }

  window.diff.groups.document = documentContext;
})();
