// The cases tests/e2e/forms.test.mjs runs on each side. Every outcome is
// plain JSON, so that the sides can be compared as they are.
const log = [];
const context = document.modelContext;
for (const [target, where] of [[window, 'window'], [context, 'modelContext']]) {
  for (const type of ['toolactivated', 'toolcancel']) {
    target.addEventListener(type, (event) => log.push(`${where} ${type} ${event.toolName} bubbles=${event.bubbles}`));
  }
}
const track = document.getElementById('track');
for (const field of track.elements) {
  for (const type of ['input', 'change']) field.addEventListener(type, (event) => log.push(`${field.name} ${type} bubbles=${event.bubbles}`));
}
// :tool-form-active where the browser has it, else what the selector does.
const active = (element, state) => {
  try {
    return element.matches(state);
  } catch (error) {
    return `no ${state}: ${error.name}`;
  }
};
let answer = null; // how the next submission of #track is answered
track.addEventListener('submit', (event) => {
  log.push(`submit agentInvoked=${event.agentInvoked} formActive=${active(track, ':tool-form-active')} submitActive=${event.submitter && active(event.submitter, ':tool-submit-active')}`);
  if (answer === 'navigate') return;
  event.preventDefault();
  if (answer === 'respond') event.respondWith(Promise.resolve({ status: 'shipped', order: new FormData(track).get('order') }));
});
const outcome = (promise) => promise.then((value) => ({ value }), (error) => ({ error: `${error.name}: ${error.message}` }));
const tool = async (name) => (await context.getTools()).find((t) => t.name === name);
const taken = () => log.splice(0);
// Until the call has filled `field` with `value` (at most 2 s), then a task more.
async function filled(field, value) {
  for (const end = Date.now() + 2000; field.value !== value && Date.now() < end;) {
    await new Promise((done) => setTimeout(done, 10));
  }
  await new Promise((done) => setTimeout(done, 0));
}

window.formCases = async () => {
  const out = {};
  // The call the page made while it parsed (forms.html), first, and its events set aside.
  out.submitFromScript = await Promise.race([window.submitFromScript, new Promise((done) => setTimeout(() => done('still waiting'), 2000))]);
  taken();
  out.schemas = Object.fromEntries((await context.getTools()).map((t) => [t.name, t.inputSchema]));
  answer = 'respond';
  out.responded = await outcome(context.executeTool(await tool('track'), {
    order: 'ABC123', qty: 3, gift: true, speed: 'fast', box: 'large', extras: ['wrap', 'card'], note: 'ring twice', day: '2026-12-24', at: '09:30',
  }));
  out.respondedLog = taken();
  out.filled = { ...Object.fromEntries(new FormData(track)), extras: new FormData(track).getAll('extras') };
  out.activeAfter = active(track, ':tool-form-active');
  // The same input again: no control changes, so none gets input or change.
  out.sameAgain = await outcome(context.executeTool(await tool('track'), {
    order: 'ABC123', qty: 3, gift: true, speed: 'fast', box: 'large', extras: ['wrap', 'card'], note: 'ring twice', day: '2026-12-24', at: '09:30',
  }));
  out.sameAgainEdits = taken().filter((line) => / (input|change) /.test(line));
  out.badChoice = await outcome(context.executeTool(await tool('track'), { order: 'ABC1', box: 'huge' }));
  out.badChoiceLog = taken();
  out.constraints = await outcome(context.executeTool(await tool('track'), { order: 'lowercase' }));
  out.constraintsLog = taken();
  // The person's form: filled, then it waits; the signal cancels it.
  const person = document.getElementById('person');
  const controller = new AbortController();
  const waiting = outcome(context.executeTool(await tool('ask_person'), { q: 'hello' }, { signal: controller.signal }));
  await filled(person.elements.q, 'hello');
  out.personFilled = person.elements.q.value;
  out.personActive = active(person, ':tool-form-active');
  controller.abort();
  out.aborted = await waiting;
  out.abortedLog = taken();
  out.personActiveAfter = active(person, ':tool-form-active');
  // Reset while it waits.
  const resettable = document.getElementById('resettable');
  const reset = outcome(context.executeTool(await tool('resettable'), { q: 'x' }));
  await filled(resettable.elements.q, 'x');
  resettable.reset();
  out.reset = await Promise.race([reset, new Promise((done) => setTimeout(() => done('still waiting'), 2000))]);
  out.resetLog = taken();
  // Removed while it waits.
  const removed = outcome(context.executeTool(await tool('ask_person'), { q: 'bye' }));
  await filled(person.elements.q, 'bye');
  person.remove();
  out.removed = await Promise.race([removed, new Promise((done) => setTimeout(() => done('still waiting'), 2000))]);
  out.removedLog = taken();
  out.toolsAfter = (await context.getTools()).map((t) => t.name);
  return JSON.stringify(out);
};

// How the next submission of #track is answered, for a test's agent call.
window.answerWith = (how) => { answer = how; };

// A submission nobody answers navigates; the call gives null.
window.navigates = async () => {
  answer = 'navigate';
  return JSON.stringify(await outcome(context.executeTool(await tool('track'), { order: 'XYZ9' })));
};
