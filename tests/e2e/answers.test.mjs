// docs/cards.md, "The two cards", end to end in headless Chromium
// with the real extension: agents' calls through `self.toolgate.agent`, the
// cards they open (popup windows), every answer clicked by its visible label,
// and what each answer does to the calls after it. Also: localhost against a
// real host name, the cards' texts word for word, service-worker restarts,
// two chats, the immediate identical retry, a changed definition, bad
// arguments, every way a call can fail, and the keyboard.
//
// One browser per describe; every test uses chats of its own, so answers never
// leak between tests. "Never allow" holds for every chat until the browser
// restarts, so the test that gives it uses a site of its own (never.test).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { entries, launch } from '../support/browser.mjs';
import { serve } from '../support/server.mjs';
import { cardId, cardKind, choose, ready } from '../support/cards.mjs';
import { nextCallAnswer, reportsAnswered, sendWaiting } from '../support/events.mjs';

const REAL_HOSTS = ['--host-resolver-rules=MAP *.test 127.0.0.1'];
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// Everything a describe needs: a server, a browser, and an agent's view of it.
function harness({ configure = null } = {}) {
  const h = {};
  let nextId = 0;
  let nextChat = 0;
  let nextPage = 0;
  const claimed = new WeakSet();

  before(async () => {
    h.server = await serve('tests/pages/answers');
    h.browser = await launch({ args: REAL_HOSTS });
    h.extensionId = new URL((await h.browser.worker()).url()).host;
    if (configure) {
      const sw = await h.browser.worker();
      await sw.evaluate((changes) => self.toolgate.configure(changes), configure);
    }
  });
  after(async () => {
    await h.browser?.close();
    await h.server?.close();
  });

  // Stops the service worker, then wakes a new one, as an agent's message
  // would (a page of Toolgate's asks for a card that no longer waits).
  h.restartWorker = async () => {
    await h.browser.stopWorker();
    const page = await h.browser.context.newPage();
    claimed.add(page);
    await page.goto(`chrome-extension://${h.extensionId}/extension/ui/card.html?card=0`);
    await page.getByText('This request was already answered.').waitFor();
    await h.browser.worker();
    await page.close();
  };

  // "notes.test:<port>", as cards name the site.
  h.site = (host = 'notes.test') => `${host}:${h.server.port}`;

  // Opens the Notes page on `host` in a tab of its own; resolves once every
  // tool is registered, with the page and its tab id.
  h.open = async (host = 'notes.test', path = '/') => {
    const page = await h.browser.newPage(h.server.url(host, `${path}?${++nextPage}`));
    await h.browser.waitForPalette(page, (p) => entries(p).length === 11, 'the eleven tools and skills of the page');
    return { page, tabId: await h.browser.tabId(page) };
  };

  // A new chat, opened as the agent console or an MCP session would.
  h.chat = async (label = null) => {
    const id = `chat-${++nextChat}`;
    const sw = await h.browser.worker();
    await sw.evaluate(([chat, name]) => self.toolgate.openChat(chat, { label: name }), [id, label ?? id]);
    return id;
  };

  h.request = (tabId, name, args = {}, id = ++nextId) => ({
    jsonrpc: '2.0', id, method: 'tools/call',
    params: { name: 'browser_call_webmcp_tool', arguments: { tabId, name, arguments: args } },
  });
  h.listRequest = (tabId, id = ++nextId) => ({
    jsonrpc: '2.0', id, method: 'tools/call',
    params: { name: 'browser_list_webmcp_tools', arguments: { tabId } },
  });

  // Sends a request as `chat`; resolves with the reply.
  h.send = async (chat, request) => {
    const sw = await h.browser.worker();
    return sw.evaluate(([c, r]) => self.toolgate.agent(c, r), [chat, request]);
  };

  // Sends a request as `chat`; `waitsOn` resolves with the id of the card
  // it is told to wait on (tests/support/events.mjs).
  h.sendWaiting = async (chat, request) => sendWaiting(await h.browser.worker(), chat, request);

  // A card window not seen before, once its answers are on screen.
  const unclaimedCard = () => h.browser.context.pages()
    .find((p) => p.url().includes('/extension/ui/card.html') && !p.isClosed() && !claimed.has(p));
  const shown = async (card) => {
    claimed.add(card);
    await ready(card);
    return card;
  };
  h.nextCard = async (timeout = 10_000) => {
    const deadline = Date.now() + timeout;
    for (;;) {
      const card = unclaimedCard();
      if (card) return shown(card);
      if (Date.now() > deadline) throw new Error('no card opened');
      await sleep(25);
    }
  };

  // Sends a request and waits for whichever comes first: the reply, or a card.
  h.start = async (chat, request) => {
    let settled = null;
    const reply = h.send(chat, request);
    reply.then((r) => { settled = { reply: r }; }, (e) => { settled = { error: e }; });
    const deadline = Date.now() + 15_000;
    for (;;) {
      if (settled?.error) throw settled.error;
      if (settled) return settled;
      const card = unclaimedCard();
      if (card) return { card: await shown(card), reply };
      if (Date.now() > deadline) throw new Error(`neither a reply nor a card for ${JSON.stringify(request)}`);
      await sleep(25);
    }
  };

  // The call runs without a card; resolves with its reply.
  h.runs = async (chat, tabId, name, args = {}) => {
    const got = await h.start(chat, h.request(tabId, name, args));
    assert.ok(!got.card, `${name} should run without asking, but a card opened`);
    assertRan(got.reply, name);
    return got.reply;
  };

  // The call is refused without a card; resolves with the reason.
  h.refused = async (chat, tabId, name, args = {}) => {
    const got = await h.start(chat, h.request(tabId, name, args));
    assert.ok(!got.card, `${name} should be refused without asking, but a card opened`);
    return assertRefused(got.reply, name);
  };

  // The call opens a card of this kind ('site' or 'call'); resolves with the
  // card page and the reply to come.
  h.asks = async (chat, tabId, name, args = {}, kind = 'call') => {
    const got = await h.start(chat, h.request(tabId, name, args));
    assert.ok(got.card, `${name} should ask, but got ${JSON.stringify(got.reply)}`);
    assert.equal(await cardKind(got.card), kind, `${name} opens the ${kind} card`);
    return got;
  };

  return h;
}

function assertRan(reply, name) {
  assert.equal(reply.error, undefined, `${name}: ${reply.error?.message}`);
  assert.equal(reply.result.isError, false, `${name} ran: ${reply.result.content?.[0]?.text}`);
  assert.equal(reply.result._meta.toolgate.decision, 'run');
}

function assertRefused(reply, name) {
  assert.equal(reply.error, undefined, `${name}: ${reply.error?.message}`);
  assert.equal(reply.result.isError, true, `${name} is refused`);
  assert.equal(reply.result._meta.toolgate.decision, 'refuse');
  assert.equal(reply.result.content[0].text, reply.result._meta.toolgate.why);
  return reply.result._meta.toolgate.why;
}

// A new chat that answered the site card (asked by a first list_notes) with `answer`.
async function chatWith(h, tabId, answer, label) {
  const chat = await h.chat(label);
  const { card, reply } = await h.asks(chat, tabId, 'list_notes', {}, 'site');
  await choose(card, answer);
  assertRan(await reply, 'list_notes');
  return chat;
}
const NON_CONSEQUENTIAL = 'Allow non-consequential read/write tools on this website';

// The labels behind an arrow, opening and closing its menu.
async function menuLabels(card, arrowName) {
  const arrow = card.getByRole('button', { name: arrowName, exact: true });
  await arrow.click();
  const menu = card.locator(`#${await arrow.getAttribute('aria-controls')}`);
  assert.equal(await menu.getAttribute('role'), 'menu');
  const labels = await menu.getByRole('menuitem').allTextContents();
  await arrow.click();
  assert.equal(await menu.isHidden(), true, 'the arrow closes its menu again');
  return labels;
}

// Presses a key that answers the card: the card may close before the key is up.
async function pressAnswering(card, key) {
  const closed = card.waitForEvent('close');
  await card.keyboard.press(key).catch((error) => {
    if (!card.isClosed()) throw error;
  });
  await closed;
}

// Closes a card's window without answering, as a person closing it.
async function closeCard(card) {
  await card.close();
}

// Everything a card shows, as text.
function readCard(card) {
  return card.evaluate(() => {
    const $ = (id) => document.getElementById(id);
    const visible = (node) => !node.hidden;
    return {
      chat: $('chat').textContent,
      heading: $('heading').textContent,
      class: visible($('class')) ? $('class').textContent : null,
      changed: visible($('changed')) ? $('changed').textContent : null,
      lines: [...$('lines').children].map((p) => p.textContent),
      argumentCount: visible($('arguments-section')) ? $('argument-count').textContent : null,
      arguments: [...$('arguments').querySelectorAll('dt')].map((dt) => [dt.textContent, dt.nextElementSibling.textContent]),
      publishesOpen: $('publishes-section').open,
      publishes: [...$('publishes').children].map((li) => li.textContent),
      approve: $('approve').textContent,
      deny: $('deny').textContent,
      elements: [...document.querySelectorAll('main *')].map((n) => n.localName),
    };
  });
}

const PUBLISHES = [
  'list_notes, Read only', 'add_note, Mutating', 'delete_note, Consequential', 'send_note, Consequential',
  'explode, Read only', 'hang, Read only', 'huge, Read only', 'leave, Read only', 'slow, Read only',
  'slow_save, Mutating', 'house_style, Skill',
];

// How many times the page's own tool ran.
const callsOf = (page, name) => page.evaluate((n) => window.calls[n] ?? 0, name);

describe('answering on a real host name', () => {
  const h = harness();

  test('the site card says what docs/cards.md says, word for word', async () => {
    const { page, tabId } = await h.open();
    const chat = await h.chat('Trip planning');
    const { card, reply } = await h.asks(chat, tabId, 'list_notes', {}, 'site');
    const shownCard = await readCard(card);
    const site = h.site();
    assert.equal(shownCard.chat, 'Asked by Trip planning', 'the card says which chat asked');
    assert.equal(shownCard.heading, `An agent wants permission to use this site's page tools on ${site}`);
    assert.deepEqual(shownCard.lines, [
      'Let the agent see and call the tools this website publishes to it.',
      `Requested by browser_call_webmcp_tool, in the tab \u201cNotes\u201d at ${page.url()}.`,
      `Allowing this applies to ${site} only.`,
    ]);
    assert.equal(shownCard.publishesOpen, true, 'the site card lists what the site publishes openly');
    assert.deepEqual(shownCard.publishes, PUBLISHES);
    assert.equal(shownCard.class, null);
    assert.equal(shownCard.argumentCount, null);
    assert.equal(shownCard.approve, 'Allow this call only');
    assert.equal(shownCard.deny, 'Deny this call');
    assert.deepEqual(await menuLabels(card, 'More ways to allow'), [
      'Allow read-only tools on this website',
      'Allow non-consequential read/write tools on this website',
      'Allow all tools on this website',
    ]);
    assert.deepEqual(await menuLabels(card, 'More ways to deny'), ['Deny for this chat']);
    await choose(card, 'Deny this call');
    assert.equal(assertRefused(await reply, 'list_notes'), `refused: you denied this call to ${site}`);
    assert.equal(await callsOf(page, 'list_notes'), 0, 'a refused call never reaches the page');

    // A listing asks the same question, naming the tool that asked.
    const listing = await h.start(chat, h.listRequest(tabId));
    assert.ok(listing.card, 'the listing asks the site question');
    assert.equal((await readCard(listing.card)).lines[1],
      `Requested by browser_list_webmcp_tools, in the tab \u201cNotes\u201d at ${page.url()}.`);
    await choose(listing.card, 'Allow this call only');
    const listed = (await listing.reply).result.structuredContent;
    assert.deepEqual(listed.tools.map((t) => `${t.name}, ${t.class}`), PUBLISHES.slice(0, -1));
    assert.deepEqual(listed.skills.map((s) => s.name), ['house_style']);
    // Nothing was recorded: the next listing asks again.
    const again = await h.start(chat, h.listRequest(tabId));
    assert.ok(again.card, 'allowed once: the next listing asks again');
    await choose(again.card, 'Deny this call');
    assert.deepEqual((await again.reply).result.structuredContent.tools, []);
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('what the answers add up to: the widths table, row by row', async () => {
    const { page, tabId } = await h.open();
    const table = [
      ['Allow read-only tools on this website', { list_notes: 'run', add_note: 'ask', delete_note: 'ask', send_note: 'ask' }],
      ['Allow non-consequential read/write tools on this website', { list_notes: 'run', add_note: 'run', delete_note: 'ask', send_note: 'ask' }],
      ['Allow all tools on this website', { list_notes: 'run', add_note: 'run', delete_note: 'run', send_note: 'run' }],
    ];
    for (const [answer, expected] of table) {
      const chat = await h.chat();
      const { card, reply } = await h.asks(chat, tabId, 'list_notes', {}, 'site');
      await choose(card, answer);
      assertRan(await reply, 'list_notes');
      for (const [tool, want] of Object.entries(expected)) {
        const args = tool === 'list_notes' ? {} : { title: 'Shopping' };
        if (want === 'run') {
          await h.runs(chat, tabId, tool, args);
        } else {
          // Confirmed per call: every call, not only the first.
          for (let i = 0; i < 2; i++) {
            const asked = await h.asks(chat, tabId, tool, args);
            assert.equal((await readCard(asked.card)).heading, tool, `${answer}: ${tool}`);
            await choose(asked.card, 'Deny this call');
            assertRefused(await asked.reply, tool);
          }
        }
      }
    }
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('every answer on the site card, and closing it', async () => {
    const { page, tabId } = await h.open();
    const site = h.site();

    // Allow this call only: this call runs; nothing is recorded, so the next call asks again.
    let chat = await h.chat();
    let asked = await h.asks(chat, tabId, 'delete_note', { title: 'Nope' }, 'site');
    await choose(asked.card, 'Allow this call only');
    const once = await asked.reply;
    assertRan(once, 'delete_note');
    assert.equal(once.result.content[0].text, 'Deleted "Nope".');
    assert.equal(await callsOf(page, 'delete_note'), 1);
    asked = await h.asks(chat, tabId, 'list_notes', {}, 'site');
    await choose(asked.card, 'Deny this call');

    // Allow read-only / non-consequential / all: the next calls follow the width
    // (the widths table above checks every class under each).
    for (const [answer, runs, asks] of [
      ['Allow read-only tools on this website', 'list_notes', 'add_note'],
      ['Allow non-consequential read/write tools on this website', 'add_note', 'send_note'],
      ['Allow all tools on this website', 'send_note', null],
    ]) {
      chat = await h.chat();
      asked = await h.asks(chat, tabId, 'list_notes', {}, 'site');
      await choose(asked.card, answer);
      assertRan(await asked.reply, 'list_notes');
      await h.runs(chat, tabId, runs, runs === 'list_notes' ? {} : { title: 'A' });
      if (asks) {
        const confirm = await h.asks(chat, tabId, asks, { title: 'B' });
        await choose(confirm.card, 'Deny this call');
      }
    }

    // Deny this call: refused; nothing is recorded.
    chat = await h.chat();
    asked = await h.asks(chat, tabId, 'list_notes', {}, 'site');
    await choose(asked.card, 'Deny this call');
    assert.equal(assertRefused(await asked.reply, 'list_notes'), `refused: you denied this call to ${site}`);
    asked = await h.asks(chat, tabId, 'list_notes', {}, 'site');
    await choose(asked.card, 'Deny for this chat');

    // Deny for this chat: refused, and later calls to the site are refused without asking.
    assert.equal(assertRefused(await asked.reply, 'list_notes'), `refused: ${site} is denied in this chat`);
    assert.equal(await h.refused(chat, tabId, 'send_note', { title: 'A' }), `refused: send_note on ${site} is denied in this chat`);
    const listing = await h.start(chat, h.listRequest(tabId));
    assert.ok(!listing.card, 'a listing is refused without asking too');
    assert.deepEqual(listing.reply.result.structuredContent.tools, []);
    assert.deepEqual(listing.reply.result.structuredContent.withheld, [`refused: ${site} is denied in this chat`]);

    // Closing the card without answering counts as Deny for this chat.
    chat = await h.chat();
    asked = await h.asks(chat, tabId, 'list_notes', {}, 'site');
    await closeCard(asked.card);
    assert.equal(assertRefused(await asked.reply, 'list_notes'), `refused: ${site} is denied in this chat`);
    assert.equal(await h.refused(chat, tabId, 'list_notes'), `refused: list_notes on ${site} is denied in this chat`);
    assert.equal(await callsOf(page, 'list_notes'), 4, 'only the allowed calls reached the page');
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('a card closes once answered, while the call it let run goes on', async () => {
    const { page, tabId } = await h.open();
    const chat = await h.chat();
    const asked = await h.asks(chat, tabId, 'slow', { ms: 2000 }, 'site');
    const started = Date.now();
    await choose(asked.card, 'Allow this call only');
    assert.ok(Date.now() - started < 1500, `the card closed after ${Date.now() - started} ms, before the call ended`);
    assert.equal(await callsOf(page, 'slow'), 1);
    const reply = await asked.reply;
    assertRan(reply, 'slow');
    assert.equal(reply.result.content[0].text, 'slept (run 1)');
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('a site answer too narrow for the call leads on to the call card', async () => {
    const { page, tabId } = await h.open();
    const chat = await h.chat();
    const site = await h.asks(chat, tabId, 'delete_note', { title: 'Old draft' }, 'site');
    await choose(site.card, 'Allow read-only tools on this website');
    const call = await h.nextCard();
    assert.equal(await cardKind(call), 'call');
    assert.equal((await readCard(call)).heading, 'delete_note');
    await choose(call, 'Allow this call only');
    const reply = await site.reply;
    assertRan(reply, 'delete_note');
    assert.equal(reply.result.content[0].text, 'Deleted "Old draft".');
    // The width stays what the site card gave.
    await h.runs(chat, tabId, 'list_notes');
    const next = await h.asks(chat, tabId, 'add_note', { title: 'A' });
    await choose(next.card, 'Deny this call');
    await next.reply;
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('the call card says what docs/cards.md says, word for word', async () => {
    const { tabId } = await h.open();
    const site = h.site();
    const chat = await chatWith(h, tabId, NON_CONSEQUENTIAL, 'Spring cleaning');
    const { card, reply } = await h.asks(chat, tabId, 'delete_note', { title: 'Old draft' });
    const shownCard = await readCard(card);
    assert.equal(shownCard.chat, 'Asked by Spring cleaning');
    assert.equal(shownCard.heading, 'delete_note');
    assert.equal(shownCard.class, 'Consequential');
    assert.equal(shownCard.argumentCount, '1 argument');
    assert.deepEqual(shownCard.arguments, [['title', 'Old draft']]);
    assert.equal(shownCard.changed, null);
    assert.equal(shownCard.publishesOpen, false, '"What this site publishes" is folded');
    assert.deepEqual(shownCard.publishes, PUBLISHES);
    assert.equal(await card.locator('#publishes-section summary').textContent(), 'What this site publishes');
    assert.equal(shownCard.approve, 'Allow this call only');
    assert.equal(shownCard.deny, 'Deny this call');
    assert.deepEqual(await menuLabels(card, 'More ways to allow'),
      [`Always allow \u201cdelete_note\u201d on ${site}`, `Allow all tools on ${site}`]);
    assert.deepEqual(await menuLabels(card, 'More ways to deny'),
      [`Never allow \u201cdelete_note\u201d on ${site}`, `Deny all page tools on ${site}`]);
    await choose(card, 'Deny this call');
    assert.equal(assertRefused(await reply, 'delete_note'), `refused: you denied this call to delete_note on ${site}`);

    // A Mutating tool's widening answer names its width.
    const ro = await chatWith(h, tabId, 'Allow read-only tools on this website');
    const mutating = await h.asks(ro, tabId, 'add_note', { title: 'Groceries' });
    assert.equal((await readCard(mutating.card)).class, 'Mutating');
    assert.deepEqual(await menuLabels(mutating.card, 'More ways to allow'),
      [`Always allow \u201cadd_note\u201d on ${site}`, `Allow non-consequential read/write tools on ${site}`]);
    await choose(mutating.card, 'Deny this call');
    await mutating.reply;
    await h.browser.assertNoErrors();
  });

  // A card answered elsewhere (its second window) refuses the later answer
  // with a clear error, and stays usable rather than frozen.
  test('an answer the worker does not take leaves the card usable', async () => {
    const { page, tabId } = await h.open();
    const chat = await h.chat();
    const asked = await h.asks(chat, tabId, 'list_notes', {}, 'site');
    const second = await h.browser.context.newPage();
    await second.goto(asked.card.url());
    await second.waitForFunction(() => document.getElementById('deny')?.textContent !== '');
    await choose(asked.card, 'Deny this call');
    await asked.reply;
    await second.getByRole('button', { name: 'Deny this call', exact: true }).click();
    await second.waitForFunction(() => /could not take this answer/.test(document.getElementById('status').textContent));
    assert.match(await second.locator('#status').textContent(), /^Toolgate could not take this answer: card \d+ is not waiting for an answer$/);
    assert.equal(await second.getByRole('button', { name: 'Deny this call', exact: true }).isDisabled(), false);
    await second.close();
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('page text on a card is text, never HTML', async () => {
    const { page, tabId } = await h.open();
    const evil = '<img src=x onerror="window.top.pwned=1">';
    await page.evaluate((t) => { document.title = t; }, `Notes ${evil}`);
    const chat = await h.chat(`Chat ${evil}`);
    const site = await h.asks(chat, tabId, 'list_notes', {}, 'site');
    const siteCard = await readCard(site.card);
    assert.equal(siteCard.chat, `Asked by Chat ${evil}`);
    assert.match(siteCard.lines[1], new RegExp(`in the tab \u201cNotes ${evil.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\u201d`));
    assert.ok(!siteCard.elements.includes('img'), 'no element came from page text');
    await choose(site.card, 'Allow read-only tools on this website');
    await site.reply;

    const call = await h.asks(chat, tabId, 'send_note', { title: evil, to: '<b>bob</b>' });
    const callCard = await readCard(call.card);
    assert.equal(callCard.argumentCount, '2 arguments');
    assert.deepEqual(callCard.arguments, [['title', evil], ['to', '<b>bob</b>']]);
    assert.ok(!callCard.elements.includes('img') && !callCard.elements.includes('b'), 'no element came from the arguments');
    assert.equal(await call.card.evaluate(() => window.pwned), undefined);
    await choose(call.card, 'Allow this call only');
    assert.equal((await call.reply).result.content[0].text, `Sent "${evil}" to <b>bob</b>.`);
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('every answer on the call card, and closing it', async () => {
    const { page, tabId } = await h.open();
    const site = h.site();

    // Allow this call only: runs; nothing is recorded.
    let chat = await chatWith(h, tabId, NON_CONSEQUENTIAL);
    let asked = await h.asks(chat, tabId, 'delete_note', { title: 'Old draft' });
    await choose(asked.card, 'Allow this call only');
    assert.equal((await asked.reply).result.content[0].text, 'Deleted "Old draft".');
    asked = await h.asks(chat, tabId, 'delete_note', { title: 'Old draft' });
    await choose(asked.card, 'Deny this call');
    assertRefused(await asked.reply, 'delete_note');

    // Always allow "delete_note": it runs without asking from now on, in this
    // chat; other consequential tools are still confirmed; other chats still ask.
    asked = await h.asks(chat, tabId, 'delete_note', { title: 'A' });
    await choose(asked.card, `Always allow \u201cdelete_note\u201d on ${site}`);
    assertRan(await asked.reply, 'delete_note');
    const always = await h.runs(chat, tabId, 'delete_note', { title: 'B' });
    assert.equal(always.result._meta.toolgate.why, `delete_note is always allowed on ${site} in this chat`);
    asked = await h.asks(chat, tabId, 'send_note', { title: 'A' });
    await choose(asked.card, 'Deny this call');
    const other = await chatWith(h, tabId, NON_CONSEQUENTIAL);
    asked = await h.asks(other, tabId, 'delete_note', { title: 'A' });

    // Allow all tools on {site}: widens to Consequential and everything below.
    await choose(asked.card, `Allow all tools on ${site}`);
    assertRan(await asked.reply, 'delete_note');
    await h.runs(other, tabId, 'send_note', { title: 'A' });
    await h.runs(other, tabId, 'delete_note', { title: 'C' });

    // For a Mutating tool: "Allow non-consequential read/write tools on {site}".
    chat = await chatWith(h, tabId, 'Allow read-only tools on this website');
    asked = await h.asks(chat, tabId, 'add_note', { title: 'A' });
    await choose(asked.card, `Allow non-consequential read/write tools on ${site}`);
    assertRan(await asked.reply, 'add_note');
    await h.runs(chat, tabId, 'add_note', { title: 'different' });
    asked = await h.asks(chat, tabId, 'delete_note', { title: 'A' });
    // Deny this call: refused; nothing recorded.
    await choose(asked.card, 'Deny this call');
    assertRefused(await asked.reply, 'delete_note');
    asked = await h.asks(chat, tabId, 'delete_note', { title: 'A' });

    // Closing the call card counts as Deny this call: the next call asks again.
    await closeCard(asked.card);
    assert.equal(assertRefused(await asked.reply, 'delete_note'), `refused: you denied this call to delete_note on ${site}`);
    asked = await h.asks(chat, tabId, 'delete_note', { title: 'A' });

    // Deny all page tools on {site}: refuses the site and withdraws what the chat had allowed.
    await choose(asked.card, `Deny all page tools on ${site}`);
    assert.equal(assertRefused(await asked.reply, 'delete_note'), `refused: ${site} is denied in this chat`);
    assert.equal(await h.refused(chat, tabId, 'list_notes'), `refused: list_notes on ${site} is denied in this chat`);
    assert.equal(await h.refused(chat, tabId, 'add_note', { title: 'A' }), `refused: add_note on ${site} is denied in this chat`);
    // Other chats keep their own answers.
    await h.runs(other, tabId, 'send_note', { title: 'still' });
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('Never allow refuses the tool in every chat, without asking, and hides it', async () => {
    // never.test: "Never allow" lasts until the browser restarts, for every chat.
    const { page, tabId } = await h.open('never.test');
    const site = h.site('never.test');
    const chat = await chatWith(h, tabId, NON_CONSEQUENTIAL);
    const asked = await h.asks(chat, tabId, 'delete_note', { title: 'A' });
    await choose(asked.card, `Never allow \u201cdelete_note\u201d on ${site}`);
    const never = `refused: delete_note on ${site} is never allowed, until the browser restarts`;
    assert.equal(assertRefused(await asked.reply, 'delete_note'), never);
    assert.equal(await h.refused(chat, tabId, 'delete_note', { title: 'A' }), never);
    // Other consequential tools are still only confirmed.
    const send = await h.asks(chat, tabId, 'send_note', { title: 'A' });
    await choose(send.card, 'Deny this call');
    await send.reply;
    // Another chat, even one that allowed all tools, is refused too, and does not see it listed.
    const other = await chatWith(h, tabId, 'Allow all tools on this website');
    assert.equal(await h.refused(other, tabId, 'delete_note', { title: 'A' }), never);
    const listing = await h.start(other, h.listRequest(tabId));
    assert.ok(!listing.reply.result.structuredContent.tools.some((t) => t.name === 'delete_note'), 'delete_note is not listed');
    assert.equal(await callsOf(page, 'delete_note'), 0);
    // Other sites' delete_note is untouched.
    const elsewhere = await h.open();
    const third = await chatWith(h, elsewhere.tabId, 'Allow all tools on this website');
    await h.runs(third, elsewhere.tabId, 'delete_note', { title: 'A' });
    await elsewhere.page.close();
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('two chats keep different answers on the same site', async () => {
    const { page, tabId } = await h.open();
    const site = h.site();
    const a = await chatWith(h, tabId, 'Allow all tools on this website', 'Chat A');
    const b = await h.chat('Chat B');
    const asked = await h.asks(b, tabId, 'list_notes', {}, 'site');
    assert.equal((await readCard(asked.card)).chat, 'Asked by Chat B');
    await choose(asked.card, 'Deny for this chat');
    await asked.reply;
    await h.runs(a, tabId, 'send_note', { title: 'A' });
    assert.equal(await h.refused(b, tabId, 'list_notes'), `refused: list_notes on ${site} is denied in this chat`);
    await h.runs(a, tabId, 'delete_note', { title: 'A' });
    // A third chat has answered nothing yet: it is asked.
    const c = await h.chat();
    const third = await h.asks(c, tabId, 'list_notes', {}, 'site');
    await choose(third.card, 'Deny this call');
    await third.reply;
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('calls of one chat made at once on a new site ask the site question once', async () => {
    const { page, tabId } = await h.open();
    const chat = await h.chat('Chat at once');
    // Three requests at once: the first opens the site card, the other two
    // wait on it (one card, not three).
    const first = await h.asks(chat, tabId, 'list_notes', {}, 'site');
    const { reply: second, waitsOn: secondWaitsOn } = await h.sendWaiting(chat, h.request(tabId, 'list_notes'));
    const { reply: listing, waitsOn: listingWaitsOn } = await h.sendWaiting(chat, h.listRequest(tabId));
    // Both were told to wait on the first card, so neither opened one.
    assert.equal(await secondWaitsOn, cardId(first.card), 'the second call waits on the site card');
    assert.equal(await listingWaitsOn, cardId(first.card), 'the listing waits on the site card');
    assert.equal(h.browser.context.pages().filter((p) => p.url().includes('/extension/ui/card.html') && !p.isClosed()).length, 1,
      'one card window');
    await choose(first.card, 'Allow read-only tools on this website');
    assertRan(await first.reply, 'list_notes');
    assertRan(await second, 'list_notes');
    const listed = await listing;
    assert.equal(listed.result.isError, false, JSON.stringify(listed));
    // Once for one call only: the waiting call asks again, on a card of its own.
    const other = await h.chat('Chat once');
    const asked = await h.asks(other, tabId, 'list_notes', {}, 'site');
    const waiting = h.send(other, h.request(tabId, 'list_notes'));
    await choose(asked.card, 'Allow this call only');
    assertRan(await asked.reply, 'list_notes');
    const again = await h.nextCard();
    assert.equal(await cardKind(again), 'site');
    await choose(again, 'Deny this call');
    assertRefused(await waiting, 'list_notes');
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('an approved idempotent Mutating call may be retried at once, identically, without asking', async () => {
    const { page, tabId } = await h.open();
    const chat = await chatWith(h, tabId, 'Allow read-only tools on this website');
    const asked = await h.asks(chat, tabId, 'add_note', { title: 'Retry me' });
    await choose(asked.card, 'Allow this call only');
    assertRan(await asked.reply, 'add_note');
    const retry = await h.runs(chat, tabId, 'add_note', { title: 'Retry me' });
    assert.equal(retry.result._meta.toolgate.why, 'an immediate identical retry of add_note, which you just approved');
    assert.equal(await callsOf(page, 'add_note'), 2);
    // Only the very next call: a third identical call asks again.
    let again = await h.asks(chat, tabId, 'add_note', { title: 'Retry me' });
    await choose(again.card, 'Allow this call only');
    await again.reply;
    // Different arguments are not a retry, and end the window.
    again = await h.asks(chat, tabId, 'add_note', { title: 'Something else' });
    await choose(again.card, 'Deny this call');
    await again.reply;
    again = await h.asks(chat, tabId, 'add_note', { title: 'Retry me' });
    await choose(again.card, 'Deny this call');
    await again.reply;
    // A Consequential tool is never retried without asking, idempotent or not.
    const consequential = await h.asks(chat, tabId, 'delete_note', { title: 'Gone' });
    await choose(consequential.card, 'Allow this call only');
    await consequential.reply;
    const next = await h.asks(chat, tabId, 'delete_note', { title: 'Gone' });
    await choose(next.card, 'Deny this call');
    await next.reply;
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('a grant lapses when the page re-registers the tool with a changed definition', async () => {
    const { page, tabId } = await h.open();
    const site = h.site();
    const chat = await chatWith(h, tabId, NON_CONSEQUENTIAL);
    let asked = await h.asks(chat, tabId, 'delete_note', { title: 'A' });
    await choose(asked.card, `Always allow \u201cdelete_note\u201d on ${site}`);
    await asked.reply;
    await h.runs(chat, tabId, 'delete_note', { title: 'B' });
    // Re-registering the same definition changes nothing.
    await page.evaluate(() => window.redefine('delete_note', 'Delete the note with this title.'));
    assert.equal(await reportsAnswered(page), null, 'the registry has applied the re-registration');
    await h.runs(chat, tabId, 'delete_note', { title: 'C' });

    await page.evaluate(() => window.redefine('delete_note', 'Delete the note with this title, and every copy of it.'));
    await h.browser.waitForPalette(page, (p) => entries(p).find((e) => e.name === 'delete_note')?.description.includes('every copy'),
      'the new definition');
    asked = await h.asks(chat, tabId, 'delete_note', { title: 'D' });
    assert.equal((await readCard(asked.card)).changed,
      'delete_note changed since you chose to always allow it: its description, schema or hints are different.');
    await choose(asked.card, 'Allow this call only');
    assertRan(await asked.reply, 'delete_note');
    // Still not allowed: the old grant does not cover the new definition.
    asked = await h.asks(chat, tabId, 'delete_note', { title: 'E' });
    await choose(asked.card, `Always allow \u201cdelete_note\u201d on ${site}`);
    await asked.reply;
    await h.runs(chat, tabId, 'delete_note', { title: 'F' });
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('invalid arguments get a clear error, before any card', async () => {
    const { page, tabId } = await h.open();
    const chat = await h.chat();
    for (const [args, message] of [
      [{}, 'invalid arguments for add_note: arguments.title: is required'],
      [{ title: 7 }, 'invalid arguments for add_note: arguments.title: expected a string, got an integer'],
      [{ title: 'A', color: 'red' }, 'invalid arguments for add_note: arguments.color: is not a known argument'],
    ]) {
      const got = await h.start(chat, h.request(tabId, 'add_note', args));
      assert.ok(!got.card, `no card for ${JSON.stringify(args)}`);
      assert.equal(got.reply.error?.message, message);
      assert.equal(got.reply.error.code, -32602);
    }
    assert.equal(await callsOf(page, 'add_note'), 0);
    // The chat was never asked, so the site question comes with a valid call.
    const asked = await h.asks(chat, tabId, 'add_note', { title: 'A' }, 'site');
    await choose(asked.card, 'Deny this call');
    await asked.reply;
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('keyboard: Tab to a button and Enter answers; Esc closes an open menu', async () => {
    const { tabId } = await h.open();
    const site = h.site();
    const chat = await h.chat();
    let asked = await h.asks(chat, tabId, 'list_notes', {}, 'site');
    const card = asked.card;
    // Every button has an accessible name.
    for (const name of ['Allow this call only', 'More ways to allow', 'Deny this call', 'More ways to deny']) {
      assert.equal(await card.getByRole('button', { name, exact: true }).count(), 1, `a button named ${name}`);
    }
    const focused = () => card.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent);
    assert.equal(await focused(), `An agent wants permission to use this site's page tools on ${site}`,
      'the heading has the focus, which answers nothing (docs/cards.md, "Answering on purpose")');
    // Tab to the deny arrow; Enter opens its menu.
    for (let i = 0; i < 6 && (await focused()) !== 'More ways to deny'; i++) await card.keyboard.press('Tab');
    assert.equal(await focused(), 'More ways to deny');
    await card.keyboard.press('Enter');
    const menu = card.getByRole('menu');
    assert.equal(await menu.isVisible(), true);
    assert.equal(await focused(), 'Deny for this chat', 'the menu takes the focus');
    // Esc closes the menu, not the card, and gives the focus back to the arrow.
    await card.keyboard.press('Escape');
    assert.equal(await menu.isHidden(), true);
    assert.equal(await card.getByRole('button', { name: 'More ways to deny' }).getAttribute('aria-expanded'), 'false');
    assert.equal(await focused(), 'More ways to deny');
    assert.equal(card.isClosed(), false);
    // Shift+Tab to "Deny this call", Enter answers.
    await card.keyboard.press('Shift+Tab');
    assert.equal(await focused(), 'Deny this call');
    await pressAnswering(card, 'Enter');
    assert.equal(assertRefused(await asked.reply, 'list_notes'), `refused: you denied this call to ${site}`);

    // Esc with no menu open closes the card, which counts as closing it: Deny for this chat.
    const other = await h.chat();
    asked = await h.asks(other, tabId, 'list_notes', {}, 'site');
    await pressAnswering(asked.card, 'Escape');
    assert.equal(assertRefused(await asked.reply, 'list_notes'), `refused: ${site} is denied in this chat`);
    await h.refused(other, tabId, 'list_notes');

    // Arrow keys in a menu, Enter on an item.
    asked = await h.asks(chat, tabId, 'list_notes', {}, 'site');
    // From the heading: the folded list's summary, "Allow this call only", "More ways to allow".
    for (let i = 0; i < 3; i++) await asked.card.keyboard.press('Tab');
    assert.equal(await asked.card.evaluate(() => document.activeElement.getAttribute('aria-label')), 'More ways to allow');
    await asked.card.keyboard.press('ArrowDown');
    await asked.card.keyboard.press('ArrowDown');
    const choice = await asked.card.evaluate(() => document.activeElement.textContent);
    assert.equal(choice, 'Allow non-consequential read/write tools on this website');
    await pressAnswering(asked.card, 'Enter');
    assertRan(await asked.reply, 'list_notes');
    await h.runs(chat, tabId, 'add_note', { title: 'typed' });
    await h.browser.assertNoErrors();
  });
});

describe('on localhost', () => {
  const h = harness();

  test('no site question, read-only width from the start, and no site-wide refusal', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    const site = h.site('notes.localhost');
    const chat = await h.chat('Local chat');
    await h.runs(chat, tabId, 'list_notes');
    const listing = await h.start(chat, h.listRequest(tabId));
    assert.ok(!listing.card, 'a listing is not asked either');
    assert.equal(listing.reply.result.structuredContent.tools.length, 10);
    const asked = await h.asks(chat, tabId, 'add_note', { title: 'Local' });
    const shownCard = await readCard(asked.card);
    assert.equal(shownCard.heading, 'add_note');
    assert.equal(shownCard.class, 'Mutating');
    assert.deepEqual(await menuLabels(asked.card, 'More ways to allow'),
      [`Always allow \u201cadd_note\u201d on ${site}`, `Allow non-consequential read/write tools on ${site}`]);
    assert.deepEqual(await menuLabels(asked.card, 'More ways to deny'),
      [`Never allow \u201cadd_note\u201d on ${site}`], 'no "Deny all page tools" on localhost');
    await choose(asked.card, `Allow non-consequential read/write tools on ${site}`);
    assertRan(await asked.reply, 'add_note');
    await h.runs(chat, tabId, 'add_note', { title: 'Local 2' });
    const consequential = await h.asks(chat, tabId, 'delete_note', { title: 'Local' });
    assert.deepEqual(await menuLabels(consequential.card, 'More ways to deny'), [`Never allow \u201cdelete_note\u201d on ${site}`]);
    await closeCard(consequential.card);
    assertRefused(await consequential.reply, 'delete_note');
    await h.runs(chat, tabId, 'list_notes');

    // The same page on a real host name is asked the site question.
    const real = await h.open('notes.test');
    const remote = await h.asks(chat, real.tabId, 'list_notes', {}, 'site');
    assert.deepEqual(await menuLabels(remote.card, 'More ways to deny'), ['Deny for this chat']);
    await choose(remote.card, 'Deny this call');
    await remote.reply;
    await real.page.close();
    await page.close();
    await h.browser.assertNoErrors();
  });
});

describe('service worker restarts', () => {
  const h = harness();

  test('a card answered after the worker stopped still runs its call; the agent attaches again', async () => {
    const { page, tabId } = await h.open();
    const chat = await h.chat();
    const request = h.request(tabId, 'delete_note', { title: 'Old draft' });
    const first = await h.start(chat, request);
    assert.ok(first.card, 'the site card opened');
    first.reply.catch(() => {}); // The agent loses its wait when the worker stops.
    await h.restartWorker();
    // The agent sends the same request again: it waits on the same card.
    const { reply: again, waitsOn } = await h.sendWaiting(chat, request);
    assert.equal(await waitsOn, cardId(first.card), 'it waits on the card already open');
    assert.equal(h.browser.context.pages().filter((p) => p.url().includes('card.html') && !p.isClosed()).length, 1,
      'no second card');
    await choose(first.card, 'Allow all tools on this website');
    const reply = await again;
    assertRan(reply, 'delete_note');
    assert.equal(reply.id, request.id);
    assert.equal(reply.result.content[0].text, 'Deleted "Old draft".');
    assert.equal(await callsOf(page, 'delete_note'), 1);
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('an agent sending the same request while its call runs gets the call\'s own reply', async () => {
    const { page, tabId } = await h.open();
    const chat = await h.chat();
    const request = h.request(tabId, 'slow', { ms: 1500 });
    const first = await h.start(chat, request);
    first.reply.catch(() => {});
    await h.browser.stopWorker();
    // The answer wakes the worker; the call runs; the agent asks again meanwhile.
    const answered = choose(first.card, 'Allow this call only');
    await page.waitForFunction(() => window.calls.slow === 1);
    const reply = await h.send(chat, request);
    await answered;
    assertRan(reply, 'slow');
    assert.equal(reply.result.content[0].text, 'slept (run 1)');
    assert.equal(await callsOf(page, 'slow'), 1);
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('a Mutating call cut off by the worker stopping is reported as interrupted, once', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    const chat = await h.chat();
    const request = h.request(tabId, 'slow_save', { ms: 800 });
    const first = await h.start(chat, request);
    assert.equal(await cardKind(first.card), 'call');
    first.reply.catch(() => {});
    const late = await nextCallAnswer(page);
    await choose(first.card, 'Allow this call only');
    await page.waitForFunction(() => window.calls.slow_save === 1);
    await h.restartWorker();
    const reply = await h.send(chat, request);
    assert.equal(reply.error?.message, "the call was interrupted when Toolgate's service worker stopped; it may have run");
    // The page's late answer goes nowhere and breaks nothing.
    assert.equal(await late.answered(), true, 'the page answered, late');
    assert.equal(await callsOf(page, 'slow_save'), 1, 'never run twice');
    await h.runs(chat, tabId, 'list_notes');
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('a Read-only call cut off by the worker stopping runs again when the agent asks again', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    const chat = await h.chat();
    const request = h.request(tabId, 'slow', { ms: 1500 });
    const lost = h.send(chat, request);
    lost.catch(() => {});
    await page.waitForFunction(() => window.calls.slow === 1);
    await h.restartWorker();
    // Running it again is harmless, so it was never recorded as running. The
    // reply is the second run's own, though the first run, started before
    // the stop, answers first (to nobody).
    const reply = await h.send(chat, request);
    assertRan(reply, 'slow');
    assert.equal(reply.result.content[0].text, 'slept (run 2)');
    assert.equal(await callsOf(page, 'slow'), 2);
    await h.runs(chat, tabId, 'list_notes');
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('a card answered while no agent waits keeps the reply for the same request', async () => {
    const { page, tabId } = await h.open();
    const chat = await chatWith(h, tabId, 'Allow read-only tools on this website');
    const request = h.request(tabId, 'send_note', { title: 'A', to: 'B' });
    const first = await h.start(chat, request);
    assert.equal(await cardKind(first.card), 'call');
    first.reply.catch(() => {});
    await h.browser.stopWorker();
    await choose(first.card, 'Allow this call only');
    // The call ran with nobody waiting; the same request collects its reply.
    // The card closes once its answer is recorded, before the call runs.
    await page.waitForFunction(() => window.calls.send_note >= 1);
    assert.equal(await callsOf(page, 'send_note'), 1);
    const kept = await h.send(chat, request);
    assertRan(kept, 'send_note');
    assert.equal(kept.result.content[0].text, 'Sent "A" to B.');
    assert.equal(await callsOf(page, 'send_note'), 1, 'collecting the reply does not run the call again');
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('closing a card while the worker is stopped still counts as closing it', async () => {
    const { page, tabId } = await h.open();
    const site = h.site();
    const chat = await h.chat();
    const request = h.request(tabId, 'list_notes');
    const first = await h.start(chat, request);
    first.reply.catch(() => {});
    await h.browser.stopWorker();
    await closeCard(first.card);
    // The agent asks again and collects the refusal; later calls are refused without asking.
    const kept = await h.send(chat, request);
    assert.equal(assertRefused(kept, 'list_notes'), `refused: ${site} is denied in this chat`);
    assert.equal(await h.refused(chat, tabId, 'list_notes'), `refused: list_notes on ${site} is denied in this chat`);
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('answers survive the worker stopping between calls', async () => {
    const { page, tabId } = await h.open();
    const site = h.site();
    const all = await h.chat();
    let asked = await h.asks(all, tabId, 'list_notes', {}, 'site');
    await choose(asked.card, 'Allow all tools on this website');
    await asked.reply;
    const denied = await h.chat();
    asked = await h.asks(denied, tabId, 'list_notes', {}, 'site');
    await choose(asked.card, 'Deny for this chat');
    await asked.reply;
    const always = await h.chat();
    asked = await h.asks(always, tabId, 'list_notes', {}, 'site');
    await choose(asked.card, 'Allow read-only tools on this website');
    await asked.reply;
    asked = await h.asks(always, tabId, 'add_note', { title: 'A' });
    await choose(asked.card, `Always allow \u201cadd_note\u201d on ${site}`);
    await asked.reply;

    await h.restartWorker();
    await h.runs(all, tabId, 'send_note', { title: 'A' });
    await h.runs(always, tabId, 'add_note', { title: 'B' });
    assert.equal(await h.refused(denied, tabId, 'list_notes'), `refused: list_notes on ${site} is denied in this chat`);
    await h.restartWorker();
    await h.runs(always, tabId, 'list_notes');
    const confirm = await h.asks(always, tabId, 'delete_note', { title: 'A' });
    await choose(confirm.card, 'Deny this call');
    await confirm.reply;
    await page.close();
    await h.browser.assertNoErrors();
  });
});

describe('when a call fails', () => {
  // A short timeout, so a tool that never answers fails fast.
  const h = harness({ configure: { callTimeoutMs: 1500 } });

  // Each failure gives the agent a clear error; the page keeps working.
  async function stillWorks(chat, tabId, page) {
    const reply = await h.runs(chat, tabId, 'list_notes');
    assert.match(reply.result.content[0].text, /"notes"/);
    if (page) assert.equal(await page.evaluate(() => document.title), 'Notes');
  }

  test('a tool that throws, never answers, or answers too much', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    const chat = await h.chat();

    let reply = (await h.start(chat, h.request(tabId, 'explode'))).reply;
    assert.equal(reply.result.isError, true);
    assert.equal(reply.result.content[0].text, 'explode threw RangeError: the notes exploded');
    await stillWorks(chat, tabId, page);

    const started = Date.now();
    reply = (await h.start(chat, h.request(tabId, 'hang'))).reply;
    assert.equal(reply.result.isError, true);
    assert.equal(reply.result.content[0].text, 'hang did not answer within 1.5 s');
    assert.ok(Date.now() - started < 5000, 'the timeout came on time');
    await stillWorks(chat, tabId, page);

    // A tool slower than the timeout fails too, and its late answer changes nothing.
    const late = await nextCallAnswer(page);
    reply = (await h.start(chat, h.request(tabId, 'slow', { ms: 1800 }))).reply;
    assert.equal(reply.result.content[0].text, 'slow did not answer within 1.5 s');
    assert.equal(await late.answered(), true, 'the page answered, late');
    await stillWorks(chat, tabId, page);

    reply = (await h.start(chat, h.request(tabId, 'huge'))).reply;
    assert.equal(reply.result.isError, true);
    assert.match(reply.result.content[0].text, /^the tool's result is 1200002 bytes, over Toolgate's cap of 1048576 bytes$/);
    await stillWorks(chat, tabId, page);
    assert.equal(await callsOf(page, 'huge'), 1);
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('an agent call fires toolactivated in the page, as executeTool does', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    await page.evaluate(() => {
      window.activated = [];
      window.addEventListener('toolactivated', (event) => window.activated.push(event.toolName));
    });
    const chat = await h.chat();
    await h.runs(chat, tabId, 'list_notes');
    await h.start(chat, h.request(tabId, 'explode'));
    assert.deepEqual(await page.evaluate(() => window.activated), ['list_notes', 'explode']);
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('the relay lets go of a call its page never answers, once the worker stopped waiting', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    const sw = await h.browser.worker();
    // Call messages as the worker sends them: the page's tool never answers,
    // so only the relay can. One timer watches every call's deadline, so a
    // call with a long timeout, then calls with shorter ones, must each be let
    // go at its own deadline, not at the long one's.
    const answers = await sw.evaluate(async (tab) => {
      const frames = await chrome.webNavigation.getAllFrames({ tabId: tab });
      const { documentId } = frames.find((f) => f.frameId === 0);
      const send = (timeout) => chrome.tabs.sendMessage(tab,
        { type: 'call', source: 'document', name: 'hang', arguments: {}, timeout_ms: timeout }, { frameId: 0, documentId });
      const held = (ms) => new Promise((resolve) => setTimeout(() => resolve(`still held after ${ms / 1000} s`), ms));
      let longAnswer = 'still held';
      send(60_000).then((answer) => { longAnswer = answer; }, (error) => { longAnswer = `rejected: ${error}`; });
      const short = await Promise.all([send(1_000), send(100)].map((sent) => Promise.race([sent, held(5000)])));
      // The relay's one timer let both short calls go; the long one's
      // deadline is a minute away. Had a sweep let it go too, its answer was
      // sent then, before the answer to this ping, which comes after them.
      await chrome.tabs.sendMessage(tab, { type: 'ping' }, { frameId: 0, documentId });
      return [...short, longAnswer];
    }, tabId);
    const letGo = { ok: false, error: 'the tool did not answer within the call timeout' };
    assert.deepEqual(answers, [letGo, letGo, 'still held']);
    assert.equal(await callsOf(page, 'hang'), 3);
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('a result is serialised once, in the page; one that cannot be, or a forged one, gets a clear error', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    await page.evaluate(() => {
      window.getterRuns = 0;
      const readOnly = { readOnlyHint: true };
      document.modelContext.registerTool({
        name: 'counted', description: 'A result with a getter.', annotations: readOnly,
        execute: () => ({ get n() { window.getterRuns += 1; return window.getterRuns; } }),
      });
      document.modelContext.registerTool({
        name: 'cyclic', description: 'A result with a cycle.', annotations: readOnly,
        execute: () => { const o = {}; o.self = o; return o; },
      });
      // A page that answers a call for Toolgate, with text that is not JSON,
      // while its tool never does.
      document.modelContext.registerTool({
        name: 'forged', description: 'Answered by the page itself.', annotations: readOnly,
        execute: () => new Promise(() => {}),
      });
      window.addEventListener('toolgate:to-page', (event) => {
        const message = JSON.parse(event.detail);
        if (message.type !== 'call' || message.name !== 'forged') return;
        window.dispatchEvent(new CustomEvent('toolgate:to-relay', {
          detail: JSON.stringify({ type: 'call_result', call_id: message.call_id, ok: true, json: '{"broken' }),
        }));
      });
    });
    await h.browser.waitForPalette(page, (p) => entries(p).length === 14, 'the three tools more');
    const chat = await h.chat();

    const reply = await h.runs(chat, tabId, 'counted');
    assert.equal(reply.result.content[0].text, '{"n":1}');
    assert.equal(await page.evaluate(() => window.getterRuns), 1, 'the result\'s getter ran once');

    let got = (await h.start(chat, h.request(tabId, 'cyclic'))).reply;
    assert.equal(got.result.isError, true);
    assert.match(got.result.content[0].text, /^cyclic returned a result that cannot be serialised \(TypeError: /);

    got = (await h.start(chat, h.request(tabId, 'forged'))).reply;
    assert.equal(got.result.isError, true);
    assert.match(got.result.content[0].text, /^the page answered with a result that is not JSON: /);
    await stillWorks(chat, tabId, page);
    await page.close();
    await h.browser.assertNoErrors();
  });

  // The page answers a plain result at once and awaits anything else: the
  // agent must not be able to tell which way a result came.
  test('a plain result answered at once reads as the same result awaited; a hostile thenable fails cleanly', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    const plain = { text: 'ok', number: 2.5, nan: NaN, yes: true, nothing: null, absent: undefined, empty: '' };
    await page.evaluate((names) => {
      const readOnly = { readOnlyHint: true };
      const values = { text: 'ok', number: 2.5, nan: NaN, yes: true, nothing: null, absent: undefined, empty: '' };
      for (const name of names) {
        document.modelContext.registerTool({ name: `now_${name}`, description: 'A plain result.', annotations: readOnly, execute: () => values[name] });
        document.modelContext.registerTool({ name: `later_${name}`, description: 'The same, awaited.', annotations: readOnly, execute: async () => values[name] });
      }
      // A promise whose constructor getter throws (read when it is awaited),
      // and a thenable whose then throws.
      const hostile = Promise.resolve('never seen');
      Object.defineProperty(hostile, 'constructor', { get() { throw new Error('constructor getter'); } });
      document.modelContext.registerTool({ name: 'hostile_promise', description: 'Hostile.', annotations: readOnly, execute: () => hostile });
      document.modelContext.registerTool({
        name: 'hostile_thenable', description: 'Hostile.', annotations: readOnly,
        execute: () => ({ then() { throw new Error('then threw'); } }),
      });
    }, Object.keys(plain));
    const count = 11 + 2 * Object.keys(plain).length + 2;
    await h.browser.waitForPalette(page, (p) => entries(p).length === count, 'the tools added');
    const chat = await h.chat();
    const text = async (name) => (await h.runs(chat, tabId, name)).result.content[0].text;
    for (const name of Object.keys(plain)) {
      const now = await text(`now_${name}`);
      assert.equal(now, await text(`later_${name}`), `now_${name} and later_${name}`);
      assert.equal(now, name === 'absent' || name === 'nan' || name === 'nothing' ? 'null' : String(plain[name]), name);
    }
    for (const [name, why] of [['hostile_promise', 'constructor getter'], ['hostile_thenable', 'then threw']]) {
      const { reply } = await h.start(chat, h.request(tabId, name));
      assert.equal(reply.result.isError, true, name);
      assert.equal(reply.result.content[0].text, `${name} threw Error: ${why}`);
    }
    await stillWorks(chat, tabId, page);
    await page.close();
    await h.browser.assertNoErrors();
  });

  // One timer watches every running call's deadline: a call under a shorter
  // timeout, started while a longer one runs, must not wait for the longer.
  test('a timeout shortened while a longer call runs fires on its own time', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    const chat = await h.chat();
    const sw = await h.browser.worker();
    await sw.evaluate(() => self.toolgate.configure({ callTimeoutMs: 60_000 }));
    const long = h.send(chat, h.request(tabId, 'hang'));
    let longSettled = false;
    long.then(() => { longSettled = true; }, () => { longSettled = true; });
    await page.waitForFunction(() => window.calls.hang === 1);
    await sw.evaluate(() => self.toolgate.configure({ callTimeoutMs: 600 }));
    const started = Date.now();
    const reply = (await h.start(chat, h.request(tabId, 'hang'))).reply;
    assert.equal(reply.result.content[0].text, 'hang did not answer within 0.6 s');
    assert.ok(Date.now() - started < 4000, `the shorter timeout came on time (${Date.now() - started} ms)`);
    // The longer call still waits: it is not cut short by the other's timer.
    // The worker's one timer fired for the shorter call; had that sweep let
    // the longer one go too, its reply (its deadline is the older one) would
    // have left the worker, and reached this test, before the shorter's.
    const first = longSettled ? 'answered' : 'waiting';
    assert.equal(first, 'waiting');
    await sw.evaluate(() => self.toolgate.configure({ callTimeoutMs: 1500 }));
    // Closing its tab ends it.
    await page.close();
    assert.match((await long).result.content[0].text, /^the page that published hang went away/);
    await h.browser.assertNoErrors();
  });

  // Timers take at most 2^31 − 1 ms; a longer delay fires at once. A call
  // timeout past that (a CI run that never wants one) must still let a
  // tool take its time, in the worker and in the page's relay.
  test('a call timeout longer than a timer can wait still waits', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    const chat = await h.chat();
    const sw = await h.browser.worker();
    await sw.evaluate(() => self.toolgate.configure({ callTimeoutMs: 30 * 24 * 3600 * 1000 }));
    const { reply } = await h.start(chat, h.request(tabId, 'slow', { ms: 300 }));
    assert.equal(reply.result.isError, false, JSON.stringify(reply));
    await sw.evaluate(() => self.toolgate.configure({ callTimeoutMs: 1500 }));
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('bad settings are refused with the reason, and change nothing', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    const chat = await h.chat();
    const sw = await h.browser.worker();
    const refused = (changes) => sw.evaluate((c) => self.toolgate.configure(c).then(() => 'taken', (e) => e.message), changes);
    assert.equal(await refused({ callTimeoutMs: 'abc' }), 'settings: callTimeoutMs must be a whole number of at least 1, not the string "abc"');
    assert.equal(await refused({ callTimeoutMs: 0 }), 'settings: callTimeoutMs must be a whole number of at least 1, not 0');
    assert.equal(await refused({ resultCapBytes: 1.5 }), 'settings: resultCapBytes must be a whole number of at least 1, not 1.5');
    assert.equal(await refused({ timeout: 5 }), 'settings: there is no setting timeout (there are callTimeoutMs, resultCapBytes)');
    assert.equal(await refused(null), 'settings: give an object, as {callTimeoutMs, resultCapBytes}');
    // Nothing changed: the harness's 1.5 s timeout still holds.
    assert.equal((await h.start(chat, h.request(tabId, 'hang'))).reply.result.content[0].text, 'hang did not answer within 1.5 s');
    // A value written to storage by hand that is not a setting gives the default.
    // (A timeout of -5 ms would fail the call at once; the default lets it answer.)
    await sw.evaluate(() => chrome.storage.local.set({ settings: { callTimeoutMs: -5, resultCapBytes: 10 } }));
    const reply = (await h.start(chat, h.request(tabId, 'slow', { ms: 300 }))).reply;
    assert.match(reply.result.content[0].text, /^the tool's result is \d+ bytes, over Toolgate's cap of 10 bytes$/);
    assert.equal(await sw.evaluate(() => self.toolgate.configure({ callTimeoutMs: 1500, resultCapBytes: 1024 * 1024 }).then(() => 'taken')), 'taken');
    await page.close();
    await h.browser.assertNoErrors();
  });

  test('the tab closes or navigates mid-call', async () => {
    const chat = await h.chat();
    const closing = await h.open('notes.localhost');
    const pending = h.start(chat, h.request(closing.tabId, 'slow', { ms: 1000 }));
    await closing.page.waitForFunction(() => window.calls.slow === 1);
    await closing.page.close();
    let reply = (await pending).reply;
    assert.equal(reply.result.isError, true);
    assert.equal(reply.result.content[0].text,
      'the page that published slow went away (its tab closed or navigated) before the tool answered');
    const closed = await h.start(chat, h.request(closing.tabId, 'list_notes'));
    assert.equal(closed.reply.error?.message, `there is no tab ${closing.tabId}`);

    const leaving = await h.open('notes.localhost');
    reply = (await h.start(chat, h.request(leaving.tabId, 'leave'))).reply;
    assert.equal(reply.result.isError, true);
    assert.equal(reply.result.content[0].text,
      'the page that published leave went away (its tab closed or navigated) before the tool answered');
    await leaving.page.waitForURL(/other\.html/);
    const gone = await h.start(chat, h.request(leaving.tabId, 'list_notes'));
    assert.equal(gone.reply.error?.message, `tab ${leaving.tabId} publishes no tools`);
    // Back on the page: it works again.
    await leaving.page.goBack({ waitUntil: 'commit' });
    await h.browser.waitForPalette(leaving.page, (p) => entries(p).length === 11, 'the tools again');
    await stillWorks(chat, leaving.tabId, leaving.page);
    await leaving.page.close();
    await h.browser.assertNoErrors();
  });

  test('the tab closes while its card is open: the answer gives the agent a clear error', async () => {
    const { page, tabId } = await h.open();
    const chat = await h.chat();
    const asked = await h.asks(chat, tabId, 'delete_note', { title: 'A' }, 'site');
    await page.close();
    await choose(asked.card, 'Allow all tools on this website');
    const reply = await asked.reply;
    assert.equal(reply.error?.message, `delete_note is no longer published by tab ${tabId}`);
    // The answer itself was recorded for the site: another tab of it runs at once.
    const again = await h.open();
    await h.runs(chat, again.tabId, 'delete_note', { title: 'A' });
    await again.page.close();
    await h.browser.assertNoErrors();
  });

  test('unknown tabs and unknown tools', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    const chat = await h.chat();
    let got = await h.start(chat, h.request(987654, 'list_notes'));
    assert.equal(got.reply.error?.message, 'there is no tab 987654');
    got = await h.start(chat, h.request(tabId, 'no_such_tool'));
    assert.equal(got.reply.error?.message, `tab ${tabId} publishes no tool named "no_such_tool"`);
    got = await h.start(chat, h.request(tabId, 'house_style'));
    assert.equal(got.reply.error?.message, 'house_style is a skill: skills are read, never called');
    got = await h.start(chat, h.listRequest(987654));
    assert.equal(got.reply.error?.message, 'there is no tab 987654');
    await stillWorks(chat, tabId, page);
    // The same on a real host name: no card before the error.
    const real = await h.open();
    got = await h.start(chat, h.request(real.tabId, 'no_such_tool'));
    assert.ok(!got.card);
    assert.equal(got.reply.error?.message, `tab ${real.tabId} publishes no tool named "no_such_tool"`);
    await real.page.close();
    await page.close();
    await h.browser.assertNoErrors();
  });
});
