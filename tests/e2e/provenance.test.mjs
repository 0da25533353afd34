// Where a tool comes from (docs/classes.md, "Where a tool comes from"): the
// script that registered it, read from V8's own call sites, shown where the
// person decides and in the listing an agent receives. A third party's script
// on a shop's page registers two tools beside the shop's own; a page that
// formats or empties stacks, wraps registerTool in its own function, or names
// the third party's script after its own (`sourceURL`) cannot change or hide
// where they come from; one that makes the stack unreadable gets "a script
// Toolgate could not see", never the page's own. Pages in tests/pages/provenance/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TOOLGATE_ID, entries } from '../support/browser.mjs';
import { assertRan, assertRefused, harness } from '../support/fixture.mjs';
import { cardKind, choose, closeCard, menuLabels, readCard } from '../support/cards.mjs';

const h = harness({ pages: 'tests/pages/provenance', chatPrefix: 'provenance', tools: 4 });
const SHOP = 'shop.localhost';

// The tab's listing as an agent receives it: each tool's `registeredBy`.
async function registeredBy(tabId) {
  const reply = await h.send(await h.chat(), h.listRequest(tabId));
  return Object.fromEntries(reply.result.structuredContent.tools.map((t) => [t.name, t.registeredBy ?? null]));
}

for (const hostile of ['none', 'prepare', 'wrap']) {
  test(`a third party's tools are named as its script's, the shop's own as the shop's (page: ${hostile})`, async () => {
    const { page, tabId } = await h.open(SHOP, `/index.html?hostile=${hostile}`);
    const cdn = `registered by a script from cdn.localhost:${h.server.port}`;
    assert.deepEqual(await registeredBy(tabId), { own_search: null, own_order: null, ad_offers: cdn, ad_checkout: cdn });

    // The palette groups the third party's tools apart, under its script's origin.
    const palette = await h.browser.palette(page);
    assert.deepEqual(palette.groups.map((g) => [g.registered_by ?? null, g.entries.map((e) => e.name)]),
      [[null, ['own_search', 'own_order']], [cdn, ['ad_offers', 'ad_checkout']]]);
    assert.equal(entries(palette).find((e) => e.name === 'ad_offers').registered_by, cdn);
    if (hostile === 'none') {
      // The popup shows the group apart with the same words.
      const popup = await h.browser.context.newPage();
      await popup.goto(`chrome-extension://${TOOLGATE_ID}/extension/ui/palette.html?tab=${tabId}`);
      const apart = popup.locator('section.group', { has: popup.locator('p.registered-by') });
      assert.equal(await apart.locator('p.registered-by').innerText(), cdn);
      assert.deepEqual(await apart.locator('ul.tools > li').evaluateAll((items) => items.length), 2);
      await popup.close();
      // The set-apart page says it beside each tool's name.
      const site = encodeURIComponent(`http://${h.site(SHOP)}`);
      const setApart = await h.browser.context.newPage();
      await setApart.goto(`chrome-extension://${TOOLGATE_ID}/extension/ui/set-apart.html?site=${site}`);
      await setApart.locator('#shown', { hasText: '4 of 4 tools shown.' }).waitFor();
      assert.deepEqual(await setApart.locator('li.tool').evaluateAll((items) => Object.fromEntries(items.map((li) => [
        li.querySelector('code').textContent, li.querySelector('.registered-by')?.textContent.trim() ?? null]))),
      { own_search: null, own_order: null, ad_offers: cdn, ad_checkout: cdn });
      await setApart.close();
    }

    // What the page set is as it was: Toolgate's capture put it back.
    assert.deepEqual(await page.evaluate(() => window.afterRegistration()),
      { prepare: true, limit: hostile === 'prepare' ? 0 : 10 });
    await page.close();
  });
}

test('the card for a third party\'s tool says which script registered it, and not the shop', async () => {
  const { page, tabId } = await h.open(SHOP, '/index.html?card');
  const asked = await h.asks(await h.chat(), tabId, 'ad_checkout', {}, 'script');
  const { lines } = await readCard(asked.card);
  assert.ok(lines.includes(`The tool was registered by a script from cdn.localhost:${h.server.port}, not by ${h.site(SHOP)}.`),
    JSON.stringify(lines));
  await asked.card.close();
  const own = await h.asks(await h.chat(), tabId, 'own_order', {}, 'call');
  assert.ok(!(await readCard(own.card)).lines.some((line) => line.includes('registered by')), 'the shop\'s own tool names no script');
  await own.card.close();
  await page.close();
});

// Item 3 of docs/cards.md's "Tools registered by other sites' scripts": the
// chat's width (Read only, on localhost, without asking) covers the shop's
// Read only tool but not the third party's; the card names the script's
// site, and its answer holds for that chat and that site; then the chat's
// answers apply as for any tool. The site's rule, set Off on the settings
// page, hides and refuses them.
test("a third party's tools are outside the chat's width, asked once a chat and script's site, and the rule's Off hides them", async () => {
  const { page, tabId } = await h.open(SHOP, '/index.html?asked');
  const cdn = `cdn.localhost:${h.server.port}`;
  const chat = await h.chat();
  await h.runs(chat, tabId, 'own_search');
  const asked = await h.asks(chat, tabId, 'ad_offers', {}, 'script');
  const allow = "Allow tools from cdn.localhost's scripts in this chat";
  assert.ok((await readCard(asked.card)).lines.includes(`The tool was registered by a script from ${cdn}, not by ${h.site(SHOP)}.`));
  assert.deepEqual(await menuLabels(asked.card, 'More ways to allow'), [allow]);
  await choose(asked.card, allow);
  assertRan(await asked.reply, 'ad_offers');
  await h.runs(chat, tabId, 'ad_offers');
  // Now as any tool: a Mutating one is not within Read only.
  const call = await h.asks(chat, tabId, 'ad_checkout', {}, 'call');
  await closeCard(call.card);
  assertRefused(await call.reply, 'ad_checkout');
  // Another chat is asked again.
  const again = await h.asks(await h.chat(), tabId, 'ad_offers', {}, 'script');
  await choose(again.card, 'Deny this call');
  assertRefused(await again.reply, 'ad_offers');

  const settings = await h.browser.context.newPage();
  await settings.goto(`chrome-extension://${TOOLGATE_ID}/extension/ui/options.html`);
  const card = settings.getByRole('article', { name: h.site(SHOP) });
  await card.getByRole('button', { name: /^Start from the defaults/ }).click();
  const level = card.getByLabel("Other sites' scripts");
  assert.equal(await level.inputValue(), 'ask_first', 'Ask first where no one set it');
  await level.selectOption('off');
  await settings.locator('#rules-status', { hasText: "Other sites' scripts on" }).waitFor();
  await settings.close();
  assert.deepEqual(Object.keys(await registeredBy(tabId)), ['own_search', 'own_order']);
  assert.match(await h.refused(chat, tabId, 'ad_offers'),
    /^Nothing ran: ad_offers on shop\.localhost:\d+ was registered by a script from cdn\.localhost:\d+, and tools registered by other sites' scripts are Off on this site/);
  await h.runs(chat, tabId, 'own_search');
  // Put back for the tests after this one.
  const worker = await h.browser.worker();
  await worker.evaluate((site) => self.toolgate.changeRules(site, [{ target: 'scripts', level: null }]), `http://${h.site(SHOP)}`);
  await page.close();
});

// The paper's registration race (arXiv 2606.06387): a third party's script
// takes the shop's tool name before the shop registers it, with the shop's
// words and a Read only hint. The chat's width covers the shop's Read only
// tools, yet the call is never silent: its card names the script's site.
test("a third party that wins a registration race under the shop's tool name is asked about, named, and never runs silently", async () => {
  const { page, tabId } = await h.open(SHOP, '/race.html', 1);
  await page.waitForFunction(() => window.ownRegistered !== undefined && window.ownRegistered !== 'pending');
  assert.equal(await page.evaluate(() => window.ownRegistered), 'InvalidStateError', "the shop's own registration failed, as without Toolgate");
  const asked = await h.asks(await h.chat(), tabId, 'shop_search', {}, 'script');
  assert.ok((await readCard(asked.card)).lines.includes(
    `The tool was registered by a script from cdn.localhost:${h.server.port}, not by ${h.site(SHOP)}.`,
  ));
  await choose(asked.card, 'Deny this call');
  assertRefused(await asked.reply, 'shop_search');
  await page.close();
});

test('a page that makes the stack unreadable gets "a script Toolgate could not see", never its own', async () => {
  const { page, tabId } = await h.open(SHOP, '/index.html?hostile=freeze');
  const unseen = 'registered by a script Toolgate could not see';
  assert.deepEqual(await registeredBy(tabId), { own_search: unseen, own_order: unseen, ad_offers: unseen, ad_checkout: unseen });
  await page.close();
});

// A page's WebMCP polyfill served by another site (as pages load
// @mcp-b/global from a CDN) forwards the page's own registrations: the tool
// is the page's, not the polyfill's.
test("a tool registered through the page's own polyfill from another site is the page's, not the polyfill's", async () => {
  const { page, tabId } = await h.open(SHOP, '/polyfill.html', 1);
  assert.deepEqual(await registeredBy(tabId), { shop_search: null });
  await page.close();
});

// A sandboxed frame is not a site (docs/cards.md, "Sandboxed frames"): the
// card about another site's script in it names the frame as the site card
// does, and offers the answers for this call alone, so the next call asks
// again; the frame's own site question follows it, as for any tool there.
test("a third party's tool in a sandboxed frame is asked about at each call, naming the script and the frame", async () => {
  const { page, tabId } = await h.open(SHOP, '/sandbox.html', 2);
  const cdn = `cdn.localhost:${h.server.port}`;
  const chat = await h.chat();
  for (const answer of ['Allow this call only', 'Deny this call']) {
    const asked = await h.asks(chat, tabId, 'ad_offers', {}, 'script');
    assert.ok((await readCard(asked.card)).lines.includes(
      `The tool was registered by a script from ${cdn}, not by a sandboxed frame inside ${h.site(SHOP)}.`,
    ));
    assert.equal(await asked.card.locator('#approve-more').isHidden(), true, 'no answer for the chat');
    assert.equal(await asked.card.locator('#deny-more').isHidden(), true, 'no refusal for the chat');
    await choose(asked.card, answer);
    if (answer.startsWith('Allow')) {
      // Then the frame's own question, for this call too: the chat's width
      // on the tab's site does not reach a sandboxed frame.
      const site = await h.cards.next();
      assert.equal(await cardKind(site), 'site');
      await choose(site, 'Allow this call only');
      assertRan(await asked.reply, 'ad_offers');
    } else assertRefused(await asked.reply, 'ad_offers');
  }
  await page.close();
});
