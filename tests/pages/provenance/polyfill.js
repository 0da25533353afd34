// A WebMCP polyfill served from a CDN, as @mcp-b/global is: its own
// modelContext over the one it found, forwarding each registration to it.
(() => {
  const before = document.modelContext;
  const context = {
    registerTool(tool, options) {
      return before.registerTool(tool, options);
    },
  };
  Object.defineProperty(document, 'modelContext', { value: context, configurable: true });
})();
