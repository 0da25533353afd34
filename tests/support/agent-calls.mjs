// An agent's calls as the end-to-end tests of hostile pages make them: a
// browser with Toolgate and a server of test pages, chats opened through the
// worker's agent entry, and calls that come to either a reply or a card.
import { after, before } from 'node:test';
import { entries, launch } from './browser.mjs';
import { serve } from './server.mjs';
import { cardWatcher } from './cards.mjs';

const REAL_HOSTS = ['--host-resolver-rules=MAP *.test 127.0.0.1'];

// Registers the describe's before/after; the returned object's `server`,
// `browser` and `cards` are set once `before` has run.
export function agentCalls(pages, chatPrefix) {
  const h = {};
  let nextId = 0;
  let nextChat = 0;
  before(async () => {
    h.server = await serve(pages);
    h.browser = await launch({ args: REAL_HOSTS });
    h.cards = cardWatcher(h.browser.context);
  });
  after(async () => {
    await h.browser?.close();
    await h.server?.close();
  });
  // Opens `path` on `host`; resolves once the palette lists `tools` entries.
  h.open = async (host, path, tools, timeout = 10_000) => {
    const page = await h.browser.newPage(h.server.url(host, path));
    await h.browser.waitForPalette(page, (p) => entries(p).length === tools, `${tools} tools`, timeout);
    return { page, tabId: await h.browser.tabId(page) };
  };
  // A new chat, named `label` on its cards (else its id).
  h.chat = async (label = null) => {
    const id = `${chatPrefix}-${++nextChat}`;
    const sw = await h.browser.worker();
    await sw.evaluate(([c, l]) => self.toolgate.openChat(c, { label: l }), [id, label ?? id]);
    return id;
  };
  h.call = (tabId, name, args = {}) => ({
    jsonrpc: '2.0', id: ++nextId, method: 'tools/call',
    params: { name: 'browser_call_webmcp_tool', arguments: { tabId, name, arguments: args } },
  });
  // Sends the request; resolves with the card it opens (and the reply to
  // come), or with its reply when it opens none.
  h.start = async (chatId, request) => {
    const sw = await h.browser.worker();
    let settled = null;
    const reply = sw.evaluate(([c, r]) => self.toolgate.agent(c, r), [chatId, request]);
    reply.then((r) => { settled = r; }, () => {});
    for (const deadline = Date.now() + 15_000; Date.now() < deadline;) {
      if (settled) return { reply: settled };
      if (h.cards.pending()) return { card: await h.cards.next(), reply };
      await new Promise((done) => setTimeout(done, 25));
    }
    throw new Error(`neither a reply nor a card for ${JSON.stringify(request)}`);
  };
  h.text = (reply) => reply.error?.message ?? reply.result?.content?.[0]?.text;
  return h;
}
