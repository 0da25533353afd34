// The browser's own WebMCP goes through Toolgate's cards (docs/agents.md, "The
// browser's own agent"): a call that reaches the copy of a page's tool
// Toolgate registered with Chromium's native API is decided like any agent's,
// as one chat per tab named "the browser's agent in this tab". Played by the
// DevTools protocol's `WebMCP.invokeTool` on Chromium 156 and by the native
// `navigator.modelContextTesting.executeTool` from an isolated world on 148
// (tests/support/browser-agent.mjs), against the Notes example served on a
// real host name, with every card clicked as a person would.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSER_VERSION, entries } from '../support/browser.mjs';
import { serve } from '../support/server.mjs';
import { browserAgent } from '../support/browser-agent.mjs';
import { cardKind, choose } from '../support/cards.mjs';
import { harness } from '../support/fixture.mjs';

const REFUSED = /Toolgate refused this call/;

describe("the browser's own WebMCP", () => {
  let shop; // a page whose only tool is a <form toolname>
  let nextPage = 0;
  before(async () => {
    shop = await serve('tests/pages/native');
  });
  after(() => shop?.close());
  // WebMCP is for secure contexts: a real host name over http is one only
  // when the browser is told to treat it so.
  const h = harness({
    pages: 'examples/notes',
    tools: 10,
    launch: (server) => ({
      native: true,
      args: [`--unsafely-treat-insecure-origin-as-secure=${server.url('notes.test', '')},${shop.url('shop.test', '')}`],
    }),
  });

  // A fresh tab of the Notes example (a fresh chat for the browser's agent),
  // once all its tools are registered, and the browser's agent in it.
  async function open() {
    const page = await h.browser.newPage(h.server.url('notes.test', `/?${++nextPage}`));
    await h.browser.waitForPalette(page, (p) => entries(p).length === 10, 'the Notes example');
    return { page, agent: await browserAgent(h.browser.context, page) };
  }
  const notesOf = (page) => page.locator('#notes').innerText();

  // Refusals are thrown to the browser, which reports each as an uncaught
  // error of the page's: expected here, and taken off the list of errors.
  function expectRefusalLogged() {
    const logged = h.browser.errors.filter((e) => REFUSED.test(e));
    assert.ok(logged.length > 0, 'the browser reported the refusal');
    h.browser.errors.splice(0, h.browser.errors.length, ...h.browser.errors.filter((e) => !REFUSED.test(e)));
  }

  test('a Consequential tool opens the site card, then the call card; a refusal is the caller\'s failure and changes nothing', async () => {
    const { page, agent } = await open();
    const call = agent.call('delete_note', { title: 'Old draft' });
    const site = await h.cards.next();
    assert.equal(await cardKind(site), 'site');
    assert.equal(await site.locator('#chat').textContent(), "Asked by the browser's agent in this tab");
    await choose(site, 'Allow read-only tools on this website');
    const confirm = await h.cards.next();
    assert.equal(await cardKind(confirm), 'call');
    assert.match(await confirm.locator('#heading').textContent(), /delete_note/);
    await choose(confirm, 'Deny this call');
    const got = await call;
    assert.equal(got.ok, false, `the caller is told the call failed: ${JSON.stringify(got)}`);
    // Chromium 148's testing API gives every failure the same words; 156
    // hands the caller the reason.
    if (BROWSER_VERSION >= 156) assert.match(got.error, /you denied this call to delete_note/);
    assert.match(await notesOf(page), /Old draft/, 'the note is still there');
    expectRefusalLogged();
    await page.close();
  });

  test('a Read-only tool runs with no card once the chat allowed read-only tools', async () => {
    const { page, agent } = await open();
    const first = agent.call('list_notes', {});
    await choose(await h.cards.next(), 'Allow read-only tools on this website');
    const listed = await first;
    assert.equal(listed.ok, true, JSON.stringify(listed));
    const again = await agent.call('list_notes', {});
    assert.equal(again.ok, true, JSON.stringify(again));
    assert.match(JSON.stringify(again.output), /Shopping/, 'the caller gets the tool\'s own result');
    assert.equal(h.cards.pending(), false, 'no card opened for the second call');
    await page.close();
  });

  test('"Allow all tools on this website" lets later native calls run, in that tab only', async () => {
    const { page, agent } = await open();
    const first = agent.call('list_notes', {});
    await choose(await h.cards.next(), 'Allow all tools on this website');
    assert.equal((await first).ok, true);
    const deleted = await agent.call('delete_note', { title: 'Old draft' });
    assert.equal(deleted.ok, true, JSON.stringify(deleted));
    assert.doesNotMatch(await notesOf(page), /Old draft/, 'the note was deleted');
    assert.equal(h.cards.pending(), false, 'no card opened');

    // Another tab is another chat of the browser's agent: asked again.
    const other = await open();
    const call = other.agent.call('delete_note', { title: 'Old draft' });
    const site = await h.cards.next();
    assert.equal(await cardKind(site), 'site', 'the other tab asks the site question');
    await choose(site, 'Deny this call');
    assert.equal((await call).ok, false);
    assert.match(await notesOf(other.page), /Old draft/);
    expectRefusalLogged();
    await page.close();
    await other.page.close();
  });

  test('closing the site card without answering refuses the call and the chat\'s later calls', async () => {
    const { page, agent } = await open();
    const call = agent.call('add_note', { title: 'From the agent', body: 'hello' });
    const site = await h.cards.next();
    await site.close();
    const got = await call;
    assert.equal(got.ok, false);
    const later = await agent.call('list_notes', {});
    assert.equal(later.ok, false, 'Deny for this chat: later calls are refused without asking');
    assert.equal(h.cards.pending(), false);
    assert.doesNotMatch(await notesOf(page), /From the agent/);
    expectRefusalLogged();
    await page.close();
  });

  test('a call waiting on its card survives the service worker being stopped', async () => {
    const { page, agent } = await open();
    const call = agent.call('add_note', { title: 'Kept', body: 'across a restart' });
    const site = await h.cards.next();
    await h.browser.stopWorker();
    await choose(site, 'Allow non-consequential read/write tools on this website');
    const got = await call;
    assert.equal(got.ok, true, JSON.stringify(got));
    assert.match(await notesOf(page), /Kept: across a restart/);
    await page.close();
  });

  test("closing the tab withdraws the browser's agent's waiting call: its card closes", async () => {
    const { page, agent } = await open();
    agent.call('delete_note', { title: 'Old draft' }).catch(() => {});
    const site = await h.cards.next();
    const closed = site.waitForEvent('close');
    await page.close();
    await closed;
  });

  test("the page calling its own tool is the page's own code: no card", async () => {
    const { page } = await open();
    const output = await page.evaluate(async () => {
      if (document.modelContext?.executeTool) {
        const [tool] = (await document.modelContext.getTools()).filter((t) => t.name === 'list_notes');
        return document.modelContext.executeTool(tool, {});
      }
      return navigator.modelContextTesting.executeTool('list_notes', '{}');
    });
    assert.match(JSON.stringify(output), /Shopping/);
    assert.equal(h.cards.pending(), false, 'no card opened');
    await page.close();
  });

  // Chromium registers form tools itself; Toolgate holds the agent's
  // submission until the worker decides (main-world/native-forms.js, holdAgentSubmit).
  async function openShop() {
    const page = await h.browser.newPage(shop.url('shop.test', `/order.html?${++nextPage}`));
    await h.browser.waitForPalette(page, (p) => entries(p).length === 1, 'the order form');
    return { page, agent: await browserAgent(h.browser.context, page) };
  }
  const logOf = (page) => page.locator('#log').innerText();

  test('a form tool called natively waits on the cards; refused, the page never sees the submission', async () => {
    const { page, agent } = await openShop();
    const call = agent.call('track_order', { order: 'A1' });
    const site = await h.cards.next();
    assert.equal(await cardKind(site), 'site');
    await choose(site, 'Allow non-consequential read/write tools on this website');
    const confirm = await h.cards.next();
    assert.equal(await cardKind(confirm), 'call', 'a form tool declares nothing: Consequential, confirmed per call');
    assert.match(await confirm.locator('body').innerText(), /A1/, 'the card shows what the agent filled in');
    await choose(confirm, 'Deny this call');
    const got = await call;
    assert.equal(got.ok, false, JSON.stringify(got));
    assert.equal(await logOf(page), '', "the page's submit handler never ran");
    expectRefusalLogged();
    await page.close();
  });

  test('a form tool allowed natively is submitted once, and the page\'s own answer is the caller\'s', async () => {
    const { page, agent } = await openShop();
    const call = agent.call('track_order', { order: 'B2' });
    await choose(await h.cards.next(), 'Allow all tools on this website');
    const got = await call;
    assert.equal(got.ok, true, JSON.stringify(got));
    const output = typeof got.output === 'string' ? JSON.parse(got.output) : got.output;
    assert.deepEqual(output, { order: 'B2', status: 'shipped' });
    assert.equal(await logOf(page), 'tracked B2', 'submitted exactly once');
    assert.equal(h.cards.pending(), false);
    await page.close();
  });
});
