// The harness of the end-to-end tests of docs/cards.md ("The two cards"):
// a server of the Notes pages, a browser with Toolgate, and an agent's view
// of it (chats, calls that come to a reply or a card, the cards clicked by
// their labels). Shared by answers.test.mjs, worker-restarts.test.mjs and
// call-failures.test.mjs.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { entries, launch } from './browser.mjs';
import { serve } from './server.mjs';
import { cardKind, choose, ready } from './cards.mjs';
import { sendWaiting } from './events.mjs';

export const REAL_HOSTS = ['--host-resolver-rules=MAP *.test 127.0.0.1'];
export const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// Everything a describe needs: a server, a browser, and an agent's view of it.
export function harness({ configure = null } = {}) {
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

export function assertRan(reply, name) {
  assert.equal(reply.error, undefined, `${name}: ${reply.error?.message}`);
  assert.equal(reply.result.isError, false, `${name} ran: ${reply.result.content?.[0]?.text}`);
  assert.equal(reply.result._meta.toolgate.decision, 'run');
}

export function assertRefused(reply, name) {
  assert.equal(reply.error, undefined, `${name}: ${reply.error?.message}`);
  assert.equal(reply.result.isError, true, `${name} is refused`);
  assert.equal(reply.result._meta.toolgate.decision, 'refuse');
  assert.equal(reply.result.content[0].text, reply.result._meta.toolgate.why);
  return reply.result._meta.toolgate.why;
}

// A new chat that answered the site card (asked by a first list_notes) with `answer`.
export async function chatWith(h, tabId, answer, label) {
  const chat = await h.chat(label);
  const { card, reply } = await h.asks(chat, tabId, 'list_notes', {}, 'site');
  await choose(card, answer);
  assertRan(await reply, 'list_notes');
  return chat;
}
export const NON_CONSEQUENTIAL = 'Allow non-consequential read/write tools on this website';

// The labels behind an arrow, opening and closing its menu.
export async function menuLabels(card, arrowName) {
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
export async function pressAnswering(card, key) {
  const closed = card.waitForEvent('close');
  await card.keyboard.press(key).catch((error) => {
    if (!card.isClosed()) throw error;
  });
  await closed;
}

// Closes a card's window without answering, as a person closing it.
export async function closeCard(card) {
  await card.close();
}

// Everything a card shows, as text.
export function readCard(card) {
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

export const PUBLISHES = [
  'list_notes, Read only', 'add_note, Mutating', 'delete_note, Consequential', 'send_note, Consequential',
  'explode, Read only', 'hang, Read only', 'huge, Read only', 'leave, Read only', 'slow, Read only',
  'slow_save, Mutating', 'house_style, Skill',
];

// How many times the page's own tool ran.
export const callsOf = (page, name) => page.evaluate((n) => window.calls[n] ?? 0, name);
