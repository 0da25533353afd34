// Pages Toolgate meets at odd times, with its polyfill: a tab loaded before
// Toolgate was installed, a page still loading when an agent calls, and a
// frame that reports a tool it never registered.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { entries, launch } from '../support/browser.mjs';
import { serve } from '../support/server.mjs';
import { sendAsFrame } from '../support/relay-world.mjs';

describe('a tab loaded before Toolgate was installed', () => {
  test('its palette says to reload it, and after a reload it shows its tools', async () => {
    const server = await serve('tests/pages/registration');
    const browser = await launch({ extension: false });
    try {
      const page = await browser.newPage(server.url('old.localhost', '/blank.html'));
      const sw = await browser.loadExtension();
      const tabId = await browser.tabId(page);
      const popup = await browser.newPage(
        await sw.evaluate((id) => chrome.runtime.getURL(`extension/ui/palette.html?tab=${id}`), tabId),
      );
      await popup.getByText('reload this tab to see its tools').waitFor();
      assert.equal(await popup.locator('ul.tools li').count(), 0);
      assert.equal((await browser.palette(page)).page, 'needs_reload');

      await page.reload();
      await page.evaluate(() => document.modelContext.registerTool({ name: 'fresh', description: 'd', execute: () => 1 }));
      const palette = await browser.waitForPalette(page, (p) => entries(p).length === 1, 'the tool after reloading');
      assert.equal(palette.page, 'shimmed');
      await popup.reload();
      await popup.getByRole('button', { name: /fresh/ }).waitFor();
    } finally {
      await browser.close();
      await server.close();
    }
  });
});

describe('pages that publish before they load, or without WebMCP', () => {
  let server;
  let browser;
  before(async () => {
    server = await serve('tests/pages/registration');
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  // An agent's call of `name` (no arguments) in tab `tabId`, from a chat of its own.
  let chats = 0;
  const agentCall = async (tabId, name) => {
    const sw = await browser.worker();
    return sw.evaluate(async ([tab, tool, chat]) => {
      await self.toolgate.openChat(chat);
      return self.toolgate.agent(chat, {
        jsonrpc: '2.0', id: 1, method: 'tools/call',
        params: { name: 'browser_call_webmcp_tool', arguments: { tabId: tab, name: tool, arguments: {} } },
      });
    }, [tabId, name, `chat-${++chats}`]);
  };

  test("a frame that reports a tool it never registered: an agent's call to it gets a clear error at once, not at the call's timeout", async () => {
    const page = await browser.newPage(server.url('tools.localhost', '/blank.html'));
    // As the frame, past its shim (relay-world.mjs).
    await sendAsFrame(page, JSON.stringify({ type: 'updates', batch: 1, ops: [{ op: 'register', decl: {
      kind: 'tool', path: 'document_object', name: 'ghost', title: null, description: 'd', input_schema: null,
      annotations: { readOnlyHint: true }, stray_hints: [], tags: [], instructions: null, unreadable: null,
    } }] }));
    await browser.waitForPalette(page, (p) => entries(p).length === 1, 'the forged tool');
    // Short enough that a call left unanswered fails this test quickly.
    await (await browser.worker()).evaluate(() => self.toolgate.configure({ callTimeoutMs: 3000 }));
    const reply = await agentCall(await browser.tabId(page), 'ghost');
    assert.equal(reply.result?.isError, true, JSON.stringify(reply));
    assert.match(reply.result.content[0].text, /ghost is no longer registered on this page/);
    await page.close();
  });

  test('a page still loading: its palette says so until it publishes a tool, and an agent can call that tool before the page has loaded', async () => {
    const page = await browser.context.newPage();
    await page.goto(server.url('tools.localhost', '/stalled.html'), { waitUntil: 'domcontentloaded' });
    assert.equal((await browser.palette(page)).page, 'loading');
    await page.evaluate(() => document.modelContext.registerTool({
      name: 'early', description: 'd', annotations: { readOnlyHint: true }, execute: () => 'ran before load',
    }));
    const palette = await browser.waitForPalette(page, (p) => entries(p).length === 1, 'the tool');
    assert.equal(palette.page, 'shimmed');
    // Registered through Playwright's evaluate, no script of the page's is
    // on its stack: "a script Toolgate could not see", asked about first
    // unless the site's rule allows such tools (docs/rules.md, "Tools
    // registered by other sites' scripts").
    const sw = await browser.worker();
    await sw.evaluate((site) => self.toolgate.changeRules(site, [{ target: 'scripts', level: 'allowed' }]),
      new URL(server.url('tools.localhost', '/')).origin);
    const reply = await agentCall(await browser.tabId(page), 'early');
    assert.equal(reply.result?.isError, false, JSON.stringify(reply));
    assert.equal(reply.result.content[0].text, 'ran before load');
    assert.equal(await page.evaluate(() => document.readyState), 'interactive', 'the page never finished loading');
    await page.close();
  });
});
