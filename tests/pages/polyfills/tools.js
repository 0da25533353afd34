// The tools a page registers through whatever `document.modelContext` it ends
// up with (the polyfill's, Toolgate's, or @mcp-b/global's server), written
// against @mcp-b/webmcp-polyfill 5.1.0's API, as a page shipping it would be.
//
// window.polyPage.registered: a promise of 'ok' or the rejection's text.
// window.polyPage.abortDraft(): aborts the signal draft_note registered with.
// window.polyPage.callTools(): calls double_number through the page's own API.
(() => {
  const context = document.modelContext;
  const draft = new AbortController();
  const { text, callTools } = window.pageKit;

  const registered = Promise.all([
    context.registerTool({
      name: 'read_notes',
      description: 'Lists the titles of every note.',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true },
      execute: () => text('groceries, taxes'),
    }),
    context.registerTool({
      name: 'add_note',
      description: 'Adds a note.',
      inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
      execute: ({ title }) => text(`added ${title}`),
    }),
    context.registerTool({
      name: 'draft_note',
      description: 'Keeps a draft until the page withdraws it.',
      annotations: { readOnlyHint: false },
      execute: () => text('drafted'),
    }, { signal: draft.signal }),
    context.registerTool({
      name: 'double_number',
      description: 'Doubles a number.',
      inputSchema: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
      annotations: { readOnlyHint: true },
      execute: ({ x }) => text(x * 2),
    }),
  ]).then(() => 'ok', (error) => `${error?.name}: ${error?.message}`);

  window.polyPage = {
    registered,
    abortDraft: () => draft.abort(),
    callTools,
  };
})();
