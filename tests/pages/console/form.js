// A Read only tool whose schema uses every kind of field the console's form
// generates; it answers with the arguments it got.
document.modelContext.registerTool({
  name: 'echo',
  description: 'Answer with the arguments, as JSON.',
  inputSchema: {
    type: 'object',
    properties: {
      text: { type: 'string', description: 'Any text' },
      count: { type: 'integer', description: 'A whole number' },
      ratio: { type: 'number' },
      loud: { type: 'boolean', description: 'Shout it' },
      colour: { type: 'string', enum: ['red', 'green', 'blue'] },
      tags: { type: 'array', items: { type: 'string' } },
      extra: { type: 'object' },
    },
    required: ['text', 'count'],
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  execute: (args) => JSON.stringify(args),
});
