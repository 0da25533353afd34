document.modelContext.registerTool({
  name: 'csp_read', description: 'Reads under a strict CSP.',
  annotations: { readOnlyHint: true, openWorldHint: false }, execute: () => 'ok',
});
navigator.modelContext.registerTool({
  name: 'csp_legacy', description: 'Legacy registration under a strict CSP.', execute: () => 'ok',
});
