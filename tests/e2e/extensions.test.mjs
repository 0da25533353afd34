// Other extensions as agents (docs/agents.md, "Other extensions"): a second,
// small extension loaded beside Toolgate (tests/extensions/agent) connects
// over chrome.runtime.connect, which Toolgate hears as onConnectExternal. It
// is refused until the person allows its id on Toolgate's settings page, where
// the refusal is shown; once allowed, each port is a chat named after it, held
// to the same cards as every agent.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TOOLGATE_ID } from '../support/browser.mjs';
import { cardKind, choose } from '../support/cards.mjs';
import { harness } from '../support/fixture.mjs';

const AGENT = resolve(fileURLToPath(new URL('../extensions/agent', import.meta.url)));
const AGENT_ID = 'nmeomknpmlcengjjbaffcbddngkbmmpf'; // fixed by the key in its manifest

// Polls `test` in a worker until it holds.
async function until(sw, test, what, timeout = 5_000) {
  const deadline = Date.now() + timeout;
  while (!(await sw.evaluate(test))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((done) => setTimeout(done, 25));
  }
}

describe('other extensions as agents', () => {
  const h = harness({ pages: 'examples/notes', tools: 10, launch: { alsoLoad: [AGENT] } });
  let nextId = 0;

  // The test extension's worker, where `self.agent` drives its port.
  async function agentWorker() {
    const isAgent = (sw) => sw.url().startsWith(`chrome-extension://${AGENT_ID}/`);
    const sw = h.browser.context.serviceWorkers().find(isAgent)
      ?? await h.browser.context.waitForEvent('serviceworker', { predicate: isAgent });
    return sw;
  }
  const request = (name, args) => ({
    jsonrpc: '2.0', id: ++nextId, method: 'tools/call', params: { name, arguments: args },
  });
  async function settings() {
    const page = await h.browser.newPage(`chrome-extension://${TOOLGATE_ID}/extension/ui/options.html`);
    await page.locator('#desktop-state').filter({ hasText: /\S/ }).waitFor();
    return page;
  }

  test('an extension whose id was not allowed is refused, and the refusal is shown in the settings', async () => {
    const sw = await agentWorker();
    const reply = await sw.evaluate(() => new Promise((done) => {
      self.agent.connect();
      const before = self.agent.received.length;
      const check = setInterval(() => {
        if (self.agent.received.length > before) {
          clearInterval(check);
          done(self.agent.received.at(-1));
        }
      }, 20);
    }));
    assert.match(reply.error.message, /Toolgate refused extension nmeomknpmlcengjjbaffcbddngkbmmpf/);
    await until(sw, () => self.agent.disconnected.length > 0, 'the refused port closed');
    const page = await settings();
    await page.locator('#refused', { hasText: AGENT_ID }).waitFor();
    assert.match(await page.locator('#refused').innerText(), /refused once/);
    // No toolgate-mcp is installed in this profile: said, and not tried again in a loop.
    assert.match(await page.locator('#desktop-state').innerText(), /toolgate-mcp is not installed/);
    // And no attempt is planned: the worker's one timer for it is not set.
    const { desktop } = await (await h.browser.worker()).evaluate(() => self.toolgate.agents());
    assert.equal(desktop.state, 'not_installed');
    assert.equal(desktop.retryAt, null, 'no second attempt planned');
    await page.close();
  });

  test('once the person allows its id, its calls go through the cards, asked by its name', async () => {
    const page = await settings();
    await page.getByLabel('Extension id').fill(AGENT_ID);
    await page.getByLabel('Name on cards').fill('Test agent');
    await page.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.locator('#allowed', { hasText: 'Test agent' }).waitFor();
    assert.doesNotMatch(await page.locator('#refused').innerText(), new RegExp(AGENT_ID), 'no longer listed as refused');

    const { page: notes, tabId } = await h.open('notes.test', '/');
    const sw = await agentWorker();
    await sw.evaluate(() => self.agent.close());
    const tabs = await sw.evaluate((r) => self.agent.request(r), request('browser_list_tabs', {}));
    assert.ok(tabs.result.structuredContent.tabs.some((t) => t.tabId === tabId), JSON.stringify(tabs));

    const call = sw.evaluate((r) => self.agent.request(r), request('browser_call_webmcp_tool', { tabId, name: 'delete_note', arguments: { title: 'Old draft' } }));
    const site = await h.cards.next();
    assert.equal(await cardKind(site), 'site');
    assert.equal(await site.locator('#chat').textContent(), 'Asked by Test agent');
    await choose(site, 'Allow read-only tools on this website');
    const confirm = await h.cards.next();
    assert.equal(await cardKind(confirm), 'call');
    await choose(confirm, 'Deny this call');
    const reply = await call;
    assert.equal(reply.result.isError, true);
    assert.match(reply.result._meta.toolgate.why, /you denied this call to delete_note/);
    assert.match(await notes.locator('#notes').innerText(), /Old draft/);

    // The settings page shows it connected; removing it closes its port.
    await page.reload();
    await page.locator('#allowed', { hasText: '(connected)' }).waitFor();
    await page.getByRole('button', { name: 'Remove Test agent' }).click();
    await page.locator('#allowed', { hasText: 'None.' }).waitFor();
    await until(sw, () => self.agent.disconnected.length > 1, 'its open port was closed');
    await page.close();
    await notes.close();
  });
});
