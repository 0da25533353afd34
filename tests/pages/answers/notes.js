// A Notes-like page for the answers tests (docs/cards.md): one tool of each class,
// a skill, and tools for every error path a call can take.
//   list_notes   Read only
//   add_note     Mutating, idempotentHint: true, a required string `title`
//   delete_note  Consequential (destructiveHint)
//   send_note    Consequential (consequentialHint)
//   explode      Read only, throws
//   hang         Read only, never resolves
//   huge         Read only, returns a string over 1 MB
//   leave        Read only, navigates the page away mid-call
//   slow         Read only, answers "slept (run N)" after `ms` milliseconds
//   slow_save    Mutating, answers after `ms` milliseconds
// `window.redefine(name, description)` re-registers a tool with a changed
// definition; `window.calls` counts the calls each tool received, and
// `window.answered` the calls of slow and slow_save that have answered.
const notes = [{ title: 'Shopping' }, { title: 'Old draft' }];
window.calls = {};
window.answered = {};
const count = (name, counts = window.calls) => { counts[name] = (counts[name] ?? 0) + 1; };

function render() {
  document.getElementById('notes').replaceChildren(...notes.map((note) => {
    const item = document.createElement('li');
    item.textContent = note.title;
    return item;
  }));
}
render();

const titleSchema = {
  type: 'object',
  properties: { title: { type: 'string', description: 'The title of the note' } },
  required: ['title'],
  additionalProperties: false,
};
const none = { type: 'object', properties: {} };

const tools = {
  list_notes: {
    description: 'List every note.',
    inputSchema: none,
    annotations: { readOnlyHint: true, openWorldHint: false },
    execute: () => { count('list_notes'); return { notes }; },
  },
  add_note: {
    description: 'Add a note with a title.',
    inputSchema: titleSchema,
    annotations: { readOnlyHint: false, consequentialHint: false, idempotentHint: true, openWorldHint: false },
    execute: ({ title }) => {
      count('add_note');
      notes.push({ title });
      render();
      return `Added "${title}".`;
    },
  },
  delete_note: {
    description: 'Delete the note with this title.',
    inputSchema: titleSchema,
    annotations: { destructiveHint: true, openWorldHint: false },
    execute: ({ title }) => {
      count('delete_note');
      const index = notes.findIndex((n) => n.title === title);
      if (index >= 0) notes.splice(index, 1);
      render();
      return `Deleted "${title}".`;
    },
  },
  send_note: {
    description: 'Send a note to someone.',
    inputSchema: { type: 'object', properties: { title: { type: 'string' }, to: { type: 'string' } } },
    annotations: { consequentialHint: true },
    execute: ({ title, to }) => { count('send_note'); return `Sent "${title}" to ${to}.`; },
  },
  explode: {
    description: 'Always fails.',
    inputSchema: none,
    annotations: { readOnlyHint: true },
    execute: () => { count('explode'); throw new RangeError('the notes exploded'); },
  },
  hang: {
    description: 'Never answers.',
    inputSchema: none,
    annotations: { readOnlyHint: true },
    execute: () => { count('hang'); return new Promise(() => {}); },
  },
  huge: {
    description: 'Answers with more than a megabyte.',
    inputSchema: none,
    annotations: { readOnlyHint: true },
    execute: () => { count('huge'); return 'x'.repeat(1_200_000); },
  },
  leave: {
    description: 'Navigates the page away while it runs.',
    inputSchema: none,
    annotations: { readOnlyHint: true },
    execute: () => {
      count('leave');
      setTimeout(() => { location.href = '/other.html'; }, 50);
      return new Promise(() => {});
    },
  },
  slow: {
    description: 'Answers after a while.',
    inputSchema: { type: 'object', properties: { ms: { type: 'integer' } } },
    annotations: { readOnlyHint: true },
    execute: ({ ms = 1000 }) => {
      count('slow');
      const run = window.calls.slow; // Which run answers: "slept (run 2)".
      return new Promise((done) => setTimeout(() => {
        count('slow', window.answered);
        done(`slept (run ${run})`);
      }, ms));
    },
  },
  slow_save: {
    description: 'Saves the notes, after a while.',
    inputSchema: { type: 'object', properties: { ms: { type: 'integer' } } },
    annotations: { readOnlyHint: false, consequentialHint: false },
    execute: ({ ms = 1000 }) => {
      count('slow_save');
      return new Promise((done) => setTimeout(() => {
        count('slow_save', window.answered);
        done('saved');
      }, ms));
    },
  },
};

const controllers = {};
function register(name, tool) {
  controllers[name] = new AbortController();
  return document.modelContext.registerTool({ name, ...tool }, { signal: controllers[name].signal });
}
for (const [name, tool] of Object.entries(tools)) register(name, tool);
document.modelContext.registerSkill({
  name: 'house_style', description: 'How notes read.', instructions: 'Short titles.',
});

window.redefine = (name, description) => {
  controllers[name].abort();
  tools[name] = { ...tools[name], description };
  return register(name, tools[name]);
};
