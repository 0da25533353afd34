// Who is asking (issue 26, attacks 6 and 7; ARCHITECTURE.md, "The shim–relay
// channel"): a page cannot reach the channel between Toolgate's shim and its
// relay, so it cannot pose as the browser's agent. A page that tries every way
// it has (tests/pages/channel/: events, a handshake of its own, postMessage,
// built-ins patched before and after its first use of WebMCP) gets no card,
// and the browser's real agent (where the browser has one) is still asked.
// Where the page scripts a frame's window before its document loads, it may
// take that frame's channel; the relay then still refuses a native call
// where the browser has no WebMCP of its own. With the browser's WebMCP off
// and on, on 148 and 156; cards clicked by their labels.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSER_VERSION, entries } from '../support/browser.mjs';
import { browserAgent } from '../support/browser-agent.mjs';
import { cardKind, choose } from '../support/cards.mjs';
import { harness } from '../support/fixture.mjs';

const BROWSER_AGENT = "Asked by the browser's agent in this tab";

for (const native of [false, true]) {
  describe(`a page against the shim–relay channel, the browser's own WebMCP ${native ? 'on' : 'off'}`, () => {
    const h = harness({ pages: 'tests/pages/channel', tools: 3, chatPrefix: 'channel', launch: { native } });

    test('events, a handshake of its own, postMessage and patched built-ins reach nothing: no card says the browser\'s agent asked', async () => {
      const { page, tabId } = await h.open('bank.localhost', '/?1');
      await page.evaluate(() => window.forge());
      // An agent of the person's asks next: the first card is its own. Had
      // the forged call reached the worker, the browser's agent's would have come first.
      const chat = await h.chat('Console');
      const asked = await h.start(chat, h.request(tabId, 'transfer', { to: 'mallory', amount: 9999 }));
      assert.ok(asked.card, 'the chat is asked');
      assert.equal(await asked.card.locator('#chat').innerText(), 'Asked by Console');
      await choose(asked.card, 'Deny this call');
      await asked.reply;
      assert.equal(h.cards.pending(), false, 'no other card');
      assert.deepEqual(await page.evaluate(() => window.spied), [],
        'the page saw no port, and none of its patched built-ins was used for the channel');
      assert.deepEqual(await page.evaluate(() => window.ran), []);
      await page.close();
    });

    test("the browser's agent is asked about its own call, whatever the page did first", { skip: native ? false : 'no browser agent exists with the browser\'s WebMCP off' }, async () => {
      const { page } = await h.open('bank.localhost', '/?2');
      await page.evaluate(() => window.forge());
      const agent = await browserAgent(h.browser.context, page);
      const call = agent.call('transfer', { to: 'alice', amount: 5 });
      // On localhost no site question comes first (docs/cards.md): the call's
      // card, and the first card is the real call's, not the page's forgery.
      const card = await h.cards.next();
      assert.equal(await cardKind(card), 'call');
      assert.equal(await card.locator('#chat').textContent(), BROWSER_AGENT);
      const shown = await card.locator('body').innerText();
      assert.match(shown, /alice/);
      assert.doesNotMatch(shown, /mallory/);
      await choose(card, 'Deny this call');
      assert.equal((await call).ok, false);
      assert.equal(h.cards.pending(), false, 'one card: the real call\'s');
      assert.deepEqual(await page.evaluate(() => window.ran), []);
      // Refused native calls are thrown to the browser, which reports them as the page's errors.
      h.browser.errors.splice(0, h.browser.errors.length, ...h.browser.errors.filter((e) => !/Toolgate refused this call/.test(e)));
      await agent.detach();
      await page.close();
    });

    test('a frame whose window the page scripted first: the page may take its channel, and a native call on it is refused where the browser has no WebMCP', { skip: native ? 'with the browser\'s WebMCP on, such a call is one the page can make through the browser\'s own executeTool: ARCHITECTURE.md, "Who is gated"' : false }, async () => {
      const { page } = await h.open('bank.localhost', '/?3');
      const got = await page.evaluate(() => window.frameForgery());
      // Measured on 148 and 156: the window of an iframe's initial
      // about:blank is the window of its srcdoc document, listeners and all.
      assert.equal(got.took, true, `the page took the frame's channel (Chromium ${BROWSER_VERSION})`);
      const refusal = got.heard.find((m) => m.type === 'native_result');
      assert.equal(refusal.call, 7);
      assert.match(refusal.failed, /^this browser has no WebMCP of its own/);
      const answer = got.heard.find((m) => m.type === 'results');
      assert.equal(answer.error, null, 'a report about the frame itself is read as any');
      assert.equal(h.cards.pending(), false, 'no card');
      assert.deepEqual(await page.evaluate(() => window.ran), []);
      await page.close();
    });
  });
}

// What the shim sends passes through no hook a page can set (issue 37, attack
// 13; ARCHITECTURE.md, "The shim–relay channel"): a page that sets one kind of
// hook on the built-ins' prototypes before its first use of WebMCP
// (tests/pages/channel/hooks.html), each set to turn the shim's next message
// into a native call of transfer({to: "mallory", amount: 9999}) or to drop
// it, changes nothing: its tools are reported and classed, an agent's call and
// the browser's agent's run as they would, no card names the browser's agent,
// and no hook ever ran on a value the shim made. With the browser's WebMCP
// on, where the relay hands native calls on.
describe("a page's hooks on the built-ins against what the shim sends, the browser's own WebMCP on", () => {
  const h = harness({ pages: 'tests/pages/channel', tools: 3, chatPrefix: 'hooks', launch: { native: true } });
  let nextPage = 0;

  // The text of an element of the page, read from a world of its own (the
  // DevTools protocol's isolated world), where none of the page's hooks is.
  async function shown(page, id) {
    const cdp = await h.browser.context.newCDPSession(page);
    try {
      const { frameTree } = await cdp.send('Page.getFrameTree');
      const { executionContextId } = await cdp.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: 'hooks read' });
      const { result } = await cdp.send('Runtime.evaluate', {
        contextId: executionContextId, expression: `document.getElementById(${JSON.stringify(id)}).textContent`, returnByValue: true,
      });
      return result.value;
    } finally {
      await cdp.detach();
    }
  }

  for (const hook of ['toJSON', 'between', 'getters', 'setters', 'toPrimitive', 'iterators']) {
    test(`${hook}: the page's tools are reported as they are, no card says the browser's agent asked, and no hook ran on the shim's values`, async () => {
      const { page, tabId } = await h.open('bank.localhost', `/hooks.html?hook=${hook}&${++nextPage}`);
      const palette = await h.browser.palette(page);
      assert.deepEqual(entries(palette).map((e) => `${e.name}: ${e.badge}`).sort(),
        ['balance: Read only', 'statement: Read only', 'transfer: Consequential']);
      // An agent's call of a Read-only tool runs, and its result comes back as the page gave it.
      const chat = await h.chat('Console');
      const balance = await h.runs(chat, tabId, 'balance');
      assert.match(JSON.stringify(balance), /100/);
      // The browser's agent's own call is its own.
      const agent = await browserAgent(h.browser.context, page);
      const own = await agent.call('balance', {});
      assert.equal(own.ok, true, JSON.stringify(own));
      // The person's agent asks next: the first card is its own. Had any
      // message been forged into a native call, the browser's agent's card would have come first.
      const asked = await h.start(chat, h.request(tabId, 'transfer', { to: 'alice', amount: 5 }));
      assert.ok(asked.card, 'the chat is asked');
      assert.equal(await asked.card.locator('#chat').innerText(), 'Asked by Console');
      assert.doesNotMatch(await asked.card.locator('body').innerText(), /mallory/);
      await choose(asked.card, 'Deny this call');
      await asked.reply;
      assert.equal(h.cards.pending(), false, 'no other card');
      // Read from the page's DOM, not its world, where the hooks are.
      assert.equal(await shown(page, 'which'), '', 'no hook ran on a value the shim made');
      assert.equal(await shown(page, 'hooks'), '0');
      await agent.detach();
      await page.close();
    });
  }
});
