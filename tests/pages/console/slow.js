// One Mutating tool that takes its time, for the agent console's durability
// tests: a reply that comes while the console is re-sending its request.
const DELAY_MS = 1500;

document.modelContext.registerTool({
  name: 'slow_note',
  title: 'Slow Note',
  description: `Add a note, taking ${DELAY_MS / 1000} s.`,
  inputSchema: {
    type: 'object',
    properties: { title: { type: 'string', description: 'The title of the note' } },
    required: ['title'],
  },
  annotations: {
    readOnlyHint: false, consequentialHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false,
  },
  execute: ({ title }) => new Promise((done) => setTimeout(() => {
    const item = document.createElement('li');
    item.textContent = title;
    document.getElementById('notes').append(item);
    done(`Slowly added "${title}".`);
  }, DELAY_MS)),
});
