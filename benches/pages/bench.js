// Tools for the benchmark, all Read only (readOnlyHint: true), so an agent's
// call runs without a card on a *.localhost page.
//   noop   trivial execute (figures 4, 5)
//   clock  returns this page's clock, performance.timeOrigin + performance.now()
//          (to check the page's and the worker's clocks agree, figure 3)
//   count  counts its executions by (chat, n), to find lost or duplicated calls (figure 8)
// `window.registerMany(prefix, n)` registers n more; ?tools=N does it at load.
const schema = {
  type: 'object',
  properties: { chat: { type: 'string' }, n: { type: 'integer' } },
};
const readOnly = { readOnlyHint: true, openWorldHint: false };
window.executed = new Map(); // "chat/n" -> executions
window.executions = 0;

function tool(name, execute) {
  return { name, description: `Benchmark tool ${name}.`, inputSchema: schema, annotations: readOnly, execute };
}

window.registerMany = (prefix, n) => {
  for (let i = 0; i < n; i++) document.modelContext.registerTool(tool(`${prefix}${i}`, () => i));
};

const params = new URLSearchParams(location.search);
if (params.has('tools')) {
  window.registerMany('tool_', Number(params.get('tools')));
} else if (params.has('agent')) {
  document.modelContext.registerTool(tool('noop', () => 'ok'));
  document.modelContext.registerTool(tool('clock', () => performance.timeOrigin + performance.now()));
  document.modelContext.registerTool(tool('count', ({ chat, n }) => {
    const key = `${chat}/${n}`;
    window.executed.set(key, (window.executed.get(key) ?? 0) + 1);
    window.executions += 1;
    return { chat, n };
  }));
}
