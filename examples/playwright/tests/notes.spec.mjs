// The Notes example (../notes/) checked the way a web developer checks their
// own site: with Toolgate's Playwright fixture, `toolgate/playwright`.
import { expect, test } from 'toolgate/playwright';

test.beforeEach(async ({ page }) => {
  await page.goto('/notes/');
});

test('each tool has the class its hints give', async ({ page }) => {
  await expect(page).toHaveToolClass('list_notes', 'Read only');
  await expect(page).toHaveToolClass('add_note', 'Mutating');
  await expect(page).toHaveToolClass('delete_note', 'Consequential');
  await expect(page).toHaveToolClass('notes_house_style', 'Skill');
  await expect(page).not.toHaveToolClass('pin_note', 'Read only');
});

test('toHaveToolClass names the class Toolgate gave and why', async ({ page }) => {
  await expect(expect(page).toHaveToolClass('pin_note', 'Read only')).rejects
    .toThrow('pin_note: expected Read only, Toolgate classes it Mutating (declared nothing; registered on document.modelContext in the object form → Mutating)');
  await expect(expect(page).toHaveToolClass('no_such_tool', 'Read only')).rejects
    .toThrow(/registered no tool no_such_tool; it has: list_notes, add_note, delete_note/);
});

test('a forgotten hint fails toDeclareAllHints, naming the tool and the hint', async ({ page }) => {
  const failure = expect(page).toDeclareAllHints();
  await expect(failure).rejects.toThrow(/pin_note: readOnlyHint is not declared/);
  await expect(failure).rejects.toThrow(/count_notes: openWorldHint is not declared/);
  // The tools that declare all five are not named; nor is the form, which cannot declare hints.
  await expect(failure).rejects.not.toThrow(/list_notes|add_note|delete_note|find_note/);
});

test('toolgate.tools gives each class, badges, deciding rule and lint notes', async ({ page, toolgate }) => {
  const tools = await toolgate.tools(page);
  expect(tools.map((t) => t.name)).toEqual(['list_notes', 'add_note', 'delete_note', 'notes_house_style',
    'pin_note', 'archive_note', 'export_notes', 'share_note', 'count_notes', 'find_note']);
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  expect(byName.list_notes).toMatchObject({ class: 'Read only', badges: ['idempotent'], rule: 'readOnlyHint: true → Read only', lints: [] });
  expect(byName.notes_house_style).toMatchObject({ kind: 'skill', badge: 'Skill', class: null });
  expect(byName.export_notes.badges).toContain('off-site');
  expect(byName.export_notes.lints).toContainEqual({
    kind: 'decided_by_default', severity: 'error', text: 'the class is a default: declare every hint and the defaults never apply',
  });
  expect(byName.export_notes.lints).toContainEqual(expect.objectContaining({ kind: 'legacy_api', severity: 'warning' }));
});

test('a Read only call runs without a card on localhost', async ({ page, toolgate }) => {
  const call = await toolgate.call(page, 'list_notes');
  expect(call).toMatchObject({ decision: 'run', isError: false, cards: [] });
  expect(call.text).toContain('Shopping');
});

test('a Mutating call runs once its card is answered "Allow this call only"', async ({ page, toolgate }) => {
  const call = await toolgate.call(page, 'add_note', { title: 'Milk', body: 'Two litres' }, { answer: 'Allow this call only' });
  expect(call).toMatchObject({ decision: 'run', isError: false, text: 'Added "Milk".' });
  expect(call.cards).toHaveLength(1);
  await expect(page.locator('#notes')).toContainText('Milk: Two litres');
});

test('a Consequential call denied on its card does not run', async ({ page, toolgate }) => {
  const call = await toolgate.call(page, 'delete_note', { title: 'Old draft' }, { answer: 'Deny this call' });
  expect(call).toMatchObject({ decision: 'refuse', isError: true });
  await expect(page.locator('#notes')).toContainText('Old draft');
});

test('an answer from behind a card\'s arrow is found by its label', async ({ page, toolgate }) => {
  const site = new URL(page.url()).host;
  const first = await toolgate.call(page, 'add_note', { title: 'A', body: 'a' }, { answer: `Always allow “add_note” on ${site}` });
  expect(first.decision).toBe('run');
  // Always allowed in this chat: the next call opens no card.
  const second = await toolgate.call(page, 'add_note', { title: 'B', body: 'b' });
  expect(second).toMatchObject({ decision: 'run', cards: [] });
});

test('a card left without an answer fails the call, naming the answers it offers', async ({ page, toolgate }) => {
  await expect(toolgate.call(page, 'delete_note', { title: 'Shopping' })).rejects
    .toThrow(/opened the card .* no answer was given for it: pass \{ answer \} with one of "Allow this call only", .*"Deny this call"/);
  await expect(page.locator('#notes')).toContainText('Shopping');
});

test('a tool the page registers after it has loaded is waited for, then called', async ({ page, toolgate }) => {
  // With ?late, the page's own script registers late_clock a moment after its
  // load event. (A tool registered from the test's page.evaluate has no script
  // of the page's on its stack: Toolgate asks about it, as docs/cards.md,
  // "Tools registered by other sites' scripts", says.)
  await page.goto('/notes/?late');
  const call = await toolgate.call(page, 'late_clock');
  expect(call).toMatchObject({ decision: 'run', isError: false, text: 'noon', cards: [] });
});
