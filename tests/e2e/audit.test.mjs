// The audit on the settings page (docs/rules.md, "Audit"), as a person reads
// it: newest first, each entry's time, site, who asked, tool, what happened
// and what decided it; filtered by site and by kind of entry; exported as
// JSON. The person's own change stays in view however much agents did.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { harness, assertRan, assertRefused } from '../support/fixture.mjs';
import { choose } from '../support/cards.mjs';

const h = harness({ pages: 'tests/pages/answers', tools: 11 });

const cells = (row) => row.locator('td').allTextContents();

test('the audit shows answers, decisions and rule changes newest first, filters them, and exports them', async () => {
  const { page, tabId } = await h.open('notes.test');
  const site = `http://${h.site()}`;
  const chat = await h.chat('Audit agent');
  const first = await h.asks(chat, tabId, 'list_notes', {}, 'site');
  await choose(first.card, 'Allow non-consequential read/write tools on this website');
  assertRan(await first.reply, 'list_notes');
  const denied = await h.asks(chat, tabId, 'delete_note', { title: 'Groceries' }, 'call');
  await choose(denied.card, 'Deny this call');
  assertRefused(await denied.reply, 'delete_note');

  const settings = await h.browser.newPage(await (await h.browser.worker()).evaluate(() => chrome.runtime.getURL('extension/ui/options.html')));
  // Two changes, as the settings page sends them: the first starts the
  // site's rules (from the defaults), the second changes one kind.
  for (const changes of [[{ target: 'kind', kind: 'write', level: 'off' }], [{ target: 'kind', kind: 'delete', level: 'ask_first' }]]) {
    const refused = await settings.evaluate(([s, c]) => chrome.runtime.sendMessage({ type: 'change_rules', site: s, changes: c }), [site, changes]);
    assert.equal(refused?.error, undefined);
  }
  // Agents keep calling after the person's change: 30 Read-only calls.
  for (let i = 0; i < 30; i++) await h.runs(chat, tabId, 'list_notes');

  const rows = settings.locator('#audit-rows tr');
  const byWhat = (what) => rows.filter({ has: settings.locator('td:nth-child(5)', { hasText: what }) });
  await byWhat('Ran').nth(30).waitFor();
  // Newest first: the last Read-only call is on top.
  assert.deepEqual((await cells(rows.first())).slice(1, 5), [h.site(), 'Audit agent', 'list_notes', 'Ran']);
  const answered = await cells(byWhat('Answered “Deny this call”').first());
  assert.deepEqual(answered.slice(1), [h.site(), 'Audit agent', 'delete_note', 'Answered “Deny this call”', 'your answer on the call card']);
  const refusal = await cells(byWhat('Refused').first());
  assert.deepEqual(refusal.slice(1, 5), [h.site(), 'Audit agent', 'delete_note', 'Refused']);
  assert.ok(refusal[5].length > 0, 'why it was refused');
  const siteAnswer = await cells(byWhat('Answered “Allow non-consequential read/write tools on this website”').first());
  assert.equal(siteAnswer[5], 'your answer on the site card');

  // Rule changes only: the person's change, however many calls came after it.
  await settings.getByLabel('Kind of entry').selectOption({ label: 'Rule changes' });
  await rows.nth(1).waitFor();
  assert.equal(await rows.count(), 2, 'the two rule changes, and nothing else');
  assert.deepEqual(await cells(rows.nth(0)), [await rows.nth(0).locator('td').first().textContent(),
    h.site(), 'You', '', 'Delete tools: Off → Ask first', 'your change on the settings page']);
  assert.deepEqual((await cells(rows.nth(1))).slice(1, 5), [h.site(), 'You', '',
    'Rules started: Read Allowed, Write Off, Delete Off, Outside the site Ask first']);

  // By site: another site's entries go.
  await settings.getByLabel('Kind of entry').selectOption({ label: 'Every entry' });
  await settings.getByLabel('From site').selectOption({ label: h.site() });
  const siteCells = await settings.locator('#audit-rows tr td:nth-child(2)').allTextContents();
  assert.ok(siteCells.length > 30 && siteCells.every((cell) => cell === h.site()), 'only the chosen site');

  // The export keeps working: every entry, as JSON.
  const download = settings.waitForEvent('download');
  await settings.getByRole('button', { name: 'Export as JSON' }).click();
  const exported = JSON.parse(await readFile(await (await download).path(), 'utf8'));
  const count = Number((await settings.locator('#audit-count').textContent()).match(/\d+/)[0]);
  assert.equal(exported.length, count);
  assert.ok(exported.some((entry) => entry.what === 'rule' && entry.kind === 'delete' && entry.to === 'ask_first'));
  await settings.close();
  await page.close();
});

test('"Rule changes" shows every kind of rule change: a tool\'s conditions and a limit too', async () => {
  // A site of its own, so that only this test's changes are its.
  const { page } = await h.open('rules.test');
  const site = `http://${h.site('rules.test')}`;
  const settings = await h.browser.newPage(await (await h.browser.worker()).evaluate(() => chrome.runtime.getURL('extension/ui/options.html')));
  // add_note set apart (which starts the site's rules), then its condition, then its limit.
  for (const changes of [
    [{ target: 'tool', name: 'add_note', level: 'ask_first' }],
    [{ target: 'tool', name: 'add_note', conditions: [{ when: [{ path: 'title', op: 'starts_with', value: 'Groceries' }], level: 'allowed' }] }],
    [{ target: 'tool', name: 'add_note', limit: { calls: 10, minutes: 1 } }],
  ]) {
    const refused = await settings.evaluate(([s, c]) => chrome.runtime.sendMessage({ type: 'change_rules', site: s, changes: c }), [site, changes]);
    assert.equal(refused?.error, undefined);
  }
  const rows = settings.locator('#audit-rows tr');
  const what = async () => settings.locator('#audit-rows tr td:nth-child(5)').allTextContents();
  await settings.getByLabel('From site').selectOption({ label: h.site('rules.test') });
  await rows.filter({ hasText: 'Limits on how often changed' }).waitFor();
  const every = await what();
  // "Rule changes" shows the same three as "Every entry" does: none hidden
  // (from "Answers", which shows none of them, so that no row is left over).
  await settings.getByLabel('Kind of entry').selectOption({ label: 'Answers' });
  await settings.locator('#audit-empty').waitFor();
  await settings.getByLabel('Kind of entry').selectOption({ label: 'Rule changes' });
  await rows.nth(2).waitFor({ timeout: 5000 });
  const shown = await what();
  assert.deepEqual(shown.slice(0, 2), ['Limits on how often changed', 'Conditions on arguments changed']);
  assert.match(shown[2], /^Rules started: /);
  assert.deepEqual(shown, every, 'every entry of the site is a rule change');
  await settings.close();
  await page.close();
});
