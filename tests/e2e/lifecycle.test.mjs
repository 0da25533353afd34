// Tools that appear after a chat listed its site's tools (docs/cards.md,
// "Tools that appear after a chat listed them"; docs/agents.md, "New tools in
// a listing"): an agent lists a shop's tools; the shop then registers a tool
// of its own, and a third party's script from another site aborts the shop's
// shop_search and registers its own under the name (the paper's hijacking by
// AbortSignal). The chat's next listing marks both, each one's first call
// opens a card that says so (for the third party's, the card about its site), and the audit keeps each registration with
// where it comes from. A page whose tools do not change gets no mark. Pages in
// tests/pages/lifecycle/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { entries } from '../support/browser.mjs';
import { harness, assertRan } from '../support/fixture.mjs';
import { choose, readCard } from '../support/cards.mjs';
import { auditOnce } from '../support/audit.mjs';

const h = harness({ pages: 'tests/pages/lifecycle', chatPrefix: 'lifecycle', tools: 1 });
const SHOP = 'shop.localhost';

// The chat's listing of the tab: its tools' names, and what it marks new.
async function listed(chat, tabId) {
  const reply = await h.send(chat, h.listRequest(tabId));
  assert.equal(reply.error, undefined, reply.error?.message);
  const marked = reply.result._meta?.toolgate?.new ?? [];
  return {
    tools: reply.result.structuredContent.tools.map((t) => t.name),
    marked: Object.fromEntries(marked.map((m) => [m.name, m.why])),
  };
}

test('a page whose tools do not change gets no mark and no card', async () => {
  const { page, tabId } = await h.open(SHOP, '/index.html?steady');
  const chat = await h.chat();
  for (let round = 0; round < 2; round += 1) {
    assert.deepEqual(await listed(chat, tabId), { tools: ['shop_search'], marked: {} });
    await h.runs(chat, tabId, 'shop_search');
  }
  await page.close();
});

test('tools that appear after the chat listed them are marked, asked about once, and audited with their provenance', async () => {
  const { page, tabId } = await h.open(SHOP, '/index.html?changing');
  const chat = await h.chat();
  assert.deepEqual(await listed(chat, tabId), { tools: ['shop_search'], marked: {} });

  // The shop adds a tool of its own; a third party's script takes shop_search over.
  await page.evaluate(() => window.addLate());
  await h.browser.waitForPalette(page, (p) => entries(p).length === 2, 'late_find');
  await page.evaluate(() => window.loadThird());
  const cdn = `registered by a script from cdn.localhost:${h.server.port}`;
  await h.browser.waitForPalette(page, (p) => entries(p).find((e) => e.name === 'shop_search')?.registered_by === cdn,
    "the third party's shop_search");

  const site = h.site(SHOP);
  const { marked } = await listed(chat, tabId);
  assert.deepEqual(marked, {
    late_find: `appeared on ${site} after this chat listed its tools`,
    shop_search: `registered again on ${site} after this chat listed its tools, with another definition or by another script`,
  });

  // Read only on localhost runs without a card, but not a new tool's first call.
  const late = await h.asks(chat, tabId, 'late_find', {}, 'call');
  const { lines } = await readCard(late.card);
  assert.equal(lines[0], `“late_find” appeared on ${site} after this chat listed its tools.`, JSON.stringify(lines));
  await choose(late.card, 'Allow this call only');
  assertRan(await late.reply, 'late_find');
  // Once allowed, the chat's answers apply as for any tool.
  await h.runs(chat, tabId, 'late_find');

  // Another site's script: the card about that site's scripts asks first
  // (docs/cards.md, "Tools registered by other sites' scripts"), and says
  // the tool is new to the chat.
  const taken = await h.asks(chat, tabId, 'shop_search', {}, 'script');
  const card = await readCard(taken.card);
  assert.equal(card.lines[0],
    `“shop_search” was registered again on ${site} after this chat listed its tools, with another definition or by another script.`);
  assert.ok(card.lines.includes(`The tool was registered by a script from cdn.localhost:${h.server.port}, not by ${site}.`),
    JSON.stringify(card.lines));
  await choose(taken.card, 'Deny this call');
  await taken.reply;
  assert.deepEqual((await listed(chat, tabId)).marked, {
    shop_search: `registered again on ${site} after this chat listed its tools, with another definition or by another script`,
  });

  // The audit keeps each registration with where it comes from.
  const sw = await h.browser.worker();
  const third = `a script from http://cdn.localhost:${h.server.port}/third.js`;
  const changes = await auditOnce(sw, { what: 'tool_change', tool: 'shop_search', log: 'agents' });
  const late_change = changes.find((e) => e.tool === 'late_find');
  assert.equal(late_change?.change, 'registered', JSON.stringify(changes));
  assert.equal(late_change.provenance, "the page's own script");
  assert.equal(late_change.site, `http://${site}`);
  const hijack = changes.filter((e) => e.tool === 'shop_search');
  assert.ok(hijack.some((e) => ['registered', 'changed'].includes(e.change) && e.provenance === third),
    JSON.stringify(hijack));

  // The settings page's audit says it in words, under its own kind of entry.
  const settings = await h.browser.newPage(await sw.evaluate(() => chrome.runtime.getURL('extension/ui/options.html')));
  await settings.getByLabel('Kind of entry').selectOption({ label: 'Tools registered and unregistered' });
  const row = settings.locator('#audit-rows tr', { has: settings.locator('td:nth-child(4)', { hasText: /^late_find$/ }) });
  assert.deepEqual((await row.first().locator('td').allTextContents()).slice(1),
    [site, '', 'late_find', "Registered by the page's own script", 'the page, during a chat that listed its tools']);
  await settings.close();
  await page.close();
});
