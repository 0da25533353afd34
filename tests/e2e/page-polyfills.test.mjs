// Pages that ship their own WebMCP polyfill and install it over Toolgate's
// (docs/classes.md, "What a page may register": polyfills):
// @mcp-b/webmcp-polyfill 5.1.0 (IIFE and ESM builds) and @mcp-b/global 5.1.0
// (IIFE, which puts its own BrowserMcpServer on document.modelContext and
// navigator.modelContext). Their tools must still reach the palette, classed
// by their hints, once each; aborting a tool's signal must take it away; and
// the page must still be able to call its tools through the polyfill's own
// API.
//
// Every case runs with Toolgate's polyfill and wrapping Chromium's native API,
// one launch per mode.
//
//   node --test tests/e2e/page-polyfills.test.mjs
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSER_VERSION, entries, launch } from '../support/browser.mjs';
import { serve } from '../support/server.mjs';

// The pages, and what each one's palette must show.
const POLYFILL = {
  read_notes: 'Read only', // annotations: { readOnlyHint: true }
  add_note: 'Mutating', // no annotations, document.modelContext object form
  draft_note: 'Mutating', // annotations: { readOnlyHint: false }; registered with a signal
  double_number: 'Read only',
};
const GLOBAL = {
  list_items: 'Read only', // document.modelContext, readOnlyHint: true
  add_item: 'Mutating', // document.modelContext, no annotations
  empty_cart: 'Consequential', // document.modelContext, destructiveHint: true
  temp_item: 'Read only', // document.modelContext, readOnlyHint: true; registered with a signal
  count_items: 'Read only', // navigator.modelContext, readOnlyHint: true
  place_order: 'Consequential', // navigator.modelContext, consequentialHint: true
  double_number: 'Read only', // navigator.modelContext, readOnlyHint: true
};
const PAGES = [
  { name: '@mcp-b/webmcp-polyfill IIFE (plain script tag)', path: '/iife.html', global: 'WebMCPPolyfill', api: 'polyPage', expected: POLYFILL, signalled: 'draft_note', abort: 'abortDraft' },
  { name: '@mcp-b/webmcp-polyfill ESM (type=module, initializeWebMCPPolyfill())', path: '/esm.html', global: 'WebMCPPolyfillModule', api: 'polyPage', expected: POLYFILL, signalled: 'draft_note', abort: 'abortDraft' },
  { name: '@mcp-b/global IIFE (its server over document/navigator.modelContext)', path: '/global.html', global: 'WebMCP', api: 'globalPage', expected: GLOBAL, signalled: 'temp_item', abort: 'abortTemp' },
];

// What double_number's execute returns for { x }, as the polyfill serialises it.
const doubled = (x) => JSON.stringify({ content: [{ type: 'text', text: String(x * 2) }] });

// "name: badge" for every entry, sorted: duplicates show up as repeated lines.
const badges = (palette) => entries(palette).map((e) => `${e.name}: ${e.badge}`).sort();
const expectedBadges = (expected) => Object.entries(expected).map(([name, badge]) => `${name}: ${badge}`).sort();
const names = (palette) => entries(palette).map((e) => e.name);
const hasAll = (list) => (palette) => list.every((n) => names(palette).includes(n));

let server;
before(async () => {
  server = await serve('tests/pages/polyfills');
});
after(async () => {
  await server?.close();
});

for (const native of [false, true]) {
  describe(native ? 'wrapping the native WebMCP API' : "with Toolgate's polyfill", () => {
    let browser;
    const open = [];
    let serial = 0;

    before(async () => {
      browser = await launch({ native });
    });
    after(async () => {
      await browser?.close();
    });
    afterEach(async () => {
      for (const page of open.splice(0)) await page.close().catch(() => {});
    });

    // Opens a page (each under its own URL, since the harness finds a tab by
    // URL) and waits until its registrations settled.
    async function openPage({ path, global, api }) {
      const page = await browser.newPage(server.url('poly.localhost', `${path}?test=${++serial}`));
      open.push(page);
      await page.waitForFunction((name) => window[name], api);
      assert.ok(await page.evaluate((name) => Boolean(window[name]), global), `the package's global ${global} is there`);
      assert.equal(await page.evaluate((name) => window[name].registered, api), 'ok',
        'every registerTool promise of the page resolves');
      return page;
    }

    for (const spec of PAGES) {
      test(`${spec.name}: its tools reach the palette once each, classed by their hints`, async () => {
        const page = await openPage(spec);
        const all = Object.keys(spec.expected);
        await browser.waitForPalette(page, hasAll(all), `the tools of ${spec.path}`);
        // A second copy (a polyfill mirroring into Toolgate, then Toolgate's
        // toolchange making it sync back) would come a little later.
        // No event proves none comes: the polyfill syncs from its own listeners, and says nothing when it is done.
        await new Promise((done) => setTimeout(done, 300));
        const palette = await browser.palette(page);
        assert.deepEqual(names(palette).sort(), [...all].sort(), 'each tool listed once');
        for (const entry of entries(palette)) {
          assert.equal(entry.kind, 'tool');
          assert.equal(new URL(entry.site).hostname, 'poly.localhost');
        }
        assert.deepEqual(badges(palette), expectedBadges(spec.expected));
      });

      test(`${spec.name}: aborting a tool's signal takes it off the palette`, async () => {
        const page = await openPage(spec);
        const all = Object.keys(spec.expected);
        await browser.waitForPalette(page, hasAll(all), `the tools of ${spec.path}`);
        await page.evaluate(({ api, abort }) => window[api][abort](), spec);
        const rest = all.filter((n) => n !== spec.signalled);
        const left = await browser.waitForPalette(page, (p) => !names(p).includes(spec.signalled),
          `${spec.signalled} gone after its signal was aborted`);
        assert.deepEqual(names(left).sort(), rest.sort());
      });

      test(`${spec.name}: the page calls its tools through the polyfill's navigator.modelContextTesting.executeTool`, async () => {
        const page = await openPage(spec);
        await browser.waitForPalette(page, hasAll(['double_number']), 'double_number');
        const result = await page.evaluate((api) => window[api].callTools(), spec.api);
        assert.deepEqual(result.listed, Object.keys(spec.expected).sort(), "getTools() lists the page's tools");
        assert.deepEqual(result.viaTesting, { value: doubled(4) });
      });

      test(`${spec.name}: the page calls its tools through the polyfill's document.modelContext.executeTool(tool, inputArgsJson)`, async () => {
        const page = await openPage(spec);
        await browser.waitForPalette(page, hasAll(['double_number']), 'double_number');
        const result = await page.evaluate((api) => window[api].callTools(), spec.api);
        if (spec.api === 'globalPage') assert.ok(result.server, "@mcp-b/global's server is the page's document.modelContext");
        // @mcp-b/webmcp-polyfill 5.1.0 and @mcp-b/global 5.1.0 both take the
        // input as JSON text (Chromium's experimental shape), and the page was
        // written for them: without Toolgate this call resolves with the
        // result, and so it does over Toolgate's polyfill. Over Chromium 156's
        // own document.modelContext, the polyfills stand aside and the text
        // reaches the browser's, which refuses it (differential.test.mjs
        // holds Toolgate's wrapper to the same refusal).
        if (native && BROWSER_VERSION >= 156) {
          assert.deepEqual(result.viaContext, { error: "TypeError: Failed to execute 'executeTool' on 'ModelContext': invalid input object: value is not an object" });
        } else {
          assert.deepEqual(result.viaContext, { value: doubled(21) });
        }
      });
    }
  });
}
