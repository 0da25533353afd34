// The agent console (the side panel's page), driven as a person drives it:
// pick the Notes tab, list its tools, call them through the generated forms,
// answer the per-call card, and see results and Toolgate's decisions. The
// console page is opened in a tab of its own; it is the same page the side
// panel shows.
//
// Notes is served on notes.localhost: a chat starts at read-only width there
// and is never asked the site question (docs/cards.md, "Localhost"), so Read
// only tools run at once and Mutating ones ask the per-call card.
// tests/pages/console has a slow tool (for re-sends that come while a call
// runs), one name on two sites, and a schema with every kind of field.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { entries, launch } from '../support/browser.mjs';
import { serve } from '../support/server.mjs';
import { harness } from '../support/fixture.mjs';
import { isCard } from '../support/cards.mjs';
import { latest, openConsoleOn, result, toolButton } from '../support/console.mjs';

const WAITING = 'Waiting for your answer on the Toolgate card…';

describe('the agent console', () => {
  const h = harness({ pages: 'examples/notes', tools: 10 });
  let pages;
  let n = 0;
  let site;

  before(async () => {
    pages = await serve('tests/pages/console');
    site = new URL(h.server.url('notes.localhost')).host;
  });
  after(() => pages?.close());

  // A Notes tab of its own (tabs are found by URL), once its tools are registered.
  async function openNotes() {
    const page = await h.browser.newPage(h.server.url('notes.localhost', `/?${++n}`));
    await h.browser.waitForPalette(page, (p) => entries(p).length === 10, 'the Notes tools');
    return page;
  }

  // A page with one slow Mutating tool (tests/pages/console).
  async function openSlow() {
    const page = await h.browser.newPage(pages.url('slow.localhost', `/?${++n}`));
    await h.browser.waitForPalette(page, (p) => entries(p).length === 1, 'the slow tool');
    return page;
  }

  const openConsole = (tab, title = 'Notes') => openConsoleOn(h.browser, tab, title);

  // Counts card windows opened from now on.
  function watchCards() {
    const cards = [];
    const onPage = (page) => { if (isCard(page)) cards.push(page); };
    h.browser.context.on('page', onPage);
    return { cards, stop: () => h.browser.context.off('page', onPage) };
  }

  test('lists tools with badges, runs, asks, refuses, and never calls a skill', async () => {
    const notes = await openNotes();
    const page = await openConsole(notes);
    let results = 0;

    // The listing: every class's badge, and the skill.
    const badges = async (name) => toolButton(page, name).locator('.badge').innerText();
    assert.equal(await badges('list_notes'), 'Read only');
    assert.equal(await badges('add_note'), 'Mutating');
    assert.equal(await badges('delete_note'), 'Consequential');
    assert.equal(await badges('notes_house_style'), 'Skill');
    assert.equal(await page.locator('#tools h3').innerText(), site);
    assert.equal(await page.locator('#tools button').count(), 10);

    // list_notes is Read only: it runs at once, no card.
    const watch = watchCards();
    await toolButton(page, 'list_notes').click();
    assert.equal(await page.locator('#tool-name').innerText(), 'List Notes (list_notes)');
    assert.equal(await page.locator('#tool-description').innerText(), 'List every note, title and text.');
    assert.equal(await page.locator('#fields').innerText(), 'This tool takes no arguments.');
    await page.getByRole('button', { name: 'Call list_notes' }).click();
    let shown = await result(page, ++results);
    assert.equal(shown.decision, `Ran: Read only tools on ${site} are allowed in this chat`);
    assert.match(shown.output, /"title": "Shopping"/);
    assert.equal(shown.error, null);
    assert.equal(watch.cards.length, 0, 'a Read only call asks no card');

    // add_note is Mutating: the form from its schema, then the per-call card.
    await toolButton(page, 'add_note').click();
    const title = page.getByRole('textbox', { name: 'title (required)' });
    const body = page.getByRole('textbox', { name: 'body (required)' });
    assert.equal(await title.getAttribute('aria-required'), 'true');
    await title.fill('Milk run');
    await body.fill('Eggs, <b>not</b> bold');
    const opened = h.browser.context.waitForEvent('page', { predicate: isCard });
    await page.getByRole('button', { name: 'Call add_note' }).click();
    const card = await opened;
    await card.getByRole('heading', { name: 'add_note' }).waitFor();
    assert.equal(await card.locator('#chat').innerText(), 'Asked by Agent console, chat 1');
    await latest(page).locator('.state', { hasText: WAITING }).waitFor();
    assert.equal(await page.locator('#status').innerText(), `\u2068add_note\u2069: ${WAITING}`);
    // The answer closes the card, which may happen before the click returns.
    await card.getByRole('button', { name: 'Allow this call only', exact: true }).click()
      .catch((error) => { if (!card.isClosed()) throw error; });
    shown = await result(page, ++results);
    assert.equal(shown.decision, 'Ran: you allowed this call only');
    assert.equal(shown.output, 'Added "Milk run".');
    await notes.getByText('Milk run: Eggs, <b>not</b> bold').waitFor();

    // A required field left empty: the core's argument check answers, before any card.
    const before = watch.cards.length;
    await title.fill('No body');
    await body.fill('');
    await page.getByRole('button', { name: 'Call add_note' }).click();
    shown = await result(page, ++results);
    assert.match(shown.error, /^Error: invalid arguments for add_note: .*body/);
    assert.equal(shown.decision, null);
    assert.match(shown.classes, /\berror\b/);
    assert.equal(watch.cards.length, before, 'invalid arguments ask no card');

    // JSON that does not parse never leaves the console.
    await page.locator('#by-name summary').click();
    await page.getByLabel('Tool name').fill('add_note');
    await page.getByLabel('Arguments (JSON object)').fill('{"title": "x", "body": ');
    await page.getByRole('button', { name: 'Call by name' }).click();
    const byNameError = page.locator('#by-name-error');
    await byNameError.waitFor();
    assert.match(await byNameError.innerText(), /^Arguments is not valid JSON: .* Nothing was sent\.$/);
    // Nor does JSON that is not an object.
    await page.getByLabel('Arguments (JSON object)').fill('["x"]');
    await page.getByRole('button', { name: 'Call by name' }).click();
    await page.waitForFunction(() => document.getElementById('by-name-error').textContent.startsWith('Arguments must'));
    assert.equal(await byNameError.innerText(), 'Arguments must be a JSON object. Nothing was sent.');
    assert.equal(await page.locator('#results > li').count(), results, 'nothing was sent');
    assert.equal(watch.cards.length, before);

    // A skill is shown, with its instructions, and cannot be called.
    await toolButton(page, 'notes_house_style').click();
    assert.equal(await page.locator('#tool-instructions').innerText(), 'Titles are short nouns. Bodies are plain sentences, no markdown.');
    assert.equal(await page.locator('#tool-badges').innerText(), 'Skill');
    assert.equal(await page.getByRole('button', { name: /^Call notes_house_style/ }).count(), 0, 'no Call button for a skill');
    assert.equal(await page.locator('#tool-form').isVisible(), false);
    // Even by name, Toolgate refuses to call it.
    await page.getByLabel('Tool name').fill('notes_house_style');
    await page.getByLabel('Arguments (JSON object)').fill('{}');
    await page.getByRole('button', { name: 'Call by name' }).click();
    shown = await result(page, ++results);
    assert.equal(shown.error, 'Error: notes_house_style is a skill: skills are read, never called');

    // A new Read only chat: the list is cleared, only Read only tools are
    // listed, and add_note is refused without a card.
    await page.getByRole('checkbox', { name: 'Read only' }).check();
    await page.getByRole('button', { name: 'New chat' }).click();
    await page.locator('#chat-label', { hasText: /^Agent console, chat 2$/ }).waitFor();
    assert.equal(await page.locator('#chat-mode').isVisible(), true);
    assert.equal(await page.locator('#tools button').count(), 0, 'New chat clears the tool list');
    assert.equal(await page.locator('#tools-section').isVisible(), false);
    await page.getByRole('button', { name: 'List tools' }).click();
    await toolButton(page, 'list_notes').waitFor();
    assert.equal(await toolButton(page, 'add_note').count(), 0, 'a Read only chat lists no Mutating tool');
    assert.match(await page.locator('#tools-note').innerText(), /This chat is Read only/);
    await page.getByLabel('Tool name').fill('add_note');
    await page.getByLabel('Arguments (JSON object)').fill('{"title": "Sneaky", "body": "no"}');
    await page.getByRole('button', { name: 'Call by name' }).click();
    shown = await result(page, ++results);
    assert.equal(shown.decision, `Refused: add_note on ${site} is Mutating, and this chat was opened Read only`);
    assert.match(shown.classes, /\brefused\b/);
    assert.equal(await latest(page).locator('.meta').innerText(), 'chat 2, request 2');
    assert.equal(watch.cards.length, before, 'a Read only chat asks no card');
    assert.equal(await notes.getByText('Sneaky').count(), 0);
    watch.stop();

    // Page text never became markup in the console.
    assert.equal(await page.locator('#results b, #tools b').count(), 0);
    await page.close();
    await notes.close();
  });

  test('a call whose card is answered after the service worker stopped still gets its result', async () => {
    const notes = await openNotes();
    const page = await openConsole(notes);
    await recordSends(page);
    const card = await callAndWaitForCard(page, 'add_note', { title: 'After a stop', body: 'Still here' });

    const old = await h.browser.worker();
    await old.evaluate(() => { self.beforeStop = true; });
    await h.browser.stopWorker();
    // The console sends the same request again, which starts a new worker
    // that waits on the same card.
    const sw = await h.browser.worker();
    assert.equal(await sw.evaluate(() => self.beforeStop), undefined, 'a new worker');
    await page.waitForFunction(() => window.sent.length >= 2);
    // No event proves the re-send found its card: the worker tells the console nothing until the card is answered.
    await page.waitForTimeout(500);
    assert.equal(await latest(page).locator('.state').innerText(), WAITING, 'still waiting on the card');

    await card.getByRole('button', { name: 'Allow this call only', exact: true }).click();
    await page.waitForFunction(() => !document.querySelector('#results > li:first-child.pending'));
    assert.equal(await latest(page).locator('.decision').innerText(), 'Ran: you allowed this call only');
    assert.equal(await latest(page).locator('pre.output').innerText(), 'Added "After a stop".');
    assert.equal(await page.locator('#results > li').count(), 1, 'one request, one result');
    await notes.getByText('After a stop: Still here').waitFor();
    await assertSentAgain(page);
    await page.close();
    await notes.close();
  });

  // Records every message the console sends and how each send ended; sends
  // of a message already sent once (the console's re-sends) are held back
  // `holdMs`, so a card can be answered before the console asks again.
  async function recordSends(page, holdMs = 0) {
    await page.evaluate((hold) => {
      const send = chrome.runtime.sendMessage.bind(chrome.runtime);
      const seen = new Set();
      window.sent = [];
      chrome.runtime.sendMessage = async (message) => {
        const key = JSON.stringify(message);
        if (seen.has(key) && hold) await new Promise((done) => setTimeout(done, hold));
        seen.add(key);
        const record = { message, outcome: 'pending' };
        window.sent.push(record);
        try {
          const reply = await send(message);
          record.outcome = reply === undefined ? 'undefined' : 'reply';
          return reply;
        } catch (error) {
          record.outcome = `rejected: ${error.message}`;
          throw error;
        }
      };
    }, holdMs);
  }

  // Calls `tool` through its form with these field values; returns the card page.
  async function callAndWaitForCard(page, tool, fields) {
    await toolButton(page, tool).click();
    for (const [name, value] of Object.entries(fields)) {
      await page.getByRole('textbox', { name: `${name} (required)` }).fill(value);
    }
    const opened = h.browser.context.waitForEvent('page', { predicate: isCard });
    await page.getByRole('button', { name: `Call ${tool}` }).click();
    const card = await opened;
    await card.getByRole('button', { name: 'Allow this call only', exact: true }).waitFor();
    await latest(page).locator('.state', { hasText: WAITING }).waitFor();
    return card;
  }

  async function assertSentAgain(page) {
    const sent = await page.evaluate(() => window.sent);
    assert.ok(sent.length >= 2, `the request was sent again: ${JSON.stringify(sent)}`);
    assert.ok(sent.every((s) => s.message.type === 'agent'
      && s.message.chat_id === sent[0].message.chat_id
      && JSON.stringify(s.message.request) === JSON.stringify(sent[0].message.request)), 'the same request, same id');
    assert.match(sent[0].outcome, /^(undefined|rejected: .*(message channel closed|message port closed|Receiving end does not exist))/,
      'the first send lost its worker');
    assert.equal(sent.at(-1).outcome, 'reply');
  }

  test('a card answered while the worker is stopped and before the console asks again: the console collects the kept reply', async () => {
    const notes = await openNotes();
    const page = await openConsole(notes);
    await recordSends(page, 1_500);
    const card = await callAndWaitForCard(page, 'add_note', { title: 'Kept', body: 'for later' });
    await h.browser.stopWorker();
    // The answer starts a new worker, which runs the call with no one waiting.
    await card.getByRole('button', { name: 'Allow this call only', exact: true }).click();
    await notes.getByText('Kept: for later').waitFor();
    await page.waitForFunction(() => !document.querySelector('#results > li:first-child.pending'));
    assert.equal(await latest(page).locator('.decision').innerText(), 'Ran: you allowed this call only');
    assert.equal(await latest(page).locator('pre.output').innerText(), 'Added "Kept".');
    await assertSentAgain(page);
    await page.close();
    await notes.close();
  });

  test('a card answered while the worker is stopped, the tool still running when the console asks again: the console gets its result', async () => {
    const slow = await openSlow();
    const page = await openConsole(slow, 'Slow notes');
    await recordSends(page, 800);
    const card = await callAndWaitForCard(page, 'slow_note', { title: 'Tortoise' });
    await h.browser.stopWorker();
    // The answer starts a new worker and the tool's 1.5 s run; the console's
    // same request comes during the run. The call is running, not interrupted.
    await card.getByRole('button', { name: 'Allow this call only', exact: true }).click();
    await page.waitForFunction(() => !document.querySelector('#results > li:first-child.pending'), null, { timeout: 10_000 });
    assert.equal(await latest(page).locator('.error-line').count(), 0,
      `no error: ${await latest(page).innerText()}`);
    assert.equal(await latest(page).locator('.decision').innerText(), 'Ran: you allowed this call only');
    assert.equal(await latest(page).locator('pre.output').innerText(), 'Slowly added "Tortoise".');
    await slow.getByText('Tortoise').waitFor();
    await assertSentAgain(page);
    await page.close();
    await slow.close();
  });

  test('a name two sites of one tab publish is called on the site picked', async () => {
    const twins = await h.browser.newPage(pages.url('twins.localhost', `/twins.html?${++n}`));
    await h.browser.waitForPalette(twins, (p) => entries(p).length === 2, 'the tool on both sites');
    const page = await openConsole(twins, 'Twins');
    const hosts = [new URL(twins.url()).host, new URL(pages.url('other.localhost')).host];
    assert.deepEqual((await page.locator('#tools h3').allInnerTexts()).sort(), [...hosts].sort());
    await recordSends(page);
    let results = 0;
    for (const host of hosts) {
      const group = page.locator('#tools section.group', { has: page.locator('h3', { hasText: host }) });
      await group.getByRole('button', { name: /^whoami/ }).click();
      assert.equal(await page.locator('#tool-site').innerText(), `Published by ${host}`);
      await page.getByRole('button', { name: 'Call whoami' }).click();
      const shown = await result(page, ++results);
      assert.equal(shown.output, `answered by ${host}`);
      assert.equal(shown.decision, `Ran: Read only tools on ${host} are allowed in this chat`);
    }
    const sites = (await page.evaluate(() => window.sent)).map((s) => s.message.request.params.arguments.site);
    assert.deepEqual(sites, hosts.map((host) => `http://${host}`), 'each call names its site');
    await page.close();
    await twins.close();
  });

  test('the form follows the inputSchema: text, numbers, a checkbox, a choice and JSON', async () => {
    const echo = await h.browser.newPage(pages.url('echo.localhost', `/form.html?${++n}`));
    await h.browser.waitForPalette(echo, (p) => entries(p).length === 1, 'the echo tool');
    const page = await openConsole(echo, 'Echo');
    await toolButton(page, 'echo').click();
    const text = page.getByRole('textbox', { name: 'text (required)' });
    const count = page.getByRole('spinbutton', { name: 'count (required)' });
    const ratio = page.getByRole('spinbutton', { name: 'ratio' });
    const loud = page.getByRole('checkbox', { name: 'loud' });
    const colour = page.getByRole('combobox', { name: 'colour' });
    const tags = page.getByRole('textbox', { name: 'tags' });
    const extra = page.getByRole('textbox', { name: 'extra' });
    for (const input of [text, count, ratio, loud, colour, tags, extra]) await input.waitFor();
    assert.equal(await text.getAttribute('aria-required'), 'true');
    assert.equal(await ratio.getAttribute('aria-required'), null);
    // Descriptions describe their fields.
    const described = await text.getAttribute('aria-describedby');
    assert.equal(await page.locator(`[id="${described}"]`).innerText(), 'Any text');
    assert.deepEqual(await colour.locator('option').allInnerTexts(), ['(not set)', 'red', 'green', 'blue']);

    let results = 0;
    await text.fill('hi');
    await count.fill('3');
    await ratio.fill('0.5');
    await loud.check();
    await colour.selectOption({ label: 'green' });
    await tags.fill('["a", "b"]');
    await extra.fill('{"k": 1}');
    await page.getByRole('button', { name: 'Call echo' }).click();
    let shown = await result(page, ++results);
    assert.deepEqual(JSON.parse(shown.output), {
      text: 'hi', count: 3, ratio: 0.5, loud: true, colour: 'green', tags: ['a', 'b'], extra: { k: 1 },
    });

    // Empty optional fields are left out; an unchecked box once changed says false.
    await ratio.fill('');
    await loud.uncheck();
    await colour.selectOption({ label: '(not set)' });
    await tags.fill('');
    await extra.fill('');
    await page.getByRole('button', { name: 'Call echo' }).click();
    shown = await result(page, ++results);
    assert.deepEqual(JSON.parse(shown.output), { text: 'hi', count: 3, loud: false });

    // A JSON field that does not parse is refused in the console, naming the field.
    await tags.fill('[oops');
    await page.getByRole('button', { name: 'Call echo' }).click();
    await page.locator('#form-error').waitFor();
    assert.match(await page.locator('#form-error').innerText(), /^tags is not valid JSON: .* Nothing was sent\.$/);
    assert.equal(await page.locator('#results > li').count(), results);

    // A wrong type is Toolgate's to refuse: 2.5 is not an integer.
    await tags.fill('');
    await count.fill('2.5');
    await page.getByRole('button', { name: 'Call echo' }).click();
    assert.equal(await page.locator('#form-error').isVisible(), false);
    shown = await result(page, ++results);
    assert.match(shown.error, /^Error: invalid arguments for echo: arguments\.count: /);
    await page.close();
    await echo.close();
  });
});

// The "done": an agent console session on the bundled Notes example
// walks through both cards exactly as docs/cards.md describes. The site is served
// under a real host name (notes.test, mapped to this machine), since
// localhost is never asked the site question.
describe('the Notes example on a real host name, from the console', () => {
  test('the site question, then the per-call confirmation, as docs/cards.md describes them', async () => {
    const server = await serve('examples/notes');
    const browser = await launch({ args: ['--host-resolver-rules=MAP *.test 127.0.0.1'] });
    try {
      const notes = await browser.newPage(server.url('notes.test'));
      await browser.waitForPalette(notes, (p) => entries(p).length === 10, 'the Notes tools');
      const site = new URL(notes.url()).host;
      const sw = await browser.worker();
      const page = await browser.newPage(await sw.evaluate(() => chrome.runtime.getURL('extension/ui/console.html')));
      await page.locator('#chat-label', { hasText: 'Agent console, chat 1' }).waitFor();
      const tabId = String(await browser.tabId(notes));
      while (!(await page.locator(`#tab option[value="${tabId}"]`).count())) {
        await page.getByRole('button', { name: 'Refresh' }).click();
      }
      await page.getByLabel('Tab to use').selectOption(tabId);

      // Listing the tools asks the site question first.
      let card = browser.context.waitForEvent('page');
      await page.getByRole('button', { name: 'List tools' }).click();
      let shown = await card;
      await shown.getByRole('button', { name: 'Allow this call only' }).waitFor();
      assert.equal(await shown.locator('#heading').innerText(), `An agent wants permission to use this site's page tools on ${site}`);
      assert.deepEqual(await shown.locator('#lines p').allInnerTexts(), [
        'Let the agent see and call the tools this website publishes to it.',
        `Requested by browser_list_webmcp_tools, in the tab \u201cNotes\u201d at ${notes.url()}.`,
        `Allowing this applies to ${site} only.`,
      ]);
      assert.ok((await shown.locator('#publishes').innerText()).includes('delete_note, Consequential'));
      await shown.getByRole('button', { name: 'More ways to allow' }).click();
      assert.deepEqual(await shown.getByRole('menuitem').allInnerTexts(), [
        'Allow read-only tools on this website',
        'Allow non-consequential read/write tools on this website',
        'Allow all tools on this website',
      ]);
      await shown.getByRole('menuitem', { name: 'Allow non-consequential read/write tools on this website' }).click();
      await page.locator('#tools button').first().waitFor();

      // delete_note is Consequential: above what the chat allowed, so it is confirmed per call.
      await page.locator('#tools button', { hasText: 'delete_note' }).click();
      await page.getByRole('textbox', { name: 'title (required)' }).fill('Old draft');
      card = browser.context.waitForEvent('page');
      await page.getByRole('button', { name: 'Call delete_note' }).click();
      shown = await card;
      await shown.getByRole('button', { name: 'Allow this call only' }).waitFor();
      assert.equal(await shown.locator('#heading').innerText(), 'delete_note');
      assert.equal(await shown.locator('#class').innerText(), 'Consequential');
      assert.equal(await shown.locator('#argument-count').innerText(), '1 argument');
      assert.equal((await shown.locator('#arguments').innerText()).replace(/\s+/g, ' ').trim(), 'title Old draft');
      await shown.getByRole('button', { name: 'More ways to allow' }).click();
      assert.deepEqual(await shown.getByRole('menuitem').allInnerTexts(), [
        `Always allow \u201cdelete_note\u201d on ${site}`,
        `Allow all tools on ${site}`,
      ]);
      await shown.getByRole('button', { name: 'More ways to deny' }).click();
      assert.deepEqual(await shown.getByRole('menuitem').allInnerTexts(), [
        `Never allow \u201cdelete_note\u201d on ${site}`,
        `Deny all page tools on ${site}`,
      ]);
      await shown.keyboard.press('Escape');
      await shown.getByRole('button', { name: 'Allow this call only' }).click();
      const item = page.locator('#results > li').first();
      await item.locator('.decision').waitFor();
      assert.equal(await item.locator('.decision').innerText(), 'Ran: you allowed this call only');
      assert.equal(await item.locator('pre.output').innerText(), 'Deleted "Old draft".');
    } finally {
      await browser.close();
      await server.close();
    }
  });
});
