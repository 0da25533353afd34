// Hostile pages against the gate (docs/cards.md, "When a tool changes" and
// "Sandboxed frames"; ARCHITECTURE.md, "One name, one tool"): a page that
// registers one name twice, changes a tool while its card is open, or
// publishes from a sandboxed frame, in headless Chromium with the real
// extension, the cards clicked by their labels.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { entries, launch } from '../support/browser.mjs';
import { serve } from '../support/server.mjs';
import { cardWatcher, choose } from '../support/cards.mjs';

const REAL_HOSTS = ['--host-resolver-rules=MAP *.test 127.0.0.1'];

describe('hostile pages', () => {
  let server;
  let browser;
  let cards;
  let nextId = 0;
  let nextChat = 0;

  before(async () => {
    server = await serve('tests/pages/hostile');
    browser = await launch({ args: REAL_HOSTS });
    cards = cardWatcher(browser.context);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const open = async (host, path, tools) => {
    const page = await browser.newPage(server.url(host, path));
    await browser.waitForPalette(page, (p) => entries(p).length === tools, `${tools} tools`);
    return { page, tabId: await browser.tabId(page) };
  };
  const chat = async () => {
    const id = `hostile-${++nextChat}`;
    const sw = await browser.worker();
    await sw.evaluate((c) => self.toolgate.openChat(c, { label: c }), id);
    return id;
  };
  const call = (tabId, name) => ({
    jsonrpc: '2.0', id: ++nextId, method: 'tools/call',
    params: { name: 'browser_call_webmcp_tool', arguments: { tabId, name, arguments: {} } },
  });
  // Sends the call; resolves with the card it opens (and the reply to come),
  // or with its reply when it opens none.
  const start = async (chatId, request) => {
    const sw = await browser.worker();
    let settled = null;
    const reply = sw.evaluate(([c, r]) => self.toolgate.agent(c, r), [chatId, request]);
    reply.then((r) => { settled = r; }, () => {});
    for (const deadline = Date.now() + 15_000; Date.now() < deadline;) {
      if (settled) return { reply: settled };
      if (cards.pending()) return { card: await cards.next(), reply };
      await new Promise((done) => setTimeout(done, 25));
    }
    throw new Error(`neither a reply nor a card for ${JSON.stringify(request)}`);
  };
  const text = (reply) => reply.error?.message ?? reply.result?.content?.[0]?.text;

  // A chat that allowed read-only tools on the page's site, and the call card `name` opens.
  const callCard = async (tabId, name) => {
    const chatId = await chat();
    const first = await start(chatId, call(tabId, name));
    assert.ok(first.card, 'the site question first');
    await choose(first.card, 'Allow read-only tools on this website');
    // The same request goes on to the per-call confirmation.
    const card = await cards.next();
    return { chatId, card, reply: first.reply };
  };

  test('one name is one tool: the second registration is refused, and the card shows the class of the tool that runs', async () => {
    const { page, tabId } = await open('same.test', '/same-name.html', 2);
    assert.equal(await page.evaluate(() => window.registered),
      "InvalidStateError: Failed to execute 'registerTool' on 'ModelContext': Duplicate tool name");
    const { chatId, card, reply } = await callCard(tabId, 'edit');
    assert.equal(await card.locator('#class').textContent(), 'Mutating');
    const site = `same.test:${server.port}`;
    await choose(card, `Allow non-consequential read/write tools on ${site}`);
    assert.equal(text(await reply), 'edited');
    assert.deepEqual(await page.evaluate(() => window.ran), ['navigator edit']);
    // The chat was widened to Mutating tools only: a Consequential one asks.
    const wipe = await start(chatId, call(tabId, 'wipe'));
    assert.ok(wipe.card, 'wipe asks');
    await choose(wipe.card, 'Deny this call');
    await wipe.reply;
    assert.deepEqual(await page.evaluate(() => window.ran), ['navigator edit']);
    await browser.assertNoErrors();
  });

  test('an answer to a card whose tool changed while it was open runs nothing and widens nothing', async () => {
    const { page, tabId } = await open('change.test', '/changing.html', 2);
    const { chatId, card, reply } = await callCard(tabId, 'edit');
    assert.equal(await card.locator('#class').textContent(), 'Mutating');
    await page.evaluate(() => window.swap());
    await browser.waitForPalette(page, (p) => entries(p).some((e) => e.name === 'edit' && e.class === 'Consequential'),
      'edit registered again as Consequential');
    await choose(card, `Allow non-consequential read/write tools on change.test:${server.port}`);
    assert.match(text(await reply), /^edit changed while this call waited .*nothing ran/);
    assert.deepEqual(await page.evaluate(() => window.ran), []);
    // Nothing was widened: the Mutating note asks.
    const note = await start(chatId, call(tabId, 'note'));
    assert.ok(note.card, 'note asks: the chat was not widened');
    await choose(note.card, 'Deny this call');
    await note.reply;
    assert.deepEqual(await page.evaluate(() => window.ran), []);
    await browser.assertNoErrors();
  });

  test('a sandboxed frame is not a site: its card names the tab\'s site, offers no site-wide answer, and no answer carries to another', async () => {
    const a = await open('a.test', '/sandbox.html', 1);
    const chatId = await chat();
    const first = await start(chatId, call(a.tabId, 'wipe'));
    assert.ok(first.card, 'the site question');
    assert.equal(await first.card.locator('#heading').textContent(),
      `An agent wants permission to use this site's page tools on a sandboxed frame inside a.test:${server.port}`);
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
    await browser.assertNoErrors();
  });
});
