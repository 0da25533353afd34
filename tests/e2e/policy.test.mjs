// An administrator's policy (docs/rules.md, "Who can change the rules"): a
// machine policy for Toolgate's managed storage, installed where Debian's
// Chromium reads it, before the browser starts. The person's rules can only
// be narrower than the administrator's: the settings page shows what the
// administrator fixed and why a level cannot be chosen, the worker refuses a
// wider change however it is sent, and agents are held to the narrower rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BROWSER_ROOT, TOOLGATE_ID, entries, launch } from '../support/browser.mjs';
import { serve } from '../support/server.mjs';
import { openConsoleOn, result, toolButton } from '../support/console.mjs';
import { callAnswering, callRequest, listRequest, openChat, send, start } from '../../lib/agent.mjs';
import { cardWatcher, choose } from '../../lib/cards.mjs';
import { readCard } from '../support/cards.mjs';

// Machine policy goes where the browser reads it: the Debian 13 root's /etc
// for 156's wrapper (tests/support/chromium-156.sh), else this machine's.
const POLICY_DIR = `${BROWSER_ROOT}/etc/chromium/policies/managed`;
// The small agent extension of extensions.test.mjs, which the policy lets connect.
const AGENT = resolve(fileURLToPath(new URL('../extensions/agent', import.meta.url)));
const AGENT_ID = 'nmeomknpmlcengjjbaffcbddngkbmmpf';
const POLICY_FILE = `${POLICY_DIR}/toolgate-e2e-policy.json`;
const SKIP = process.getuid?.() !== 0 ? `installing a machine policy (${POLICY_DIR}) needs root` : false;

test('an administrator\'s policy bounds the person\'s rules: shown on the settings page, a wider change refused, agents held to it', { skip: SKIP }, async () => {
  const server = await serve('examples/notes');
  const site = new URL(server.url('notes.localhost', '/')).origin;
  await mkdir(POLICY_DIR, { recursive: true });
  await writeFile(POLICY_FILE, JSON.stringify({
    '3rdparty': { extensions: { [TOOLGATE_ID]: {
      sites: { [site]: { write: 'ask_first', delete: 'off', tools: { list_notes: 'ask_first' }, areas: { add_note: 'off' } } },
      agentExtensions: [{ id: AGENT_ID, label: 'Policy agent' }],
    } } },
  }));
  let browser;
  try {
    browser = await launch({ alsoLoad: [AGENT] });
    const notes = await browser.newPage(`${site}/`);
    await browser.waitForPalette(notes, (p) => entries(p).length === 10, 'the Notes tools');
    const host = new URL(site).host;
    const settings = await browser.newPage(await (await browser.worker()).evaluate(() => chrome.runtime.getURL('extension/ui/options.html')));
    await settings.locator('#managed', { hasText: 'Your administrator manages Toolgate' }).waitFor();
    const card = settings.getByRole('article', { name: host });
    const level = (label) => card.getByRole('combobox', { name: label, exact: true });
    await level('Delete').waitFor();
    const disabled = (label) => level(label).evaluate((s) => [...s.options].filter((o) => o.disabled).map((o) => o.text));
    assert.deepStrictEqual(await disabled('Delete'), ['Allowed', 'Ask first']);
    assert.deepStrictEqual(await disabled('Write'), ['Allowed']);
    assert.deepStrictEqual(await disabled('Outside the site'), ['Allowed']);
    assert.deepStrictEqual(await disabled('Read'), []);
    // The core's words (src/views/rule_words.rs), the same a refused change gives, without "Nothing was saved."
    assert.equal((await card.locator('.why').first().innerText()).trim(), 'Your administrator set this to Ask first; you can choose less, never more.');
    assert.match((await card.locator('.why').nth(1).innerText()).trim(), /^Letting agents delete or act outside the site without asking is for your administrator to decide: Delete, Outside the site, an area, or a tool of those kinds cannot be set to Allowed\.$/);

    // The set-apart page greys out, with why, what is wider than the
    // administrator's level for the same tool or area, as well as what is theirs alone.
    const apart = await browser.newPage(`chrome-extension://${TOOLGATE_ID}/extension/ui/set-apart.html?site=${encodeURIComponent(site)}`);
    await apart.locator('.area-row button', { hasText: /^list_notes$/ }).click();
    const greyed = (name) => apart.getByRole('combobox', { name, exact: true })
      .evaluate((s) => [[...s.options].filter((o) => o.disabled).map((o) => o.value), s.title]);
    assert.deepStrictEqual(await greyed('What agents may do with list_notes'),
      [['allowed'], 'Your administrator set this to Ask first; you can choose less, never more.']);
    const [areaGreyed, areaWhy] = await greyed('What the tools of add_note may do');
    assert.deepStrictEqual(areaGreyed, ['allowed', 'ask_first']);
    assert.match(areaWhy, /^Letting agents delete or act outside the site without asking is for your administrator to decide.* Your administrator set this to Off; you can choose less, never more\.$/);
    // A Write tool the policy does not name: nothing greyed (its area's Off
    // holds over it all the same, and the page says so beside it).
    await apart.locator('.area-row button', { hasText: /^add_note$/ }).click();
    assert.deepStrictEqual(await greyed('What agents may do with add_note'), [[], '']);
    await apart.locator('li.tool .holds', { hasText: "Off, by your administrator's rule for the area add_note" }).waitFor();
    await apart.close();

    // A wider change is refused by the worker too, however it is sent, and nothing is saved.
    const refused = await settings.evaluate((s) => chrome.runtime.sendMessage({
      type: 'change_rules', site: s, changes: [{ target: 'kind', kind: 'delete', level: 'allowed' }],
    }), site);
    assert.match(refused.error, /^Letting agents delete or act outside the site without asking is for your administrator to decide/);
    const widerWrite = await settings.evaluate((s) => chrome.runtime.sendMessage({
      type: 'change_rules', site: s, changes: [{ target: 'kind', kind: 'write', level: 'allowed' }],
    }), site);
    assert.equal(widerWrite.error, 'Your administrator set this to Ask first; you can choose less, never more. Nothing was saved.');
    assert.equal(await settings.evaluate(async () => (await chrome.storage.local.get('rules')).rules), undefined, 'nothing saved');

    // Agents are held to the administrator's rules: delete_note is Off.
    const consolePage = await openConsoleOn(browser, notes);
    assert.equal(await toolButton(consolePage, 'delete_note').count(), 0, 'an Off tool is not listed');
    await consolePage.locator('#by-name summary').click();
    await consolePage.getByLabel('Tool name').fill('delete_note');
    await consolePage.getByLabel('Arguments (JSON object)').fill('{}');
    await consolePage.getByRole('button', { name: 'Call by name' }).click();
    assert.equal((await result(consolePage, 1)).decision, "Refused: Nothing ran: delete_note is Off on this site, by the administrator's rule for Delete tools.");
    // The agent extension the policy names may connect, as a chat named after it; the page says who allowed it.
    const isAgent = (sw) => sw.url().startsWith(`chrome-extension://${AGENT_ID}/`);
    const agentSw = browser.context.serviceWorkers().find(isAgent) ?? await browser.context.waitForEvent('serviceworker', { predicate: isAgent });
    const tabs = await agentSw.evaluate(() => self.agent.request({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'browser_list_tabs', arguments: {} } }));
    assert.ok(tabs.result?.structuredContent?.tabs?.length >= 1, JSON.stringify(tabs));
    await settings.reload();
    await settings.locator('#allowed', { hasText: 'Policy agent' }).waitFor();
    assert.match(await settings.locator('#allowed').innerText(), /allowed by your administrator/);
    assert.equal(await settings.getByRole('button', { name: 'Remove Policy agent' }).count(), 0, 'the person cannot remove it');
  } finally {
    await rm(POLICY_FILE, { force: true });
    await browser?.close();
    await server.close();
  }
});

// The policy at a start (ARCHITECTURE.md): the worker starts from the last
// policy it read, kept in its storage, since Chromium gives the managed
// storage only some 3 s after the browser starts. A policy the administrator
// tightened while the browser was closed still holds from the first call:
// a call decided under the old one that would run before Chromium gives the
// new one is refused, and one decided after is refused by the new rule.
test('a policy tightened while the browser was closed holds from the first call after the start', { skip: SKIP }, async () => {
  const server = await serve('examples/notes');
  const site = new URL(server.url('notes.localhost', '/')).origin;
  const profile = await mkdtemp(join(tmpdir(), 'toolgate-policy-'));
  const install = (rules) => writeFile(POLICY_FILE, JSON.stringify({ '3rdparty': { extensions: { [TOOLGATE_ID]: { sites: { [site]: rules } } } } }));
  // The policy the worker keeps, once it equals `rules`.
  const kept = (worker, rules) => worker.evaluate(([key, want]) => new Promise((done) => {
    const check = async () => {
      const { [key]: last } = await chrome.storage.local.get(key);
      const levels = Object.values(last?.sites ?? {}).map((rules) => Object.entries(rules).sort().join());
      if (levels.join(';') === Object.entries(want).sort().join()) done(last);
    };
    chrome.storage.onChanged.addListener(check);
    check();
  }), ['policy_last_read', rules]);
  await mkdir(POLICY_DIR, { recursive: true });
  let browser;
  try {
    await install({ write: 'ask_first' });
    browser = await launch({ profile });
    await kept(await browser.worker(), { write: 'ask_first' });
    await browser.close();

    // Tightened while the browser was closed: Delete is Off.
    await install({ write: 'ask_first', delete: 'off' });
    browser = await launch({ profile });
    const worker = await browser.worker();
    const notes = await browser.newPage(`${site}/`);
    await browser.waitForPalette(notes, (p) => entries(p).some((e) => e.name === 'delete_note'), 'delete_note');
    const tabId = await browser.tabId(notes);
    await openChat(worker, 'admin-test', 'Policy test');
    const { reply } = await callAnswering(worker, cardWatcher(browser.context), 'admin-test',
      callRequest(1, tabId, 'delete_note', { title: 'Old draft' }), ['Allow this call only']);
    const said = reply.result?.content?.[0]?.text ?? JSON.stringify(reply);
    assert.ok(/delete_note is Off on this site, by the administrator's rule for Delete tools|the administrator's policy changed as Toolgate started/.test(said), said);
    assert.equal(reply.result.isError, true);
    await notes.locator('#notes', { hasText: 'Old draft' }).waitFor();
    // The new policy is now the one kept: the next start begins from it.
    await kept(worker, { write: 'ask_first', delete: 'off' });
  } finally {
    await rm(POLICY_FILE, { force: true });
    await browser?.close();
    await rm(profile, { recursive: true, force: true });
    await server.close();
  }
});

// The administrator's conditions and limits (docs/rules.md, "Who can change
// the rules"), as a machine policy writes them: Chromium must take them by
// managed-schema.json, and the core must hold calls to them. add_note asks
// first, by the administrator's level for it, except with a title starting
// "Groceries", which their condition allows; and at most once a minute in a chat.
test('an administrator\'s conditions and limits, from a real policy, decide agents\' calls', { skip: SKIP }, async () => {
  const server = await serve('examples/notes');
  const site = new URL(server.url('notes.localhost', '/')).origin;
  const host = new URL(site).host;
  await mkdir(POLICY_DIR, { recursive: true });
  await writeFile(POLICY_FILE, JSON.stringify({ '3rdparty': { extensions: { [TOOLGATE_ID]: { sites: { [site]: {
    write: 'ask_first',
    tools: { add_note: 'ask_first' },
    conditions: { add_note: [{ when: [{ path: 'title', op: 'starts_with', text: 'Groceries' }], level: 'allowed' }] },
    limits: [{ target: 'tool', name: 'add_note', calls: 1, minutes: 1 }],
  } } } } } }));
  let browser;
  try {
    browser = await launch();
    const worker = await browser.worker();
    // Chromium gives the managed storage some 3 s after the start; a call
    // decided before it is refused (the test above). Once the worker keeps
    // it, Chromium has taken the conditions and limits by managed-schema.json.
    const kept = await worker.evaluate((s) => new Promise((done) => {
      const check = async () => {
        const { policy_last_read: last } = await chrome.storage.local.get('policy_last_read');
        if (last?.sites?.[s]) done(last.sites[s]);
      };
      chrome.storage.onChanged.addListener(check);
      check();
    }), site);
    assert.deepEqual([kept.conditions?.add_note?.[0]?.when, kept.limits], [
      [{ path: 'title', op: 'starts_with', text: 'Groceries' }], [{ target: 'tool', name: 'add_note', calls: 1, minutes: 1 }],
    ]);
    const cards = cardWatcher(browser.context);
    const notes = await browser.newPage(`${site}/`);
    await browser.waitForPalette(notes, (p) => entries(p).some((e) => e.name === 'add_note'), 'add_note');
    const tabId = await browser.tabId(notes);
    await openChat(worker, 'admin-conditions', 'Policy conditions');
    const said = (reply) => reply.result?.content?.[0]?.text ?? JSON.stringify(reply);

    // A title the administrator's condition allows: the chat's own answer decides it (its site question).
    const groceries = await callAnswering(worker, cards, 'admin-conditions',
      callRequest(1, tabId, 'add_note', { title: 'Groceries: milk', body: '2 l' }), ['Allow this call only']);
    assert.equal(groceries.reply.result?.isError, false, said(groceries.reply));
    assert.match(groceries.reply.result._meta.toolgate.why, /, within add_note: title starts with “Groceries”, by the administrator's condition of the tool add_note$/);
    await notes.locator('#notes', { hasText: 'Groceries: milk' }).waitFor();

    // Another title: none of the administrator's conditions holds, so Write's Ask first does, on a rule card that says why.
    const bills = await start(worker, cards, 'admin-conditions', callRequest(2, tabId, 'add_note', { title: 'Bills', body: 'due' }));
    if (!bills.card) assert.fail(`a rule card, got ${said(await bills.reply)}`);
    const shown = await readCard(bills.card);
    assert.ok(shown.lines.some((line) => line.startsWith(`It asks first on ${host}: add_note: title does not start with “Groceries”, by your administrator's rule for this tool.`)), shown.lines.join('\n'));
    await choose(bills.card, 'Refuse');
    const refused = await bills.reply;
    assert.equal(refused.result?.isError, true, said(refused));

    // Past the administrator's limit, even a title the condition allows asks first.
    const again = await start(worker, cards, 'admin-conditions', callRequest(3, tabId, 'add_note', { title: 'Groceries: eggs', body: '6' }));
    if (!again.card) assert.fail(`a rule card, got ${said(await again.reply)}`);
    const limited = await readCard(again.card);
    assert.ok(limited.lines.some((line) => line.includes('more than 1 call in 1 minute in this chat, by your administrator\'s limit for the tool add_note')), limited.lines.join('\n'));
    await choose(again.card, 'Refuse');
    assert.equal((await again.reply).result?.isError, true);
    assert.deepEqual(await notes.locator('#notes li').allInnerTexts().then((items) => items.filter((t) => /Bills|eggs/.test(t))), [], 'neither refused call ran');
  } finally {
    await rm(POLICY_FILE, { force: true });
    await browser?.close();
    await server.close();
  }
});

// The administrator's rule for tools registered by other sites' scripts, for
// every site (docs/rules.md, "Tools registered by other sites' scripts"), as a
// machine policy writes it: Chromium must take it by managed-schema.json; the
// third party's tools on a shop's page are then left out of agents' listings
// and refused, naming the administrator, while the shop's own run; the
// settings page greys every level wider than Off.
test("an administrator's Off for other sites' scripts, on every site, hides and refuses a third party's tools", { skip: SKIP }, async () => {
  const server = await serve('tests/pages/provenance');
  const site = new URL(server.url('shop.localhost', '/')).origin;
  await mkdir(POLICY_DIR, { recursive: true });
  await writeFile(POLICY_FILE, JSON.stringify({ '3rdparty': { extensions: { [TOOLGATE_ID]: { otherSitesScripts: 'off' } } } }));
  let browser;
  try {
    browser = await launch();
    const worker = await browser.worker();
    // Once the worker keeps the policy, Chromium has taken it by the schema.
    await worker.evaluate(() => new Promise((done) => {
      const check = async () => {
        const { policy_last_read: last } = await chrome.storage.local.get('policy_last_read');
        if (last?.otherSitesScripts === 'off') done();
      };
      chrome.storage.onChanged.addListener(check);
      check();
    }));
    const shop = await browser.newPage(`${site}/index.html`);
    await browser.waitForPalette(shop, (p) => entries(p).length === 4, "the shop's and the third party's tools");
    const tabId = await browser.tabId(shop);
    await openChat(worker, 'admin-scripts', 'Policy scripts');
    const said = (reply) => reply.result?.content?.[0]?.text ?? JSON.stringify(reply);
    const listed = await send(worker, 'admin-scripts', listRequest(1, tabId));
    assert.deepEqual(listed.result.structuredContent.tools.map((t) => t.name), ['own_search', 'own_order']);
    const refused = await send(worker, 'admin-scripts', callRequest(2, tabId, 'ad_offers'));
    assert.equal(refused.result?.isError, true, said(refused));
    assert.match(said(refused), /^Nothing ran: ad_offers on shop\.localhost:\d+ was registered by a script from cdn\.localhost:\d+, and tools registered by other sites' scripts are Off on this site, by the administrator's rule for tools registered by other sites' scripts\.$/);
    // The shop's own Read only tool is the chat's to decide, as without the rule.
    const own = await callAnswering(worker, cardWatcher(browser.context), 'admin-scripts',
      callRequest(3, tabId, 'own_search'), ['Allow this call only']);
    assert.equal(own.reply.result?.isError, false, said(own.reply));

    const settings = await browser.newPage(`chrome-extension://${TOOLGATE_ID}/extension/ui/options.html`);
    const card = settings.getByRole('article', { name: new URL(site).host });
    // A site the person set no rules for shows its card with a way to start.
    await card.getByRole('button', { name: /^Start from the defaults/ }).click();
    const level = card.getByRole('combobox', { name: "Other sites' scripts", exact: true });
    assert.equal(await level.inputValue(), 'off');
    assert.deepStrictEqual(await level.evaluate((s) => [...s.options].filter((o) => o.disabled).map((o) => o.text)), ['Allowed', 'Ask first']);
  } finally {
    await rm(POLICY_FILE, { force: true });
    await browser?.close();
    await server.close();
  }
});
