// Rules that look at a call's arguments, and limits on how often
// (docs/rules.md, "Conditions on a tool's arguments", "Limits on how
// often"), end to end: a real page's `transfer({to, amount})` set apart at
// Ask first with the condition "Allowed when amount is at most 20", set
// through the worker's rule change (`self.toolgate.changeRules`, the
// settings page's `change_rules`). An agent's call of 15 runs with no card;
// 25 opens a rule card that names the condition (read in its own window,
// answered by clicking), and 30, refused on it, is told which condition
// asked; "15" as text is refused by the schema before any
// condition; a condition on a property the schema does not declare is
// refused when set. A limit of 3 calls in 1 minute: the fourth asks;
// unattended, it is refused with the wait; the audit names both, with each
// refusal and the person's answer. And an
// administrator's conditions and limits as the policy writes them
// (extension/background/policy.js's `adminBook`), read by the core.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { adminBook } from '../../extension/background/policy.js';
import { changeRules as coreChangeRules, initSync } from '../../pkg/toolgate.js';
import { NON_CONSEQUENTIAL, assertRan, assertRefused, harness } from '../support/fixture.mjs';
import { choose, readCard } from '../support/cards.mjs';

const h = harness({ pages: 'tests/pages/arg-rules', tools: 1 });

// Changes the stored rules in the worker: `site`'s, by `changes`, as the
// settings page does, or (with no site) to unattended mode, as its box
// does. Resolves once the worker's own listener has heard the rules change
// and queued their load into the core: every agent request sent after that
// meets them (extension/background/rules.js, `onRulesChanged`).
async function changeRules(site, changes = null) {
  const worker = await h.browser.worker();
  return worker.evaluate(async ([s, c]) => {
    const heard = new Promise((done) => {
      chrome.storage.onChanged.addListener(function once(stored, area) {
        if (area !== 'local' || !('rules' in stored)) return;
        chrome.storage.onChanged.removeListener(once);
        done();
      });
    });
    if (s) {
      await self.toolgate.changeRules(s, c);
    } else {
      const { rules } = await chrome.storage.local.get('rules');
      await chrome.storage.local.set({ rules: { ...rules, unattended: true } });
    }
    await heard;
  }, [site, changes]);
}

test('conditions on arguments decide a call after its schema, a rule card names the one that asked, and a limit asks past it, or refuses with the wait unattended', async () => {
  const bank = await h.open('bank.test', '/', 1);
  const site = h.server.url('bank.test', '');
  const chat = await h.chat('Bank agent');
  // Before any rule: the site question, answered as a person who lets the agent act.
  const first = await h.asks(chat, bank.tabId, 'transfer', { to: 'ana', amount: 5 }, 'site');
  await choose(first.card, NON_CONSEQUENTIAL);
  assertRan(await first.reply, 'transfer');

  const worker = await h.browser.worker();
  // What the set-apart page is offered to build a condition from: each
  // property the tool's schema declares, with its types, and its name as
  // page text is shown (`memo`'s override made visible).
  const settings = await h.browser.newPage(await worker.evaluate(() => chrome.runtime.getURL('extension/ui/options.html')));
  const offered = await settings.evaluate((s) => chrome.runtime.sendMessage({ type: 'tool_properties', site: s }), site);
  assert.deepEqual(offered, { transfer: [
    { path: 'amount', shown: 'amount', types: ['number'] },
    { path: 'memo\u202E', shown: 'memo\u27e8U+202E\u27e9', types: ['string'] },
    { path: 'to', shown: 'to', types: ['string'] },
  ] });
  // A condition on a property the schema does not declare is refused when set.
  await assert.rejects(
    worker.evaluate(([s]) => self.toolgate.changeRules(s, [
      { target: 'tool', name: 'transfer', level: 'ask_first' },
      { target: 'tool', name: 'transfer', conditions: [{ when: [{ path: 'amuont', op: 'at_most', value: 20 }], level: 'allowed' }] },
    ]), [site]),
    /transfer has no property "amuont" in its schema: a condition can only look at a property the schema declares\. Nothing was saved\./,
  );
  // Allowed when amount is at most 20, else the tool's own Ask first: the
  // tool set apart (which starts the site's rules), then its condition.
  await changeRules(site, [{ target: 'tool', name: 'transfer', level: 'ask_first' }]);
  await changeRules(site, [
    { target: 'tool', name: 'transfer', conditions: [{ when: [{ path: 'amount', op: 'at_most', value: 20 }], level: 'allowed' }] },
  ]);

  // 15: no card; the agent is told which condition let it through.
  const small = await h.runs(chat, bank.tabId, 'transfer', { to: 'ana', amount: 15 });
  assert.match(small.result._meta.toolgate.why, /, within transfer: amount is at most 20, by the condition of the tool transfer$/);

  // 25: the rule's card, naming the condition, with the arguments; clicked as a person would.
  const large = await h.asks(chat, bank.tabId, 'transfer', { to: 'ana', amount: 25 }, 'call');
  const shown = await readCard(large.card);
  assert.equal(shown.rule, 'Ask first: transfer: amount is more than 20, by your rule for this tool');
  assert.ok(shown.lines.includes(`It asks first on ${h.site('bank.test')}: transfer: amount is more than 20, by your rule for this tool. Allow once lets this call run, this once.`), shown.lines.join('\n'));
  // The arguments, folded; opened by a click.
  await large.card.locator('#rule-arguments summary').click();
  const names = await large.card.locator('#rule-argument-list dt').allInnerTexts();
  const values = await large.card.locator('#rule-argument-list dd').allInnerTexts();
  assert.deepEqual(names.map((name, i) => [name, values[i]]).sort(), [['amount', '25'], ['to', 'ana']]);
  assert.deepEqual([shown.approve, shown.deny], ['Allow once', 'Refuse']);
  await choose(large.card, 'Allow once');
  const allowed = await large.reply;
  assertRan(allowed, 'transfer');
  assert.equal(allowed.result._meta.toolgate.why, 'you allowed this call once (transfer: amount is more than 20, by the rule for the tool transfer)');
  // 30, refused on its card: the agent is told which condition asked, as after a yes.
  const refusedLarge = await h.asks(chat, bank.tabId, 'transfer', { to: 'ana', amount: 30 }, 'call');
  await choose(refusedLarge.card, 'Refuse');
  assert.equal(assertRefused(await refusedLarge.reply, 'transfer'),
    'Nothing ran: you refused this call of transfer (transfer: amount is more than 20, by the rule for the tool transfer).');

  // "15" as text: refused by the schema, before any condition or card.
  const text = await h.send(chat, h.request(bank.tabId, 'transfer', { to: 'ana', amount: '15' }));
  assert.match(h.text(text), /^invalid arguments for transfer: /);
  assert.equal(h.cards.pending(), false, 'no card for arguments the schema refuses');

  // At most 3 calls in 1 minute: three run, the fourth asks, naming the limit.
  await changeRules(site, [{ target: 'tool', name: 'transfer', limit: { calls: 3, minutes: 1 } }]);
  for (let i = 0; i < 3; i += 1) await h.runs(chat, bank.tabId, 'transfer', { to: 'bo', amount: 1 });
  const fourth = await h.asks(chat, bank.tabId, 'transfer', { to: 'bo', amount: 1 }, 'call');
  assert.equal((await readCard(fourth.card)).rule,
    'Ask first: transfer: more than 3 calls in 1 minute in this chat, by the limit for the tool transfer');
  await choose(fourth.card, 'Refuse');
  assert.equal(assertRefused(await fourth.reply, 'transfer'),
    'Nothing ran: you refused this call of transfer (transfer: more than 3 calls in 1 minute in this chat, by the limit for the tool transfer).');

  // Unattended: refused at once, with the time until the next call may run.
  await changeRules(null);
  const why = await h.refused(chat, bank.tabId, 'transfer', { to: 'bo', amount: 1 });
  assert.match(why, /^Nothing ran: transfer asks first \(transfer: more than 3 calls in 1 minute in this chat, by the limit for the tool transfer\), and no one was there to ask \(Toolgate runs unattended\); the next call may run in \d+ seconds?\.$/);

  // The audit's "What decided it" names the condition and the limit, and
  // the changes of both are the person's own entries.
  const rows = settings.locator('#audit-rows tr');
  const decided = (text) => rows.filter({ has: settings.locator('td:nth-child(6)', { hasText: text }) });
  await decided('you allowed this call once (transfer: amount is more than 20, by the rule for the tool transfer)').first().waitFor();
  await decided('within transfer: amount is at most 20, by the condition of the tool transfer').first().waitFor();
  await decided('the next call may run in').first().waitFor();
  // Each refusal on a rule's card, as the agent was told it and as the
  // person's answer, names the condition or the limit that asked.
  for (const asked of ['transfer: amount is more than 20, by the rule for the tool transfer',
    'transfer: more than 3 calls in 1 minute in this chat, by the limit for the tool transfer']) {
    await decided(`Nothing ran: you refused this call of transfer (${asked}).`).first().waitFor();
    const row = decided(`your answer on the rule card (${asked})`).first();
    await row.waitFor();
    assert.deepEqual((await row.locator('td').allTextContents()).slice(3), ['transfer', 'Answered “Refuse”', `your answer on the rule card (${asked})`]);
  }
  const what = (text) => rows.filter({ has: settings.locator('td:nth-child(5)', { hasText: text }) });
  await what('Conditions on arguments changed').first().waitFor();
  await what('Limits on how often changed').first().waitFor();
  await settings.close();

  assert.deepEqual(await bank.page.evaluate(() => window.done),
    ['5 to ana', '15 to ana', '25 to ana', '1 to bo', '1 to bo', '1 to bo']);
  assert.equal(h.cards.pending(), false, 'no other card opened');
});

test('an administrator\'s conditions and limits reach the core as the policy writes them, and the person can only narrow them', () => {
  // The policy's typed values (Chrome's policies have no untyped one) become
  // each test's value; an entry of another shape is left out, the rest kept.
  const site = 'https://bank.example';
  const admin = adminBook({ sites: { [site]: {
    tools: { transfer: 'ask_first' },
    conditions: { transfer: [
      { when: [{ path: 'amount', op: 'at_most', number: 20 }, { path: 'to', op: 'is_one_of', texts: ['ana', 'bo'] }], level: 'allowed' },
      { when: [{ path: 'amount', op: 'no such operator', number: 1 }], level: 'allowed' },
    ] },
    limits: [{ target: 'kind', kind: 'write', calls: 10, minutes: 1 }, { target: 'tool', name: 'transfer', calls: 5000, minutes: 1 }],
  } } });
  assert.deepEqual(admin.sites[site].conditions, { transfer: [
    { when: [{ path: 'amount', op: 'at_most', value: 20 }, { path: 'to', op: 'is_one_of', value: ['ana', 'bo'] }], level: 'allowed' },
  ] });
  assert.deepEqual(admin.sites[site].limits, [{ target: 'kind', kind: 'write', calls: 10, minutes: 1 }]);
  // The core takes it as the administrator's book: under it, the person may
  // give Allowed where the administrator's condition does, and is refused
  // where the administrator's level bounds a tool without one.
  initSync({ module: readFileSync(new URL('../../pkg/toolgate_bg.wasm', import.meta.url)) });
  const schema = { type: 'object', properties: { to: { type: 'string' }, amount: { type: 'number' } } };
  const seen = [{ name: 'transfer', area: 'transfer', kind: 'write', definition: 'sha256:t' }, { name: 'wire', area: 'wire', kind: 'write', definition: 'sha256:w' }];
  const allow = (name) => [{ target: 'tool', name, level: 'ask_first' },
    { target: 'tool', name, conditions: [{ when: [{ path: 'amount', op: 'at_most', value: 5 }], level: 'allowed' }] }];
  const change = (changes, bound) => JSON.parse(coreChangeRules('{}', site, JSON.stringify(changes), JSON.stringify(seen),
    JSON.stringify(bound), JSON.stringify({ transfer: schema, wire: schema })));
  assert.deepEqual(change(allow('transfer'), admin).sites[site].conditions.transfer[0].level, 'allowed');
  const tighter = adminBook({ sites: { [site]: { tools: { wire: 'ask_first' } } } });
  assert.throws(() => change(allow('wire'), tighter),
    /The condition “amount is at most 5” cannot give Allowed: Your administrator set this to Ask first; you can choose less, never more\. Nothing was saved\./);
});
