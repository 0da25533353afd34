// Conditions on a tool's arguments and limits on how often, set by a person
// on the settings pages (docs/rules.md, "Conditions on a tool's arguments",
// "Limits on how often", "Setting conditions and limits"), by clicks and typing
// only: on the bank page's `transfer({to, amount})` (tests/pages/arg-rules),
// the tool is set apart at Ask first from the set-apart page and given the
// condition "amount is at most 20 → Allowed"; an agent's call of 15 then
// runs with no card and 25 opens a rule card naming the condition. Only the
// schema's properties can be chosen, each name shown as page text is, and a test the worker refuses (a
// pattern its engine cannot run) shows the worker's words by the editor,
// keeping what was typed. A limit of 3 calls in 1 minute set by clicks is
// shown in words and the fourth call asks; a refused limit shows the
// worker's words. An area's and a kind's limits are set and removed. axe-core
// finds no violation on either page, in both themes, with conditions and
// limits shown. On a mail page whose recipients are a list of objects, the
// editor offers `recipients[].email`, and a condition on it lets a call
// through only when every recipient passes; a refusal names it. And,
// without a browser, the editor's offer held to the
// core's check: every operator it offers for a property's types (as the
// worker's `tool_properties` gives them) is one the core takes, with the
// value it reads from what is typed, and every one it leaves out is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { changeRules as coreChangeRules, initSync, ruleWords } from '../../pkg/toolgate.js';
import { fits, valueKind } from '../../extension/ui/condition-types.js';
import { NON_CONSEQUENTIAL, assertRan, assertRefused, harness } from '../support/fixture.mjs';
import { choose, readCard } from '../support/cards.mjs';
import { checkThemes } from '../support/axe.mjs';
import { until } from '../support/until.mjs';

const h = harness({ pages: 'tests/pages/arg-rules', tools: 1 });

// Whether the control `locator` finds has the page's focus.
const focused = (locator) => locator.evaluate((node) => node === document.activeElement);

test('a condition and a limit set by clicks on the settings pages decide an agent\'s calls, and both pages pass axe-core in both themes', async () => {
  const bank = await h.open('bank.test', '/', 1);
  const host = h.site('bank.test');
  const chat = await h.chat('Bank agent');
  // The site question, answered as a person who lets the agent act.
  const first = await h.asks(chat, bank.tabId, 'transfer', { to: 'ana', amount: 5 }, 'site');
  await choose(first.card, NON_CONSEQUENTIAL);
  assertRan(await first.reply, 'transfer');

  // The settings page, then the site's "Set areas and tools apart".
  const worker = await h.browser.worker();
  const view = await h.browser.newPage(await worker.evaluate(() => chrome.runtime.getURL('extension/ui/options.html')));
  await view.getByRole('article', { name: host }).getByRole('link', { name: 'Set areas and tools apart' }).click();
  await view.locator('#shown', { hasText: '1 of 1 tools shown.' }).waitFor();
  await view.getByRole('button', { name: 'transfer', exact: true }).click();
  const row = view.locator('li.tool');
  await view.getByRole('combobox', { name: 'What agents may do with transfer' })
    .selectOption({ label: 'Ask first, and start this site\'s rules from the defaults' });
  await row.locator('.holds', { hasText: 'Ask first, set apart' }).waitFor();

  // Its conditions: none yet; a condition added by clicks and typing.
  const conditions = row.getByRole('group', { name: 'Conditions on the arguments of transfer' });
  await conditions.getByText('No conditions: the tool\'s own level holds for every call.').waitFor();
  await conditions.getByRole('button', { name: 'Add conditions' }).click();
  await conditions.getByRole('button', { name: 'Add a condition' }).click();
  // Focus goes to the new test's first field; only the schema's properties can be chosen,
  // each named as the core shows page text (the override in `memo`'s name shown, not obeyed).
  const property1 = conditions.getByLabel('Property of test 1, condition 1');
  assert.ok(await focused(property1), 'the new test\'s property has focus');
  assert.deepEqual(await property1.locator('option').allTextContents(), ['amount', 'memo\u27e8U+202E\u27e9', 'to']);
  await property1.selectOption('amount');
  // The operators offered for a number: none of the text ones.
  const operator1 = conditions.getByLabel('Operator of test 1, condition 1');
  assert.deepEqual(await operator1.locator('option').allTextContents(), ['is', 'is one of', 'is at most', 'is at least']);
  await operator1.selectOption({ label: 'is at most' });
  await conditions.getByLabel('Value of test 1, condition 1').pressSequentially('20');
  await conditions.getByLabel('Level of condition 1').selectOption({ label: 'Allowed' });

  // A second test the worker refuses: a pattern its engine cannot run. Its
  // words are shown by the editor, and nothing typed is lost.
  await conditions.getByRole('button', { name: 'Add a test' }).click();
  assert.ok(await focused(conditions.getByLabel('Property of test 2, condition 1')), 'the new test\'s property has focus');
  await conditions.getByLabel('Property of test 2, condition 1').selectOption('to');
  const operator2 = conditions.getByLabel('Operator of test 2, condition 1');
  assert.deepEqual(await operator2.locator('option').allTextContents(), ['is', 'is one of', 'starts with', 'ends with', 'matches']);
  await operator2.selectOption({ label: 'matches' });
  await conditions.getByLabel('Value of test 2, condition 1').pressSequentially('(');
  await conditions.getByRole('button', { name: 'Save conditions' }).click();
  const error = conditions.getByRole('alert');
  await error.filter({ hasText: /^The test on to of transfer cannot run: .+\. Nothing was saved\.$/ }).waitFor();
  assert.equal(await conditions.getByLabel('Value of test 2, condition 1').inputValue(), '(');
  assert.equal(await conditions.getByLabel('Value of test 1, condition 1').inputValue(), '20');
  assert.equal(await conditions.getByLabel('Property of test 1, condition 1').inputValue(), 'amount');
  assert.match(await row.locator('.holds').textContent(), /^Ask first, set apart$/, 'nothing was saved');

  // Removing that test by the keyboard; focus stays in the condition.
  await conditions.getByRole('button', { name: 'Remove test 2 of condition 1' }).focus();
  await view.keyboard.press('Enter');
  assert.ok(await focused(conditions.getByRole('button', { name: 'Add a test' })), 'focus stays in the condition');
  await conditions.getByRole('button', { name: 'Save conditions' }).click();
  await conditions.getByRole('status').filter({ hasText: 'Saved: Allowed when amount is at most 20.' }).waitFor();
  assert.equal(await conditions.locator('p.error').textContent(), '', 'the refusal is gone once saved');
  assert.deepEqual(await conditions.locator('.condition-list li').allTextContents(), ['Allowed when amount is at most 20']);
  await row.locator('.holds', { hasText: 'Ask first, set apart; Allowed when amount is at most 20' }).waitFor();
  const stored = await worker.evaluate(async (s) => (await chrome.storage.local.get('rules')).rules.sites[s].conditions, h.server.url('bank.test', ''));
  assert.deepEqual(stored, { transfer: [{ when: [{ path: 'amount', op: 'at_most', value: 20 }], level: 'allowed' }] });

  // 15: no card. 25: a rule card naming the condition.
  await h.runs(chat, bank.tabId, 'transfer', { to: 'ana', amount: 15 });
  const large = await h.asks(chat, bank.tabId, 'transfer', { to: 'ana', amount: 25 }, 'call');
  assert.equal((await readCard(large.card)).rule, 'Ask first: transfer: amount is more than 20, by your rule for this tool');
  await choose(large.card, 'Refuse');
  assertRefused(await large.reply, 'transfer');

  // A limit by clicks: one the worker refuses first, its words shown and
  // the number kept; then 3 calls in 1 minute, shown in words.
  const limit = row.locator('.limit');
  await limit.getByText('No limit on how often').waitFor();
  await limit.getByRole('button', { name: 'Set a limit for the tool transfer' }).click();
  const calls = limit.getByLabel('Calls at most for the tool transfer');
  assert.ok(await focused(calls), 'the form opens on its first field');
  await calls.pressSequentially('5000');
  await limit.getByRole('button', { name: 'Save the limit' }).click();
  await limit.getByRole('alert').filter({ hasText: 'A limit allows 1 to 1000 calls; this one says 5000.' }).waitFor();
  assert.equal(await calls.inputValue(), '5000');
  await calls.fill('3');
  assert.deepEqual(await limit.getByLabel('In for the tool transfer').locator('option').allTextContents(), ['1 minute', '10 minutes', '60 minutes']);
  await limit.getByLabel('In for the tool transfer').selectOption({ label: '1 minute' });
  await limit.getByRole('button', { name: 'Save the limit' }).click();
  await limit.getByText('Limit: at most 3 calls in 1 minute, per chat').waitFor();
  assert.ok(await focused(limit.getByRole('button', { name: 'Change the limit for the tool transfer' })), 'focus back on the limit\'s button');
  await row.locator('.holds', { hasText: 'at most 3 calls in 1 minute, by the limit for the tool transfer' }).waitFor();

  // Three calls run; the fourth asks, naming the limit.
  for (let i = 0; i < 3; i += 1) await h.runs(chat, bank.tabId, 'transfer', { to: 'bo', amount: 1 });
  const fourth = await h.asks(chat, bank.tabId, 'transfer', { to: 'bo', amount: 1 }, 'call');
  assert.equal((await readCard(fourth.card)).rule,
    'Ask first: transfer: more than 3 calls in 1 minute in this chat, by the limit for the tool transfer');
  await choose(fourth.card, 'Refuse');
  assertRefused(await fourth.reply, 'transfer');

  // An area's limit, set and removed by clicks.
  const areaRow = view.locator('li.area > .rule-extras');
  await areaRow.getByRole('button', { name: 'Set a limit for the area transfer' }).click();
  await areaRow.getByLabel('Calls at most for the area transfer').fill('10');
  await areaRow.getByLabel('In for the area transfer').selectOption({ label: '10 minutes' });
  await areaRow.getByRole('button', { name: 'Save the limit' }).click();
  await areaRow.getByText('Limit: at most 10 calls in 10 minutes, per chat').waitFor();
  await row.locator('.holds', { hasText: 'at most 10 calls in 10 minutes, by the limit for the area transfer' }).waitFor();
  await areaRow.getByRole('button', { name: 'Remove the limit for the area transfer' }).click();
  await areaRow.getByText('No limit on how often').waitFor();

  // Conditions and limits shown, the editor still open after its save:
  // axe-core in both themes.
  assert.equal(await conditions.getByRole('button', { name: 'Edit conditions' }).getAttribute('aria-expanded'), 'true');
  await conditions.getByLabel('Value of test 1, condition 1').waitFor();
  await checkThemes(view, 'the set-apart page with conditions and limits');

  // A kind's limit, on the settings page, where its level is.
  await view.getByRole('link', { name: 'Back to Toolgate settings' }).click();
  const card = view.getByRole('article', { name: host });
  await card.getByRole('button', { name: `Set a limit for Write tools on ${host}` }).click();
  await card.getByLabel(`Calls at most for Write tools on ${host}`).fill('50');
  await card.getByLabel(`In for Write tools on ${host}`).selectOption({ label: '60 minutes' });
  await card.getByRole('button', { name: 'Save the limit' }).click();
  await card.getByText('Limit: at most 50 calls in 60 minutes, per chat').waitFor();
  await view.locator('#rules-status', { hasText: `The limit for Write tools on ${host} is now at most 50 calls in 60 minutes, per chat.` }).waitFor();
  // The card is built again as the rules change: focus comes back to its button.
  await view.waitForFunction(() => document.activeElement?.textContent === 'Change the limit');
  await checkThemes(view, 'the settings page with a kind\'s limit');
  await card.getByRole('button', { name: `Remove the limit for Write tools on ${host}` }).click();
  await card.getByText('Limit: at most 50').waitFor({ state: 'detached' });
  await card.getByRole('button', { name: `Set a limit for Write tools on ${host}` }).waitFor();
  await view.close();

  assert.deepEqual(await bank.page.evaluate(() => window.done), ['5 to ana', '15 to ana', '1 to bo', '1 to bo', '1 to bo']);
  assert.equal(h.cards.pending(), false, 'no other card opened');
});

test('with no tool of it seen, an area a rule names, and with no tab publishing it, a property a stored condition tests, are shown on the set-apart page as the core shows page text', async () => {
  // A site of its own: the first test's rules stay on bank.test.
  const safe = await h.open('safe.test', '/', 1);
  const site = h.server.url('safe.test', '');
  const worker = await h.browser.worker();
  const view = await h.browser.newPage(await worker.evaluate((s) => chrome.runtime.getURL(`extension/ui/set-apart.html?site=${encodeURIComponent(s)}`), site));
  // Once the worker lists the site's tool `name` in `area`.
  const seen = (name, area) => until(view, async ([s, n, a]) => (await chrome.runtime.sendMessage({ type: 'site_tools', site: s }))
    .some((tool) => tool.name === n && tool.area === a), [site, name, area], `${name} in ${area}`);
  // A second tool, in an area whose name hides a bidi override; declared
  // again (its registration aborted first) in another area.
  const declare = (tag) => safe.page.evaluate((t) => {
    window.stashed?.abort();
    window.stashed = new AbortController();
    document.modelContext.registerTool({
      name: 'stash', description: 'Keeps a note.', inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true }, tags: [t], execute: () => 'kept',
    }, { signal: window.stashed.signal });
  }, tag);
  await declare('vault\u202E');
  await seen('stash', 'vault\u202E');
  // Set apart while the page is open (a condition may test only what the
  // schema declares, an area be set apart only once a tool of it is seen):
  // a condition on `memo` and its override, and the area.
  await worker.evaluate(([s]) => self.toolgate.changeRules(s, [
    { target: 'tool', name: 'transfer', level: 'ask_first' },
    { target: 'tool', name: 'transfer', conditions: [{ when: [{ path: 'memo\u202E', op: 'is', value: 'rent' }], level: 'allowed' }] },
    { target: 'area', area: 'vault\u202E', level: 'ask_first' },
  ]), [site]);
  // The tool moves to another area, then the tab closes: the rule's area has
  // no tool seen, and no open tab declares transfer's properties.
  await declare('safe');
  await seen('stash', 'safe');
  await safe.page.close();
  await until(view, async (s) => !('transfer' in await chrome.runtime.sendMessage({ type: 'tool_properties', site: s })), site,
    'no open tab offering transfer\'s properties');
  await view.reload();
  await view.locator('#shown', { hasText: '2 of 2 tools shown.' }).waitFor();
  // The area with no tool: its name with the override made visible, not obeyed.
  assert.deepEqual(await view.locator('li.area .area-row > button').allTextContents(), ['safe', 'transfer', 'vault\u27e8U+202E\u27e9']);
  // The stored condition, in words, its property likewise.
  await view.getByRole('button', { name: 'transfer', exact: true }).click();
  const conditions = view.locator('li.tool').getByRole('group', { name: 'Conditions on the arguments of transfer' });
  assert.deepEqual(await conditions.locator('.condition-list li').allTextContents(), ['Allowed when memo\u27e8U+202E\u27e9 is \u201crent\u201d']);
  await view.close();
});

test('the conditions editor offers a path into a list of objects, and a condition on it lets a call through only when every item passes', async () => {
  // A page of its own (tests/pages/arg-rules/mail.html): send_mail's recipients are objects.
  const mail = await h.open('mail.test', '/mail.html', 1);
  const chat = await h.chat('Mail agent');
  const team = (name) => ({ email: `${name}@team.test` });
  const first = await h.asks(chat, mail.tabId, 'send_mail', { subject: 'a', recipients: [team('ana')] }, 'site');
  await choose(first.card, NON_CONSEQUENTIAL);
  assertRan(await first.reply, 'send_mail');

  const worker = await h.browser.worker();
  const view = await h.browser.newPage(await worker.evaluate((s) => chrome.runtime.getURL(`extension/ui/set-apart.html?site=${encodeURIComponent(s)}`), h.server.url('mail.test', '')));
  await view.locator('#shown', { hasText: '1 of 1 tools shown.' }).waitFor();
  await view.getByRole('button', { name: 'send_mail', exact: true }).click();
  const row = view.locator('li.tool');
  await view.getByRole('combobox', { name: 'What agents may do with send_mail' })
    .selectOption({ label: 'Ask first, and start this site\'s rules from the defaults' });
  await row.locator('.holds', { hasText: 'Ask first, set apart' }).waitFor();
  const conditions = row.getByRole('group', { name: 'Conditions on the arguments of send_mail' });
  await conditions.getByRole('button', { name: 'Add conditions' }).click();
  await conditions.getByRole('button', { name: 'Add a condition' }).click();
  // Each recipient's properties are offered, as `recipients[].email`.
  const property = conditions.getByLabel('Property of test 1, condition 1');
  assert.deepEqual(await property.locator('option').allTextContents(), ['recipients', 'recipients[].email', 'recipients[].name', 'subject']);
  await property.selectOption('recipients[].email');
  const operator = conditions.getByLabel('Operator of test 1, condition 1');
  assert.deepEqual(await operator.locator('option').allTextContents(), ['is', 'is one of', 'starts with', 'ends with', 'matches']);
  await operator.selectOption({ label: 'ends with' });
  await conditions.getByLabel('Value of test 1, condition 1').pressSequentially('@team.test');
  await conditions.getByLabel('Level of condition 1').selectOption({ label: 'Allowed' });
  await conditions.getByRole('button', { name: 'Save conditions' }).click();
  await conditions.getByRole('status').filter({ hasText: 'Saved: Allowed when recipients[].email ends with \u201c@team.test\u201d.' }).waitFor();
  await view.close();

  // Every recipient the team's: no card. One outside it: the rule card, naming the path.
  await h.runs(chat, mail.tabId, 'send_mail', { subject: 'b', recipients: [team('ana'), team('bo')] });
  const outside = await h.asks(chat, mail.tabId, 'send_mail', { subject: 'c', recipients: [team('ana'), { email: 'eve@evil.test' }] }, 'call');
  assert.equal((await readCard(outside.card)).rule,
    'Ask first: send_mail: recipients[].email does not end with \u201c@team.test\u201d, by your rule for this tool');
  await choose(outside.card, 'Refuse');
  assert.equal(assertRefused(await outside.reply, 'send_mail'),
    'Nothing ran: you refused this call of send_mail (send_mail: recipients[].email does not end with \u201c@team.test\u201d, by the rule for the tool send_mail).');
  assert.deepEqual(await mail.page.evaluate(() => window.done), ['a to ana@team.test', 'b to ana@team.test, bo@team.test']);
  assert.equal(h.cards.pending(), false, 'no other card opened');
});

test('the conditions editor offers the operators the core takes for a property\'s types, and no other', () => {
  initSync({ module: readFileSync(new URL('../../pkg/toolgate_bg.wasm', import.meta.url)) });
  const words = JSON.parse(ruleWords());
  // A property of each type, with its types as `tool_properties` gives them.
  const properties = [
    ['to', { type: 'string' }, ['string']],
    ['amount', { type: 'number' }, ['number']],
    ['count', { type: 'integer' }, ['integer']],
    ['urgent', { type: 'boolean' }, ['boolean']],
    ['tags', { type: 'array', items: { type: 'string' } }, ['string', 'array']],
    ['sizes', { type: 'array', items: { type: 'number' } }, ['number', 'array']],
    ['either', { type: ['string', 'number'] }, ['string', 'number']],
    ['anything', {}, []],
  ];
  const schema = { type: 'object', properties: Object.fromEntries(properties.map(([path, property]) => [path, property])) };
  const site = 'https://bank.example';
  const seen = [{ name: 'transfer', area: 'transfer', kind: 'write', definition: 'sha256:t' }];
  const sample = { number: 5, boolean: true, text: 'ana' };
  const refusal = (path, op, value) => {
    try {
      coreChangeRules('{}', site, JSON.stringify([{ target: 'tool', name: 'transfer', level: 'ask_first' },
        { target: 'tool', name: 'transfer', conditions: [{ when: [{ path, op, value }], level: 'allowed' }] }]),
      JSON.stringify(seen), 'null', JSON.stringify({ transfer: schema }));
      return null;
    } catch (error) {
      return String(error?.message ?? error);
    }
  };
  let offered = 0;
  for (const [path, , types] of properties) {
    for (const op of words.operators) {
      const kind = valueKind(op.key, types);
      const value = op.key === 'is_one_of' ? [sample[kind]] : sample[kind];
      const refused = refusal(path, op.key, value);
      if (fits(op, types)) {
        offered += 1;
        assert.equal(refused, null, `${path} ${op.label} ${JSON.stringify(value)} is offered, and taken`);
      } else {
        assert.match(refused, /but the schema declares/, `${path} ${op.label} is not offered, and refused`);
      }
    }
  }
  assert.ok(offered < properties.length * words.operators.length, 'some operators are left out');
  // And a property the schema lacks, which the editor never offers, is refused.
  assert.match(refusal('amuont', 'at_most', 20), /^transfer has no property "amuont" in its schema/);
});
