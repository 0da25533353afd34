// Real pages keep every tool they have without Toolgate (docs/classes.md,
// "What a page may register"). tests/pages/real/booking.html has the tools of
// the WebMCP authors' explainer demo: `format` in their schemas ("date",
// "email", a pattern given as a format), registered without awaiting. Each
// describe runs with Toolgate's polyfill and wrapping the browser's own API;
// on 156 the page is also held to the browser alone.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSER_VERSION, entries, launch } from '../support/browser.mjs';
import { harness } from '../support/fixture.mjs';
import { serve } from '../support/server.mjs';
import { until } from '../support/until.mjs';

const TOOLS = ['bookSlot', 'cancelBooking', 'getAvailability'];
const FORMAT_NOTE = /^inputSchema uses 'format' \(at \/properties\/\w+\/format\), which the proposed schema subset would refuse$/;

// How each registration settled, and what the page's own getTools() lists.
const pageSide = (page) => until(page, async () => {
  if (Object.values(window.registered).includes('pending')) return null;
  const listed = (await document.modelContext.getTools()).map((tool) => tool.name).sort();
  return { registered: window.registered, listed };
}, undefined, 'every registration settled');

// The tools the browser's own WebMCP lists for the page (156's DevTools
// protocol), once all of `names` are there.
async function browserLists(context, page, names) {
  const cdp = await context.newCDPSession(page);
  const seen = new Set();
  const all = new Promise((done) => {
    cdp.on('WebMCP.toolsAdded', (event) => {
      for (const tool of event.tools ?? []) seen.add(tool.name);
      if (names.every((name) => seen.has(name))) done();
    });
  });
  await cdp.send('WebMCP.enable');
  await all;
  await cdp.detach();
  return [...seen].sort();
}

for (const native of [false, true]) {
  describe(native ? 'wrapping the native API' : "with Toolgate's polyfill", () => {
    const h = harness({ pages: 'tests/pages/real', tools: 3, launch: { native } });

    test("the explainer demo's three tools are registered, classed, and their formats only noted", async () => {
      const { page } = await h.open('booking.localhost', '/booking.html');
      const side = await pageSide(page);
      assert.deepEqual(side.registered, { getAvailability: 'registered', bookSlot: 'registered', cancelBooking: 'registered' });
      assert.deepEqual(side.listed, TOOLS);

      const palette = await h.browser.palette(page);
      const tools = Object.fromEntries(entries(palette).map((e) => [e.name, e]));
      assert.deepEqual(Object.keys(tools).sort(), TOOLS);
      assert.equal(tools.getAvailability.badge, 'Read only');
      assert.equal(tools.bookSlot.badge, 'Mutating');
      assert.equal(tools.cancelBooking.badge, 'Mutating');
      const notes = (name) => tools[name].lints.map((lint) => lint.text);
      assert.ok(notes('getAvailability').some((text) => FORMAT_NOTE.test(text)), `getAvailability: ${notes('getAvailability')}`);
      assert.ok(notes('bookSlot').some((text) => FORMAT_NOTE.test(text)), `bookSlot: ${notes('bookSlot')}`);
      assert.ok(!notes('cancelBooking').some((text) => text.includes('format')), 'cancelBooking uses no format');
      assert.ok(tools.getAvailability.lints.every((lint) => lint.severity !== 'error'), 'a proposal is never an error');

      if (native && BROWSER_VERSION >= 156) {
        assert.deepEqual(await browserLists(h.browser.context, page, TOOLS), TOOLS, "the browser's own WebMCP lists all three");
      }
      await page.close();
    });

    test("an agent's arguments are checked, with format an annotation and required still required", async () => {
      const { page, tabId } = await h.open('booking.localhost', '/booking.html');
      const chat = await h.chat();
      const free = await h.runs(chat, tabId, 'getAvailability', { startDate: '2026-12-01', endDate: '2026-12-10' });
      assert.deepEqual(JSON.parse(h.text(free)), { '2026-12-08': ['09:00', '14:00'], '2026-12-09': ['11:00'] });
      // Not a date, and still run: `format` is not asserted (docs/classes.md).
      const loose = await h.runs(chat, tabId, 'getAvailability', { startDate: 'December', endDate: '2026-12-31' });
      assert.deepEqual(JSON.parse(h.text(loose)), {});
      const missing = await h.send(chat, h.request(tabId, 'getAvailability', { startDate: '2026-12-01' }));
      assert.equal(missing.error?.code, -32602, 'invalid params');
      assert.equal(missing.error.message, 'invalid arguments for getAvailability: arguments.endDate: is required');
      await page.close();
    });
  });
}

// The constants above are what the browser alone does with the page: held here.
describe('the same page on the browser alone', () => {
  const skip = BROWSER_VERSION < 156
    && "Chromium 148 has no document.modelContext of its own: without Toolgate's the page registers nothing";
  test('registers and lists the three tools, as with Toolgate', { skip }, async () => {
    const server = await serve('tests/pages/real');
    const browser = await launch({ extension: false, native: true });
    try {
      const page = await browser.newPage(server.url('booking.localhost', '/booking.html'));
      const side = await pageSide(page);
      assert.deepEqual(side.registered, { getAvailability: 'registered', bookSlot: 'registered', cancelBooking: 'registered' });
      assert.deepEqual(side.listed, TOOLS);
      assert.deepEqual(await browserLists(browser.context, page, TOOLS), TOOLS);
    } finally {
      await browser.close();
      await server.close();
    }
  });
});
