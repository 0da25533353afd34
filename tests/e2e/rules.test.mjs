// Site rules ("What agents may do", docs/rules.md) as a person sets them on
// Toolgate's settings page and an agent meets them in the agent console:
// the site card's words, "Read freely, ask before the rest", a row's level
// changed, Off hiding and refusing a tool, Ask first's own card ("Allow
// once", "Refuse", the arguments folded), a change reaching a call already
// waiting on its card, and unattended mode.
//
// Notes is served on notes.localhost: a chat there starts at read-only width
// and is never asked the site question (docs/cards.md, "Localhost"). Its
// kinds: list_notes Read, add_note Write, delete_note Delete.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { entries, launch } from '../support/browser.mjs';
import { harness } from '../support/fixture.mjs';
import { serve } from '../support/server.mjs';
import { cardWatcher } from '../support/cards.mjs';
import { openConsoleOn, result, toolButton } from '../support/console.mjs';

const h = harness({ pages: 'examples/notes', tools: 10 });

const KINDS = [
  ['Read', 'tools that only look things up'],
  ['Write', 'tools that change things on the site'],
  ['Delete', 'tools that remove things'],
  ['Outside the site', 'tools that act beyond it'],
];

async function callByName(consolePage, name, args) {
  if (!(await consolePage.locator('#by-name').getAttribute('open') !== null)) await consolePage.locator('#by-name summary').click();
  await consolePage.getByLabel('Tool name').fill(name);
  await consolePage.getByLabel('Arguments (JSON object)').fill(JSON.stringify(args));
  await consolePage.getByRole('button', { name: 'Call by name' }).click();
}

test('a site\'s rules bound every call: set on the settings page, Off hides and refuses, Ask first asks on its own card, changes reach waiting calls, unattended refuses what needs a person', async () => {
  const notes = await h.browser.newPage(h.server.url('notes.localhost', '/'));
  await h.browser.waitForPalette(notes, (p) => entries(p).length === 10, 'the Notes tools');
  const host = new URL(notes.url()).host;
  const settingsUrl = await (await h.browser.worker()).evaluate(() => chrome.runtime.getURL('extension/ui/options.html'));
  const settings = await h.browser.newPage(settingsUrl);

  // The site has been seen, and has no rules yet: its card says so and offers the two choices.
  const card = settings.getByRole('article', { name: host });
  await card.waitFor();
  await card.getByRole('heading', { name: 'What agents may do' }).waitFor();
  assert.equal(await card.locator('.note').innerText(), 'This site has no rules: agents call every tool a chat allows, without asking first.');
  // No level shows where none holds: the two answers, and apart from them a start from the defaults.
  assert.equal(await card.getByRole('combobox').count(), 0, 'no level menu on a site without rules');
  await card.getByRole('button', { name: 'Start from the defaults: Read Allowed, Write Ask first, Delete Off, Outside the site Ask first' }).waitFor();
  // "Keep it as it is" is remembered, said, audited, and can be taken back.
  await card.getByRole('button', { name: 'Keep it as it is' }).click();
  assert.equal(await settings.locator('#rules-status').innerText(), `${host} is kept as it was: no rules.`);
  await card.locator('.note', { hasText: 'Kept as it was: no rules.' }).waitFor();
  await settings.reload();
  await card.locator('.note', { hasText: 'Kept as it was: no rules.' }).waitFor();
  assert.equal(await card.getByRole('button', { name: 'Keep it as it is' }).count(), 0, 'not asked again');
  await settings.locator('#audit-rows tr', { hasText: 'Kept as it was: no rules' }).waitFor();
  await card.getByRole('button', { name: 'Choose rules for this site' }).click();
  await card.getByRole('button', { name: 'Read freely, ask before the rest' }).click();
  await card.getByRole('combobox', { name: 'Delete' }).waitFor();
  for (const [label, meaning] of KINDS) {
    const row = card.getByRole('row', { name: new RegExp(`^${label}`) });
    assert.equal(await row.locator('.meaning').innerText(), meaning);
  }
  await card.getByRole('combobox', { name: 'Delete' }).waitFor();
  // The offer's buttons are gone (each kind's limit keeps its own).
  await settings.waitForFunction(() => !document.querySelector('.site-rules .actions button, .site-rules .start-defaults button'));
  const level = (label) => card.getByRole('combobox', { name: label, exact: true });
  assert.deepStrictEqual(
    await Promise.all(KINDS.map(([label]) => level(label).evaluate((s) => s.selectedOptions[0].text))),
    ['Allowed', 'Ask first', 'Ask first', 'Ask first'],
  );
  await level('Delete').selectOption({ label: 'Off' });
  await settings.locator('#rules-status', { hasText: 'Delete' }).waitFor();
  // Every site's rules side by side.
  const overview = settings.getByRole('table', { name: 'Every site, side by side' });
  await overview.getByRole('cell', { name: 'Off' }).waitFor();
  assert.deepStrictEqual(await overview.getByRole('row', { name: new RegExp(`^${host.replace('.', '\\.')}`) }).locator('td').allInnerTexts(),
    ['Allowed', 'Ask first', 'Off', 'Ask first']);
  assert.equal(await settings.locator('#rules-status').innerText(), `Delete on ${host} is now Off. Changes reach agents from their next call.`);

  // The palette says what agents may do with each tool, and which rule says so.
  const popup = await h.browser.newPage(
    await (await h.browser.worker()).evaluate((id) => chrome.runtime.getURL(`extension/ui/palette.html?tab=${id}`), await h.browser.tabId(notes)),
  );
  await popup.getByRole('button', { name: /delete_note/ }).click();
  assert.equal(await popup.locator('#detail-agents').innerText(), 'What agents may do: Off, by the rule for Delete tools.');
  await popup.getByRole('button', { name: /add_note/ }).click();
  assert.equal(await popup.locator('#detail-agents').innerText(), 'What agents may do: Ask first, by the rule for Write tools.');
  await popup.close();

  // The agent console: Delete is Off, so delete_note is not listed and its call is refused.
  const cards = cardWatcher(h.browser.context);
  const consolePage = await openConsoleOn(h.browser, notes);
  assert.equal(await toolButton(consolePage, 'delete_note').count(), 0, 'an Off tool is not listed');
  await toolButton(consolePage, 'list_notes').waitFor();
  let results = 0;
  // Its arguments are not even looked at (these lack the required title).
  await callByName(consolePage, 'delete_note', {});
  let shown = await result(consolePage, ++results);
  assert.equal(shown.decision, 'Refused: Nothing ran: delete_note is Off on this site, by the rule for Delete tools.');

  // Read is Allowed: the chat decides, and list_notes runs at once.
  await callByName(consolePage, 'list_notes', {});
  shown = await result(consolePage, ++results);
  assert.match(shown.decision, /^Ran: /);

  // Write asks first: its own card, with two answers and the arguments folded.
  await callByName(consolePage, 'add_note', { title: 'Ruled', body: 'By a yes' });
  let ruleCard = await cards.next();
  await ruleCard.getByRole('heading', { name: 'add_note' }).waitFor();
  assert.deepStrictEqual(
    await ruleCard.locator('#lines p').allInnerTexts(),
    [`The agent wants to call \u201cadd_note\u201d on ${host}.`,
      `It asks first because of the rule for tools that change things on the site on ${host}. Allow once lets this call run, this once.`],
  );
  // The rule that asks, in plain words, beside the tool's class.
  assert.deepStrictEqual([await ruleCard.locator('#class').innerText(), await ruleCard.locator('#rule').innerText()],
    ['Mutating', 'Ask first: the rule for tools that change things on the site']);
  assert.deepStrictEqual(await ruleCard.locator('.answers button:visible').allInnerTexts(), ['Allow once', 'Refuse']);
  const folded = ruleCard.locator('#rule-arguments');
  assert.equal(await folded.getAttribute('open'), null, 'the arguments are folded');
  assert.equal(await ruleCard.locator('#rule-argument-list').isVisible(), false);
  await folded.locator('summary').click();
  assert.deepStrictEqual(await ruleCard.locator('#rule-argument-list dt').allInnerTexts(), ['body', 'title']);
  await ruleCard.getByRole('button', { name: 'Allow once', exact: true }).click().catch((error) => { if (!ruleCard.isClosed()) throw error; });
  shown = await result(consolePage, ++results);
  assert.equal(shown.decision, 'Ran: you allowed this call once');
  await notes.getByText('Ruled: By a yes').waitFor();

  // Every call asks: Refuse says nothing ran.
  await callByName(consolePage, 'add_note', { title: 'Refused', body: 'No' });
  ruleCard = await cards.next();
  await ruleCard.getByRole('button', { name: 'Refuse', exact: true }).click().catch((error) => { if (!ruleCard.isClosed()) throw error; });
  shown = await result(consolePage, ++results);
  assert.equal(shown.decision, 'Refused: Nothing ran: you refused this call of add_note.');

  // A change reaches a call already waiting on its card: Write turned Off, then Allow once.
  await callByName(consolePage, 'add_note', { title: 'Too late', body: 'Off now' });
  ruleCard = await cards.next();
  await level('Write').selectOption({ label: 'Off' });
  await settings.locator('#rules-status', { hasText: 'Write' }).waitFor();
  await ruleCard.getByRole('button', { name: 'Allow once', exact: true }).click().catch((error) => { if (!ruleCard.isClosed()) throw error; });
  shown = await result(consolePage, ++results);
  assert.equal(shown.decision, 'Refused: Nothing ran: add_note is Off on this site, by the rule for Write tools.');
  assert.equal(await notes.getByText('Too late').count(), 0);

  // Unattended: Ask first acts as Off, no card opens, and Read still runs.
  await level('Write').selectOption({ label: 'Ask first' });
  await settings.getByRole('checkbox', { name: /^Unattended/ }).check();
  await card.locator('.note', { hasText: 'Unattended' }).waitFor();
  assert.equal(await card.locator('.note').innerText(), 'Unattended: nobody is here to ask, so Ask first acts as Off on this site.');
  await callByName(consolePage, 'add_note', { title: 'Nobody', body: 'There' });
  shown = await result(consolePage, ++results);
  assert.equal(shown.decision, 'Refused: Nothing ran: add_note asks first, by the rule for Write tools, and no one was there to ask (Toolgate runs unattended).');
  await callByName(consolePage, 'list_notes', {});
  shown = await result(consolePage, ++results);
  assert.match(shown.decision, /^Ran: /);
  assert.equal(cards.pending(), false, 'no card opened unattended');

  // The audit holds the rule changes, the answers and the decisions, exported as JSON.
  await settings.locator('#audit-count', { hasText: /^[1-9]\d* entries kept\.$/ }).waitFor();
  const downloading = settings.waitForEvent('download');
  await settings.getByRole('button', { name: 'Export as JSON' }).click();
  const download = await downloading;
  assert.equal(download.suggestedFilename(), 'toolgate-audit.json');
  const audited = JSON.parse(await readFile(await download.path(), 'utf8'));
  const site = `http://${host}`;
  assert.ok(audited.some((e) => e.what === 'rule' && e.site === site && e.kind === 'delete' && e.to === 'off'), 'Delete set to Off');
  assert.ok(audited.some((e) => e.what === 'rules' && e.site === site && e.from === null), 'the site\'s rules started');
  assert.ok(audited.some((e) => e.what === 'unattended' && e.to === true), 'unattended turned on');
  assert.ok(audited.some((e) => e.what === 'answer' && JSON.stringify(e.answer) === '{"rule":"allow_once"}'), 'Allow once');
  assert.ok(audited.some((e) => e.what === 'decision' && /Nothing ran: delete_note is Off/.test(JSON.stringify(e))), 'the refusal the agent was told');
  assert.ok(audited.every((e) => Number.isFinite(e.at)), 'each entry says when');

  await consolePage.close();
  await settings.close();
  await notes.close();
});

// A rule's card waits 10 minutes (docs/rules.md, "How long a call waits").
// Its deadline is stored with the session and an alarm wakes the worker for
// it, so it holds when the worker stops. The test cannot wait 10 minutes:
// it moves the stored deadline into the past (what the core reads), then
// lets the worker stop and start again as Chromium does.
test('a rule\'s card that nobody answers closes after its 10 minutes, even across a worker stop, and the agent is told no', async () => {
  const notes = await h.browser.newPage(h.server.url('notes.localhost', '/?deadline'));
  await h.browser.waitForPalette(notes, (p) => entries(p).length === 10, 'the Notes tools');
  const site = new URL(notes.url()).origin;
  let sw = await h.browser.worker();
  await sw.evaluate((s) => chrome.storage.local.set({ rules: { sites: { [s]: { read: 'allowed', write: 'ask_first', delete: 'off', outside: 'ask_first' } }, unattended: false } }), site);
  const cards = cardWatcher(h.browser.context);
  const consolePage = await openConsoleOn(h.browser, notes);
  const asked = Date.now();
  await callByName(consolePage, 'add_note', { title: 'Unanswered', body: 'For ten minutes' });
  const card = await cards.next();
  const alarm = await sw.evaluate(() => chrome.alarms.get('toolgate:card-deadline'));
  assert.ok(alarm, 'an alarm for the card\'s deadline');
  const TEN_MINUTES = 10 * 60 * 1000;
  assert.ok(alarm.scheduledTime >= asked + TEN_MINUTES && alarm.scheduledTime <= Date.now() + TEN_MINUTES, JSON.stringify(alarm));

  // Ten minutes pass: the stored deadline moves into the past, and the worker
  // stops. First the card's window is on record, so no later write of the
  // session undoes the move.
  await sw.evaluate(async () => {
    for (;;) {
      const { session } = await chrome.storage.session.get('session');
      if (Object.values(JSON.parse(session).pending).some((p) => p.deadline_ms && p.window_id != null)) return;
      await new Promise((done) => setTimeout(done, 20));
    }
  });
  await sw.evaluate(async () => {
    const { session } = await chrome.storage.session.get('session');
    const stored = JSON.parse(session);
    for (const pending of Object.values(stored.pending)) if (pending.deadline_ms) pending.deadline_ms = Date.now() - 1;
    await chrome.storage.session.set({ session: JSON.stringify(stored) });
  });
  // The card may close as soon as a worker starts again, which the console
  // sending its request again may do before startWorker returns: wait from now.
  const closed = card.waitForEvent('close', { timeout: 20_000 });
  await h.browser.stopWorker();
  sw = await h.browser.startWorker();
  await closed;
  const shown = await result(consolePage, 1);
  assert.equal(shown.decision, 'Refused: Nothing ran: no one answered within 10 minutes, so the card closed. You can ask again.');
  assert.equal(await sw.evaluate(() => chrome.alarms.get('toolgate:card-deadline')), undefined, 'no deadline is left');
  assert.equal(await notes.getByText('Unanswered').count(), 0);

  await consolePage.close();
  await notes.close();
});

// A tab loaded before Toolgate was installed carries no shim: no rule holds
// there. The site's card names it and offers to reload it.
test('a site\'s card names the tabs loaded before Toolgate, which no rule holds, and reloads them', async () => {
  const fresh = await launch({ extension: false });
  try {
    // Same site; a page that runs no script (without Toolgate it has no WebMCP to use).
    const old = await fresh.newPage(h.server.url('notes.localhost', '/notes.js?old'));
    const sw = await fresh.loadExtension();
    // A second tab of the site, loaded with Toolgate: its tools are seen.
    const seen = await fresh.newPage(h.server.url('notes.localhost', '/?new'));
    await fresh.waitForPalette(seen, (p) => entries(p).length === 10, 'the Notes tools');
    const host = new URL(seen.url()).host;
    const settings = await fresh.newPage(await sw.evaluate(() => chrome.runtime.getURL('extension/ui/options.html')));
    const card = settings.getByRole('article', { name: host });
    await card.locator('.unheld').waitFor();
    assert.equal(await card.locator('.unheld .note').innerText(), 'Loaded before Toolgate was installed or updated, so no rule holds there until reloaded:');
    // Named by its title, or else its address.
    assert.deepStrictEqual(await card.locator('.unheld li').allInnerTexts(), [(await old.title()) || old.url().replace(/^http:\/\//, '')]);
    await card.getByRole('button', { name: 'Reload this tab' }).click();
    await settings.locator('#rules-status', { hasText: 'Reloaded the tab' }).waitFor();
    await fresh.waitForPalette(old, (p) => p.page === 'shimmed', 'Toolgate in the reloaded tab');
    await settings.reload();
    await card.getByRole('heading', { name: 'What agents may do' }).waitFor();
    assert.equal(await card.locator('.unheld').count(), 0, 'no tab is left unheld');
  } finally {
    await fresh.close();
  }
});

// "Set areas and tools apart" (docs/rules.md): a site's areas (a tool's first
// tag, or its name before the first ".") with their tools, found and
// filtered as you type, each set apart from its menu and put back; a tool's
// own level first, then its area's, then its kind's, as agents meet them.
test('areas and tools set apart: listed by area, found and filtered, set and put back, and held to every agent', async () => {
  const pagesServer = await serve('tests/pages/rules');
  try {
    const page = await h.browser.newPage(pagesServer.url('rules.localhost', '/'));
    await h.browser.waitForPalette(page, (p) => entries(p).length === 5, 'the five tools');
    const host = new URL(page.url()).host;
    const settings = await h.browser.newPage(await (await h.browser.worker()).evaluate(() => chrome.runtime.getURL('extension/ui/options.html')));
    await settings.getByRole('article', { name: host }).getByRole('link', { name: 'Set areas and tools apart' }).click();
    await settings.getByRole('heading', { name: `Set areas and tools apart on ${host}` }).waitFor();
    const areaButton = (name) => settings.locator('.area-row button', { hasText: new RegExp(`^${name.replace('.', '\\.')}$`) });
    await areaButton('billing').waitFor();
    assert.deepStrictEqual(await settings.locator('.area-row button').allInnerTexts(), ['billing', 'notes']);
    assert.deepStrictEqual(await settings.locator('.area-row .count').allInnerTexts(),
      ['3 tools (Outside the site, Delete, Read)', '2 tools (Write, Read)']);
    assert.equal(await settings.locator('#shown').innerText(), '5 of 5 tools shown.');

    // Find: only matching tools, their areas opened.
    await settings.getByLabel('Find a tool or area').fill('refund');
    await settings.locator('#shown', { hasText: '1 of 5 tools shown.' }).waitFor();
    assert.equal(await areaButton('notes').isVisible(), false);
    assert.equal(await settings.getByRole('combobox', { name: 'What agents may do with billing.refund' }).isVisible(), true);
    // The Kind filter.
    await settings.getByLabel('Find a tool or area').fill('');
    await settings.getByLabel('Kind').selectOption({ label: 'Read' });
    await settings.locator('#shown', { hasText: '2 of 5 tools shown.' }).waitFor();
    await settings.getByLabel('Kind').selectOption({ label: 'Every kind' });

    // Set apart: billing.refund (Delete, Off by its kind) Allowed; the notes area Off.
    // Before any rule: what the tools may do is said without opening a menu.
    assert.deepStrictEqual(await settings.locator('.area-row .holds').allInnerTexts(),
      ['No rules: what a chat allows', 'No rules: what a chat allows']);
    // The site has no rules yet: each level says, in the menu itself, that it starts them.
    const refund = settings.getByRole('combobox', { name: 'What agents may do with billing.refund' });
    assert.deepStrictEqual(await refund.evaluate((s) => [...s.options].map((o) => o.text)), ['As its area and kind',
      "Allowed, and start this site's rules from the defaults", "Ask first, and start this site's rules from the defaults",
      "Off, and start this site's rules from the defaults"]);
    await refund.selectOption({ label: "Allowed, and start this site's rules from the defaults" });
    const notesArea = settings.getByRole('combobox', { name: 'What the tools of notes may do' });
    await notesArea.locator('option', { hasText: /^Off$/ }).waitFor({ state: 'attached' });
    await notesArea.selectOption({ label: 'Off' });
    // Each tool says what it may do now and which rule says so; what is set apart is marked.
    const toolRow = (name) => settings.locator('li.tool', { has: settings.locator('code', { hasText: new RegExp(`^${name.replace('.', '\\.')}$`) }) });
    await toolRow('notes.edit').locator('.holds', { hasText: 'Off, by the area notes' }).waitFor({ state: 'attached' });
    const holds = async (name) => toolRow(name).locator('.holds').textContent();
    assert.deepStrictEqual(await Promise.all(['billing.refund', 'billing.charge', 'export_all', 'notes.list', 'notes.edit'].map(holds)), [
      'Allowed, set apart', 'Ask first, by the rule for Outside the site tools', 'Allowed, by the rule for Read tools',
      'Off, by the area notes', 'Off, by the area notes',
    ]);
    assert.deepStrictEqual(await settings.locator('.area-row .holds').allInnerTexts(),
      ['What they may do: 2 Allowed, 1 Ask first', 'What they may do: 2 Off']);
    assert.equal(await toolRow('billing.refund').locator('.apart').isHidden(), false, 'billing.refund is marked set apart');
    assert.equal(await toolRow('billing.charge').locator('.apart').isHidden(), true);
    assert.deepStrictEqual(await settings.locator('.area-row > .apart').evaluateAll((spans) => spans.map((s) => s.hidden)), [true, false]);
    await settings.getByLabel('Only what\'s set apart').check();
    await settings.locator('#shown', { hasText: '3 of 5 tools shown.' }).waitFor();
    const stored = await (await h.browser.worker()).evaluate(async (site) => (await chrome.storage.local.get('rules')).rules.sites[site], `http://${host}`);
    assert.deepStrictEqual([stored.tools, stored.areas, stored.delete], [{ 'billing.refund': 'allowed' }, { notes: 'off' }, 'off']);

    // An agent meets them: the notes area is not listed, billing.refund is.
    const consolePage = await openConsoleOn(h.browser, page, 'Billing and notes');
    assert.deepStrictEqual((await consolePage.locator('#tools button .name').allInnerTexts()).map((t) => t.replace(/\s.*$/, '')).sort(),
      ['billing.charge', 'billing.refund', 'export_all']);
    await callByName(consolePage, 'notes.list', {});
    const shown = await result(consolePage, 1);
    assert.equal(shown.decision, 'Refused: Nothing ran: notes.list is Off on this site, by the rule for the area notes.');

    // Put back: "As its kinds".
    await settings.getByRole('combobox', { name: 'What the tools of notes may do' }).selectOption({ label: 'As its kinds' });
    await settings.locator('#shown', { hasText: '1 of 5 tools shown.' }).waitFor();
    await callByName(consolePage, 'notes.list', {});
    assert.match((await result(consolePage, 2)).decision, /^Ran: /);

    await consolePage.close();
    await settings.close();
    await page.close();
  } finally {
    await pagesServer.close();
  }
});

// With 500 tools on a site, finding filters the list built once: typing
// hides rows, and builds nothing again (no timing is judged here; the same
// nodes stay, whatever the machine's speed).
test('Set areas and tools apart with 500 tools filters as you type without building the list again', async () => {
  const pagesServer = await serve('tests/pages/rules');
  try {
    const page = await h.browser.newPage(pagesServer.url('many.localhost', '/many.html'));
    await h.browser.waitForPalette(page, (p) => entries(p).length === 500, 'the 500 tools');
    const site = new URL(page.url()).origin;
    const view = await h.browser.newPage(await (await h.browser.worker()).evaluate((s) => chrome.runtime.getURL(`extension/ui/set-apart.html?site=${encodeURIComponent(s)}`), site));
    await view.locator('#shown', { hasText: '500 of 500 tools shown.' }).waitFor();
    assert.equal(await view.locator('.area').count(), 50);
    await view.evaluate(() => { for (const row of document.querySelectorAll('li.tool')) row.marked = true; });
    await view.getByLabel('Find a tool or area').pressSequentially('tool-49', { delay: 10 });
    // tool-49, tool-490 … tool-499.
    await view.locator('#shown', { hasText: '11 of 500 tools shown.' }).waitFor();
    assert.equal(await view.evaluate(() => [...document.querySelectorAll('li.tool')].every((row) => row.marked)), true, 'the same rows, hidden or shown');
    assert.equal(await view.locator('li.tool').count(), 500);
    assert.equal(await view.locator('li.tool:visible').count(), 11);
    // The Kind filter with it: Read tools are the even ones.
    await view.getByLabel('Kind').selectOption({ label: 'Read' });
    await view.locator('#shown', { hasText: '5 of 500 tools shown.' }).waitFor();
    await view.close();
    await page.close();
  } finally {
    await pagesServer.close();
  }
});

// A chat opened Read only may call Read tools alone, whatever a rule says:
// where a rule would ask first, its call of a Write tool is refused with the
// reason, and no card asks a person about a call that could not run.
test('a chat opened Read only is refused a tool a rule would ask first about, and no card opens', async () => {
  const { page, tabId } = await h.open('read-only-chat.localhost');
  const site = new URL(page.url()).origin;
  const sw = await h.browser.worker();
  const setRules = (sites) => sw.evaluate(async ([s, rules]) => {
    const { rules: book = { sites: {} } } = await chrome.storage.local.get('rules');
    if (rules) book.sites[s] = rules;
    else delete book.sites[s];
    await chrome.storage.local.set({ rules: book });
  }, [site, sites]);
  await setRules({ read: 'allowed', write: 'ask_first', delete: 'off', outside: 'ask_first' });
  try {
    // The rules hold once delete_note (Off) is no longer listed to a chat.
    const chat = await h.chat();
    const listed = async () => (await h.send(chat, h.listRequest(tabId))).result.structuredContent.tools.map((t) => t.name);
    for (let tries = 0; (await listed()).includes('delete_note'); tries += 1) {
      assert.ok(tries < 500, 'the rules reached the worker');
    }
    const readOnly = 'read-only-chat';
    await sw.evaluate((c) => self.toolgate.openChat(c, { label: 'A Read only chat', readOnly: true }), readOnly);
    const got = await h.start(readOnly, h.request(tabId, 'add_note', { title: 'x', body: 'y' }));
    assert.equal(got.card, undefined, 'no card opens');
    assert.equal(got.reply.result.isError, true);
    assert.equal(h.text(got.reply), 'Nothing ran: this chat was opened Read only, and add_note is not a Read tool.');
    assert.equal(await page.evaluate(() => document.querySelector('#notes').innerText.includes('x: y')), false, 'the page saw nothing');
  } finally {
    await setRules(null);
    await page.close();
  }
});
