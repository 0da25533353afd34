// Figure 11: how long after a navigation the browser's own WebMCP lists the
// page's tool, with Toolgate (which registers its gated copy once the worker
// has classed the tool: ARCHITECTURE.md, "Who is gated") against without
// (the page's own registration), on Chromium 156 with its WebMCP on, in a
// fresh browser (the first page after the browser starts) and a warm one.
// Seen as the browser's agents see it: the DevTools protocol's
// `WebMCP.toolsAdded`, timed from the navigation's start. Sides alternate.
// Targets: warm, within 50 ms of without; fresh, within 300 ms.
import { chromium } from 'playwright-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  EXTENSION, extensionArgs, IGNORE_DEFAULT_ARGS, startChromium, toolgateWorker,
} from '../lib/chromium.mjs';

const CHROMIUM_156 = fileURLToPath(new URL('../tests/support/chromium-156.sh', import.meta.url));

async function start(withToolgate) {
  const profile = await mkdtemp(join(tmpdir(), 'toolgate-listing-'));
  const context = await startChromium(() => chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_156,
    headless: true,
    args: extensionArgs(withToolgate ? [EXTENSION] : [], { native: true }),
    ignoreDefaultArgs: IGNORE_DEFAULT_ARGS,
  }));
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

// Navigates a fresh tab of `context` to `url`: ms from the navigation's
// start until the browser's WebMCP lists `tool`.
async function listedAfter(context, url, tool) {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebMCP.enable');
  const listed = new Promise((done) => {
    cdp.on('WebMCP.toolsAdded', (event) => {
      if ((event.tools ?? []).some((t) => t.name === tool)) done(performance.now());
    });
  });
  const begun = performance.now();
  await page.goto(url, { waitUntil: 'commit' });
  const at = await Promise.race([listed, new Promise((_, fail) => setTimeout(() => fail(new Error(`${tool} not listed within 30 s of ${url}`)), 30_000))]);
  await cdp.detach();
  await page.close();
  return at - begun;
}

export async function listingFigure({ server, smoke, figure, notes, stats, log }) {
  const { median, spread, ms } = stats;
  const rounds = smoke ? 1 : 5;
  const warmLoads = smoke ? 2 : 15;
  let serial = 0;
  const url = () => server.url('listing.localhost', `/bench.html?tools=1&n=${++serial}`);
  const fresh = { with: [], without: [] };
  const warm = { with: [], without: [] };
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 ? ['without', 'with'] : ['with', 'without']) {
      const browser = await start(side === 'with');
      try {
        // The first page after the start, as soon as the browser can take it;
        // Toolgate's worker is not waited for.
        fresh[side].push(await listedAfter(browser.context, url(), 'tool_0'));
        if (side === 'with') await toolgateWorker(browser.context);
        for (let i = 0; i < warmLoads; i++) warm[side].push(await listedAfter(browser.context, url(), 'tool_0'));
      } finally {
        await browser.close();
      }
    }
    log(`11: round ${round + 1} of ${rounds}`);
  }
  const warmMore = median(warm.with) - median(warm.without);
  const freshMore = median(fresh.with) - median(fresh.without);
  figure({
    id: '11a', figure: "navigation → the browser's WebMCP lists the page's tool, warm browser (156, native on)",
    measured: ms(median(warm.with)), compared: `${ms(median(warm.without))} without Toolgate`,
    ratio: `${warmMore >= 0 ? '+' : ''}${ms(warmMore)} / ≤ +50 ms`, met: warmMore <= 50,
    judged: { value: warmMore, unit: 'ms', target: 50 },
    data: { with: spread(warm.with), without: spread(warm.without), rounds, loadsPerRound: warmLoads },
  });
  figure({
    id: '11b', figure: "navigation → the browser's WebMCP lists the page's tool, first page after the browser starts",
    measured: ms(median(fresh.with)), compared: `${ms(median(fresh.without))} without Toolgate`,
    ratio: `${freshMore >= 0 ? '+' : ''}${ms(freshMore)} / ≤ +300 ms`, met: freshMore <= 300,
    judged: { value: freshMore, unit: 'ms', target: 300 },
    data: { with: spread(fresh.with), without: spread(fresh.without), rounds },
  });
  notes.push(`11: timed from page.goto's start to the DevTools protocol's WebMCP.toolsAdded naming the page's tool (bench.html?tools=1), in a new tab each time; a fresh browser per round and side, sides alternating. With Toolgate, the browser lists the copy Toolgate registers once its worker has classed the tool (the page's report, the worker's answer, then native registerTool).`);
}
