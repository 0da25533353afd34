// Shared by the polyfill test pages: how a tool answers, and calling
// double_number through the page's own API — executeTool(registeredTool,
// inputArgsJson) on document.modelContext, and the testing API's
// executeTool(name, inputArgsJson) — as a page shipping a polyfill would.
window.pageKit = (() => {
  const outcome = (promise) => promise.then((value) => ({ value }), (error) => ({ error: `${error?.name}: ${error?.message}` }));
  return {
    text: (value) => ({ content: [{ type: 'text', text: String(value) }] }),
    async callTools() {
      const tools = await document.modelContext.getTools();
      const tool = tools.find((t) => t.name === 'double_number');
      return {
        listed: tools.map((t) => t.name),
        viaContext: tool ? await outcome(document.modelContext.executeTool(tool, JSON.stringify({ x: 21 })))
          : { error: 'double_number is not in getTools()' },
        viaTesting: await outcome(navigator.modelContextTesting.executeTool('double_number', JSON.stringify({ x: 4 }))),
      };
    },
  };
})();
