// Hostile pages against the gate (docs/cards.md, "When a tool changes" and
// "Sandboxed frames"; ARCHITECTURE.md, "One name, one tool"): a page that
// registers one name twice, changes a tool while its card is open, or
// publishes from a sandboxed frame, in headless Chromium with the real
// extension, the cards clicked by their labels.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TOOLGATE_ID, entries } from '../support/browser.mjs';
import { harness } from '../support/fixture.mjs';
import { cardKind, choose, readCard } from '../support/cards.mjs';


describe('hostile pages', () => {
  const h = harness({ pages: 'tests/pages/hostile', chatPrefix: 'hostile' });
  const { open, chat, request: call, start, text } = h;

  // A chat that allowed read-only tools on the page's site, and the call card `name` opens.
  const callCard = async (tabId, name, args = {}) => {
    const chatId = await chat();
    const first = await start(chatId, call(tabId, name, args));
    assert.ok(first.card, 'the site question first');
    await choose(first.card, 'Allow read-only tools on this website');
    // The same request goes on to the per-call confirmation.
    const card = await h.cards.next();
    return { chatId, card, reply: first.reply };
  };

  // A tool with no inputSchema takes any input the agent sends: its card
  // shows exactly that, whatever its shape, and input the draft refuses (no
  // object; arrays are objects there) is refused before anyone is asked.
  test('a card shows an array argument by position, and a string input is refused before any card', async () => {
    const { page, tabId } = await open('shapeless.test', '/shapeless.html', 1);
    const { card, reply } = await callCard(tabId, 'transfer', ['to: mallory', 1000000]);
    const shown = await readCard(card);
    assert.equal(shown.argumentCount, '2 arguments');
    assert.deepEqual(shown.arguments, [['0', 'to: mallory'], ['1', '1000000']]);
    await choose(card, 'Allow this call only');
    assert.equal(text(await reply), 'transferred');
    assert.deepEqual(await page.evaluate(() => window.received), [['to: mallory', 1000000]], 'the tool received what the card showed');

    const refused = await start(await chat(), call(tabId, 'transfer', 'send everything to mallory'));
    assert.equal(refused.card, undefined, 'no card opens');
    assert.equal(text(refused.reply), 'invalid arguments for transfer: expected a JSON object, got a string');
    assert.equal(await page.evaluate(() => window.received.length), 1, 'the tool never received it');
  });

  // A pattern runs on a linear-time engine (docs/agents.md, "Arguments and
  // limits"): on JavaScript's backtracking RegExp, `^(a+)+$` against 40 "a"s
  // and a "!" held the worker, and every agent's call, for hours. The test's
  // timeout is what fails on such an engine; nothing here is timed. The
  // page's own executeTool checks nothing (as Chromium's), so a page cannot
  // make the worker check anything at all.
  test("a backtracking pattern holds up nobody: an agent's call and another tab's call are answered, and the page's own calls run", { timeout: 60_000 }, async () => {
    const { page, tabId } = await open('patterns.test', '/patterns.html', 3);
    const evil = `${'a'.repeat(40)}!`;
    // The page runs its own tool five times over, not waiting.
    const own = page.evaluate((q) => Promise.all([1, 2, 3, 4, 5].map(() => window.own('lookup', q))), evil);
    // Meanwhile another tab's agent call runs.
    const other = await open('shapeless.test', '/shapeless.html', 1);
    const { card, reply } = await callCard(other.tabId, 'transfer', { to: 'bob' });
    await choose(card, 'Allow this call only');
    assert.equal(text(await reply), 'transferred');
    assert.deepEqual(await own, Array(5).fill({ resolved: 'lookup: 41' }));
    await page.evaluate(() => { window.ran = []; });

    // An agent's arguments go through the same engine: refused at once, before any card.
    const refused = await start(await chat(), call(tabId, 'lookup', { q: evil }));
    assert.equal(refused.card, undefined, 'no card opens');
    assert.match(text(refused.reply), /^invalid arguments for lookup: arguments\.q: /);
    // Arguments' names too, where the schema has no `pattern` keyword but a
    // `patternProperties`: a name that does not match is no known argument.
    const named = await start(await chat(), call(tabId, 'named', { [evil]: 'x' }));
    assert.equal(named.card, undefined, 'no card opens');
    assert.equal(text(named.reply), `invalid arguments for named: arguments.${evil}: is not a known argument`);

    // A look-ahead has no linear-time match: the agent's call is refused
    // with that reason, never run unchecked; the page's own call still runs.
    const strong = await start(await chat(), call(tabId, 'strong', { q: 'abc1' }));
    assert.equal(strong.card, undefined, 'no card opens');
    assert.equal(text(strong.reply), 'cannot check the arguments of strong: its pattern "^(?=.*[0-9]).+$" '
      + 'uses look-around or back-references, which Toolgate does not run');
    assert.deepEqual(await page.evaluate(() => window.ran), [], 'neither refused call ran');
    assert.deepEqual(await page.evaluate(() => window.own('strong', 'abc')), { resolved: 'strong: 3' });
  });

  // docs/rules.md, "How long a call waits": a yes given after the agent
  // stopped waiting applies to the definition its card showed.
  test('a late yes does not run a tool the page registered again, changed, while the agent was away', async () => {
    const { page, tabId } = await open('late.test', '/changing.html', 2);
    const sw = await h.browser.worker();
    const origin = new URL(page.url()).origin;
    await sw.evaluate(async (site) => {
      const { rules: book = { sites: {} } } = await chrome.storage.local.get('rules');
      book.sites[site] = { read: 'allowed', write: 'ask_first', delete: 'off', outside: 'ask_first' };
      await chrome.storage.local.set({ rules: book });
    }, origin);
    const chatId = await chat();
    const request = call(tabId, 'edit', { text: 'hello' });
    let first = await start(chatId, request);
    if (first.card && await cardKind(first.card) === 'site') {
      await choose(first.card, 'Allow all tools on this website');
      first = { card: await h.cards.next(), reply: first.reply };
    }
    const isRuleCard = async (card) => (await card.getByRole('button', { name: 'Allow once', exact: true }).count()) === 1;
    assert.ok(await isRuleCard(first.card), 'Write tools ask first, on the rule\'s card');
    assert.equal(await first.card.locator('#class').textContent(), 'Mutating');
    // The agent stops waiting; the card stays open.
    await sw.evaluate(([c, id]) => self.toolgate.withdraw(c, id), [chatId, request.id]);
    assert.equal((await first.reply).error?.code, -32800);
    await page.evaluate(() => window.swap());
    await h.browser.waitForPalette(page, (p) => entries(p).some((e) => e.name === 'edit' && e.class === 'Consequential'),
      'edit registered again as Consequential');
    await choose(first.card, 'Allow once');
    // The agent's same call finds another tool: it is asked about, and nothing ran.
    const again = await start(chatId, call(tabId, 'edit', { text: 'hello' }));
    assert.ok(again.card, 'the changed tool is asked about again');
    await choose(again.card, await isRuleCard(again.card) ? 'Refuse' : 'Deny this call');
    await again.reply;
    assert.deepEqual(await page.evaluate(() => window.ran), []);
  });

  // docs/rules.md, "A rule holds for what you saw": the page controls a
  // tool's definition and tags, the person the rules.
  test('a tool set apart holds for its definition, an area for its kinds: a tool turned Delete, or a Delete tool tagged into the area, follows Delete: Off', async () => {
    const { page, tabId } = await open('apart.test', '/set-apart.html', 2);
    const site = new URL(page.url()).origin;
    const settings = await h.browser.newPage(`chrome-extension://${TOOLGATE_ID}/extension/ui/options.html`);
    const answer = await settings.evaluate(([s]) => chrome.runtime.sendMessage({ type: 'change_rules', site: s, changes: [
      { target: 'tool', name: 'add_note', level: 'allowed' }, { target: 'area', area: 'search', level: 'allowed' }] }), [site]);
    assert.deepEqual(answer, { saved: true });
    await settings.close();
    const chatId = await chat();
    // As the person saw it, add_note is allowed: it runs with no rule card.
    let first = await start(chatId, call(tabId, 'add_note'));
    if (first.card) {
      await choose(first.card, 'Allow all tools on this website');
      first = { reply: first.reply };
    }
    assert.equal(text(await first.reply), 'added');

    await page.evaluate(() => window.makeDelete());
    await page.evaluate(() => window.addWipe());
    await h.browser.waitForPalette(page, (p) => entries(p).length === 3 && entries(p).find((e) => e.name === 'add_note')?.class === 'Consequential',
      'add_note registered again as a Delete tool, and wipe');
    for (const name of ['add_note', 'wipe']) {
      const got = await start(chatId, call(tabId, name));
      assert.equal(got.card, undefined, `${name}: no card`);
      assert.match(text(got.reply), new RegExp(`^Nothing ran: ${name} is Off`), name);
    }
    assert.deepEqual(await page.evaluate(() => window.ran), ['add_note']);

    // The set-apart page says which levels no longer hold, and why, once the
    // tools seen on the site are remembered (a moment after the page's reports).
    const sw = await h.browser.worker();
    await sw.evaluate(async (s) => {
      for (;;) {
        const { rules, tools_seen: seen } = await chrome.storage.local.get(['rules', 'tools_seen']);
        const tools = seen?.[s] ?? [];
        const note = tools.find((t) => t.name === 'add_note');
        if (tools.some((t) => t.name === 'wipe') && note?.definition !== rules.sites[s].tool_definitions.add_note) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    }, site);
    const apart = await h.browser.newPage(`chrome-extension://${TOOLGATE_ID}/extension/ui/set-apart.html?site=${encodeURIComponent(site)}`);
    await apart.locator('.tool').first().waitFor({ state: 'attached' });
    assert.deepEqual(await apart.locator('.lapsed').allTextContents(), [
      'Changed since you set it: your “Allowed” no longer holds; it follows its area and kind until you set it again.',
      'New in this area: the area\'s “Allowed” does not cover it; it follows its kind until you set the area again.',
    ]);
    await apart.close();
  });

  test('one name is one tool: the second registration is refused, and the card shows the class of the tool that runs', async () => {
    const { page, tabId } = await open('same.test', '/same-name.html', 2);
    assert.equal(await page.evaluate(() => window.registered),
      "InvalidStateError: Failed to execute 'registerTool' on 'ModelContext': Duplicate tool name");
    const { chatId, card, reply } = await callCard(tabId, 'edit');
    assert.equal(await card.locator('#class').textContent(), 'Mutating');
    const site = `same.test:${h.server.port}`;
    await choose(card, `Allow non-consequential read/write tools on ${site}`);
    assert.equal(text(await reply), 'edited');
    assert.deepEqual(await page.evaluate(() => window.ran), ['navigator edit']);
    // The chat was widened to Mutating tools only: a Consequential one asks.
    const wipe = await start(chatId, call(tabId, 'wipe'));
    assert.ok(wipe.card, 'wipe asks');
    await choose(wipe.card, 'Deny this call');
    await wipe.reply;
    assert.deepEqual(await page.evaluate(() => window.ran), ['navigator edit']);
  });

  test('an answer to a card whose tool changed while it was open runs nothing and widens nothing', async () => {
    const { page, tabId } = await open('change.test', '/changing.html', 2);
    const { chatId, card, reply } = await callCard(tabId, 'edit');
    assert.equal(await card.locator('#class').textContent(), 'Mutating');
    await page.evaluate(() => window.swap());
    await h.browser.waitForPalette(page, (p) => entries(p).some((e) => e.name === 'edit' && e.class === 'Consequential'),
      'edit registered again as Consequential');
    await choose(card, `Allow non-consequential read/write tools on change.test:${h.server.port}`);
    assert.match(text(await reply), /^edit changed while this call waited .*nothing ran/);
    assert.deepEqual(await page.evaluate(() => window.ran), []);
    // Nothing was widened: the Mutating note asks.
    const note = await start(chatId, call(tabId, 'note'));
    assert.ok(note.card, 'note asks: the chat was not widened');
    await choose(note.card, 'Deny this call');
    await note.reply;
    assert.deepEqual(await page.evaluate(() => window.ran), []);
  });

  test('a sandboxed frame is not a site: its card names the tab\'s site, offers no site-wide answer, and no answer carries to another', async () => {
    const a = await open('a.test', '/sandbox.html', 1);
    const chatId = await chat();
    const first = await start(chatId, call(a.tabId, 'wipe'));
    assert.ok(first.card, 'the site question');
    assert.equal(await first.card.locator('#heading').textContent(),
      `An agent wants permission to use this site's page tools on a sandboxed frame inside a.test:${h.server.port}`);
    assert.equal(await first.card.locator('#approve-more').isHidden(), true, 'no wider approvals');
    assert.equal(await first.card.locator('#deny-more').isHidden(), true, 'no wider refusals');
    await choose(first.card, 'Allow this call only');
    assert.equal(text(await first.reply), 'wiped');
    // A sandboxed frame in another site's tab is asked about again.
    const b = await open('b.test', '/sandbox.html', 1);
    const second = await start(chatId, call(b.tabId, 'wipe'));
    assert.ok(second.card, 'asked again');
    assert.match(await second.card.locator('#heading').textContent(), /a sandboxed frame inside b\.test:/);
    await choose(second.card, 'Deny this call');
    assert.match(text(await second.reply), /denied/i);
  });
});
