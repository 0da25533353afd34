// The end-to-end tests' one fixture for an agent's calls: a server of test
// pages, a browser with Toolgate (every test of the file fails on any error
// uncaught in it: tests/support/browser.mjs), and an agent's view of it:
// chats, calls that come to a reply or a card (lib/agent.mjs, which the
// Playwright fixture shares), and cards met as they open (lib/cards.mjs's
// `cardWatcher`, on the browser's own `page` event). A file whose browser
// needs options of its own (native WebMCP, another extension, a native
// host) gives them as `launch`.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import * as agent from '../../lib/agent.mjs';
import { cardWatcher } from '../../lib/cards.mjs';
import { TOOLGATE_ID, entries, launch } from './browser.mjs';
import { serve } from './server.mjs';
import { cardKind, choose } from './cards.mjs';
import { sendWaiting } from './events.mjs';

// Chromium's switch that maps `*.test` to this machine: a real host name.
export const REAL_HOSTS = ['--host-resolver-rules=MAP *.test 127.0.0.1'];

// Registers the describe's (or file's) before and after, and returns what
// its tests use; `server`, `browser` and `cards` are set once `before` has run.
//   pages: the directory the server serves (default: the Notes pages of
//     tests/pages/answers, eleven tools and skills);
//   tools: how many entries `open` waits for by default;
//   configure: settings handed to `self.toolgate.configure` at the start;
//   chatPrefix: the start of each chat's id;
//   launch: more options for tests/support/browser.mjs's `launch` (an
//     object, or a function of the server that gives one); `args` are
//     added to the switch that maps `*.test` here.
export function harness({
  pages = 'tests/pages/answers', tools = 11, configure = null, chatPrefix = 'chat', launch: options = {},
} = {}) {
  const h = {};
  let nextId = 0;
  let nextChat = 0;
  let nextPage = 0;

  before(async () => {
    h.server = await serve(pages);
    const { args = [], ...more } = typeof options === 'function' ? options(h.server) : options;
    h.browser = await launch({ ...more, args: [...REAL_HOSTS, ...args] });
    h.cards = cardWatcher(h.browser.context);
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
    h.cards.claim(page);
    await page.goto(`chrome-extension://${TOOLGATE_ID}/extension/ui/card.html?card=0`);
    await page.getByText('This request was already answered.').waitFor();
    await h.browser.worker();
    await page.close();
  };

  // "notes.test:<port>", as cards name the site.
  h.site = (host = 'notes.test') => `${host}:${h.server.port}`;

  // Opens `path` on `host` in a tab of its own (by default the Notes page at
  // an address no other tab has); resolves once the palette lists `count`
  // entries, with the page and its tab id.
  h.open = async (host = 'notes.test', path = null, count = tools, timeout = 10_000) => {
    const page = await h.browser.newPage(h.server.url(host, path ?? `/?${++nextPage}`));
    await h.browser.waitForPalette(page, (p) => entries(p).length === count, `${count} tools and skills`, timeout);
    return { page, tabId: await h.browser.tabId(page) };
  };

  // A new chat, opened as the agent console or an MCP session would, named
  // `label` on its cards (else its id).
  h.chat = async (label = null) => {
    const id = `${chatPrefix}-${++nextChat}`;
    await agent.openChat(await h.browser.worker(), id, label ?? id);
    return id;
  };

  h.request = (tabId, name, args = {}, id = ++nextId) => agent.callRequest(id, tabId, name, args);
  h.listRequest = (tabId, id = ++nextId) => agent.listRequest(id, tabId);

  // Sends a request as `chat`; resolves with the reply.
  h.send = async (chat, request) => agent.send(await h.browser.worker(), chat, request);

  // Sends a request as `chat`; `waitsOn` resolves with the id of the card
  // it is told to wait on (tests/support/events.mjs).
  h.sendWaiting = async (chat, request) => sendWaiting(await h.browser.worker(), chat, request);

  // Sends a request and resolves with whichever comes first: the reply
  // ({ reply }), or a card ({ card, reply }).
  h.start = async (chat, request) => agent.start(await h.browser.worker(), h.cards, chat, request);

  // The call runs without a card; resolves with its reply.
  h.runs = async (chat, tabId, name, args = {}) => {
    const got = await h.start(chat, h.request(tabId, name, args));
    assert.ok(!got.card, `${name} should run without asking, but a card opened`);
    assertRan(got.reply, name);
    return got.reply;
  };

  // Tools a test registers through Playwright's evaluate have no script of
  // the page's on their stack: "registered by a script Toolgate could not
  // see", asked about once a chat (docs/cards.md, "Tools registered by other
  // sites' scripts"). The call of `name` opens that card, whose answer for
  // the chat lets it run; resolves with its reply.
  h.allowUnseen = async (chat, tabId, name, args = {}) => {
    const { card, reply } = await h.asks(chat, tabId, name, args, 'script');
    await choose(card, "Allow tools from scripts Toolgate could not see in this chat");
    return reply;
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

  // A reply's text: its error's message, or its first content.
  h.text = (reply) => reply.error?.message ?? reply.result?.content?.[0]?.text;

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

export const PUBLISHES = [
  'list_notes, Read only', 'add_note, Mutating', 'delete_note, Consequential', 'send_note, Consequential',
  'explode, Read only', 'hang, Read only', 'huge, Read only', 'leave, Read only', 'slow, Read only',
  'slow_save, Mutating', 'house_style, Skill',
];

// How many times the page's own tool ran.
export const callsOf = (page, name) => page.evaluate((n) => window.calls[n] ?? 0, name);
