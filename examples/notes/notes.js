// The Notes example (docs/classes.md): list_notes is Read only, add_note Mutating,
// delete_note Consequential, and "Notes House Style" a skill. The tools after
// them declare nothing, one per way of registering, to show how Toolgate
// reads silence.
const notes = [{ title: 'Shopping', body: 'Milk, bread' }, { title: 'Old draft', body: '...' }];

function render() {
  const list = document.getElementById('notes');
  list.replaceChildren(...notes.map((note) => {
    const item = document.createElement('li');
    item.textContent = `${note.title}: ${note.body}`;
    return item;
  }));
}
render();

const titleSchema = {
  type: 'object',
  properties: { title: { type: 'string', description: 'The title of the note' } },
  required: ['title'],
};

const context = document.modelContext;

context.registerTool({
  name: 'list_notes',
  title: 'List Notes',
  description: 'List every note, title and text.',
  inputSchema: { type: 'object', properties: {} },
  annotations: {
    readOnlyHint: true, consequentialHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false,
  },
  execute: () => ({ notes }),
});

context.registerTool({
  name: 'add_note',
  title: 'Add Note',
  description: 'Add a note with a title and a text.',
  inputSchema: {
    type: 'object',
    properties: { title: { type: 'string' }, body: { type: 'string' } },
    required: ['title', 'body'],
  },
  annotations: {
    readOnlyHint: false, consequentialHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false,
  },
  execute: ({ title, body }) => {
    notes.push({ title, body });
    render();
    return `Added "${title}".`;
  },
});

context.registerTool({
  name: 'delete_note',
  title: 'Delete Note',
  description: 'Delete the note with this title. It cannot be brought back.',
  inputSchema: titleSchema,
  annotations: {
    readOnlyHint: false, consequentialHint: true, destructiveHint: true, idempotentHint: true, openWorldHint: false,
  },
  execute: ({ title }) => {
    const index = notes.findIndex((n) => n.title === title);
    if (index < 0) throw new Error(`No note is titled "${title}".`);
    notes.splice(index, 1);
    render();
    return `Deleted "${title}".`;
  },
});

context.registerSkill({
  name: 'notes_house_style',
  title: 'Notes House Style',
  description: 'How notes on this site are written.',
  instructions: 'Titles are short nouns. Bodies are plain sentences, no markdown.',
});

// Tools that declare nothing, one per registration path.
context.registerTool({
  name: 'pin_note',
  description: 'Pin a note to the top. (Declares nothing; object form on document.modelContext.)',
  inputSchema: titleSchema,
  execute: ({ title }) => `Pinned "${title}".`,
});

context.registerTool(
  'archive_note',
  'Archive a note. (Declares nothing; positional on document.modelContext.)',
  titleSchema,
  ({ title }) => `Archived "${title}".`,
);

navigator.modelContext.registerTool({
  name: 'export_notes',
  description: 'Export every note as text. (Declares nothing; navigator.modelContext.)',
  execute: () => notes.map((n) => `${n.title}\n${n.body}`).join('\n\n'),
});

navigator.modelContext.registerTool(
  'share_note',
  'Share a note by email. (Declares nothing; positional on navigator.modelContext.)',
  titleSchema,
  ({ title }) => `Shared "${title}".`,
);

navigator.modelContext.provideContext({
  tools: [{
    name: 'count_notes',
    description: 'Count the notes. (Declares nothing; navigator.modelContext.provideContext.)',
    execute: () => notes.length,
  }],
});

// With ?late, a tool registered a moment after the page has loaded, as a page
// does once something it fetched arrives (examples/playwright waits for it).
if (new URLSearchParams(location.search).has('late')) {
  addEventListener('load', () => setTimeout(() => document.modelContext.registerTool({
    name: 'late_clock',
    description: 'Say the time the page has.',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true, consequentialHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    execute: () => 'noon',
  }), 300));
}
