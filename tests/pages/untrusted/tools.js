// The three sites of tests/e2e/untrusted.test.mjs share this helper: each
// page registers its tools with hints as its <script> names them, and keeps
// what its acting tool did in `window.done` and on screen, so a test sees
// whether a call ran.
'use strict';
window.done = [];
window.publish = (tools) => {
  for (const { name, description, annotations, inputSchema, execute } of tools) {
    document.modelContext.registerTool({
      name,
      description,
      annotations: { consequentialHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false, ...annotations },
      inputSchema: inputSchema ?? { type: 'object', properties: {} },
      execute,
    });
  }
};
// What an acting tool did: kept, and shown in #done.
window.record = (what) => {
  window.done.push(what);
  const item = document.createElement('li');
  item.textContent = what;
  document.getElementById('done').append(item);
  return `${what}: done`;
};
