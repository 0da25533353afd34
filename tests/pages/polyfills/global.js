// A page built on @mcp-b/global 5.1.0: after its IIFE ran, document.modelContext
// and navigator.modelContext are its BrowserMcpServer. The page registers
// through both, with hints that decide each tool's class.
//
// window.globalPage.registered: a promise of 'ok' or the first rejection's text.
// window.globalPage.abortTemp(): aborts the signal temp_item registered with.
// window.globalPage.callTools(): calls double_number through the page's own API.
(() => {
  const { text, callTools } = window.pageKit;
  const temp = new AbortController();

  const registered = Promise.all([
    document.modelContext.registerTool({
      name: 'list_items',
      description: 'Lists the items in the cart.',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true },
      execute: () => text('apples, pears'),
    }),
    document.modelContext.registerTool({
      name: 'add_item',
      description: 'Adds an item to the cart.',
      inputSchema: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] },
      execute: ({ item }) => text(`added ${item}`),
    }),
    document.modelContext.registerTool({
      name: 'empty_cart',
      description: 'Removes every item from the cart.',
      annotations: { destructiveHint: true },
      execute: () => text('emptied'),
    }),
    document.modelContext.registerTool({
      name: 'temp_item',
      description: 'Offered until the page withdraws it.',
      annotations: { readOnlyHint: true },
      execute: () => text('temporary'),
    }, { signal: temp.signal }),
    navigator.modelContext.registerTool({
      name: 'count_items',
      description: 'Counts the items in the cart.',
      annotations: { readOnlyHint: true },
      execute: () => text(2),
    }),
    navigator.modelContext.registerTool({
      name: 'place_order',
      description: 'Orders the cart and charges the card on file.',
      inputSchema: { type: 'object', properties: {} },
      annotations: { consequentialHint: true },
      execute: () => text('ordered'),
    }),
    navigator.modelContext.registerTool({
      name: 'double_number',
      description: 'Doubles a number.',
      inputSchema: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
      annotations: { readOnlyHint: true },
      execute: ({ x }) => text(x * 2),
    }),
  ]).then(() => 'ok', (error) => `${error?.name}: ${error?.message}`);

  window.globalPage = {
    registered,
    abortTemp: () => temp.abort(),
    async callTools() {
      return {
        server: document.modelContext === navigator.modelContext && typeof document.modelContext.listTools === 'function',
        ...(await callTools()),
      };
    },
  };
})();
