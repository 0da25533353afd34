// Figure 5: the first agent call after the service worker stopped, against
// the same call to the running worker, with two floors measured in the same
// browser and rounds:
//   - "a worker": an extension whose worker only answers a message; its
//     cold − warm is what Chromium spends starting any extension's worker;
//   - "a worker + the Wasm core": the same, answering once Toolgate's Wasm
//     core (pkg/toolgate.js and its .wasm, copied) is loaded, as every
//     Toolgate worker must before it decides anything. Its first act is the
//     core's fetch and compile, as Toolgate's is.
// Both floors are classic scripts, as Toolgate's worker is (a module worker
// starts later: benches/JOURNAL.md), the Wasm floor bundled with the glue by
// esbuild as build.sh bundles Toolgate's.
// Timed in an extension page of each (benches/pages/wake.html for Toolgate,
// as the agent console sends), from chrome.runtime.sendMessage to the reply.
// A round stops every worker (CDP ServiceWorker.stopAllWorkers), then sends
// each side's cold message in rotating order, one after another, then each
// side's warm one. Judged on Toolgate's cold − warm.
import { buildSync } from 'esbuild';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { EXTENSION, launch } from '../tests/support/browser.mjs';

const PAGE = `<!doctype html><title>wake floor</title><script src="wake.js"></script>`;
const PAGE_SCRIPT = `window.call = async () => {
  const started = performance.now();
  const reply = await chrome.runtime.sendMessage({ wake: true });
  return { ms: performance.now() - started, reply };
};`;
const WORKERS = {
  empty: `chrome.runtime.onMessage.addListener((message, sender, respond) => { respond({ ok: true }); });`,
  wasm: `import init from './toolgate.js';
// The glue only defines: this is the bundle's first statement that runs.
const core = WebAssembly.compileStreaming(fetch(chrome.runtime.getURL('toolgate_bg.wasm')));
const ready = init({ module_or_path: core });
chrome.runtime.onMessage.addListener((message, sender, respond) => {
  ready.then(() => respond({ ok: true }), (error) => respond({ ok: false, error: String(error) }));
  return true;
});`,
};

async function floorExtension(kind) {
  const dir = await mkdtemp(join(os.tmpdir(), `toolgate-wake-${kind}-`));
  await writeFile(join(dir, 'manifest.json'), JSON.stringify({
    manifest_version: 3, name: `Wake floor: ${kind}`, version: '1',
    background: { service_worker: `${kind}-worker.js` },
    content_security_policy: { extension_pages: "script-src 'self' 'wasm-unsafe-eval'; object-src 'self'" },
  }));
  let worker = WORKERS[kind];
  if (kind === 'wasm') {
    for (const file of ['toolgate.js', 'toolgate_bg.wasm']) await copyFile(join(EXTENSION, 'pkg', file), join(dir, file));
    worker = buildSync({
      stdin: { contents: worker, resolveDir: dir }, bundle: true, format: 'iife', write: false,
      banner: { js: '"use strict";' }, logOverride: { 'empty-import-meta': 'silent' }, logLevel: 'error',
    }).outputFiles[0].text;
  }
  await writeFile(join(dir, `${kind}-worker.js`), worker);
  await writeFile(join(dir, 'wake.html'), PAGE);
  await writeFile(join(dir, 'wake.js'), PAGE_SCRIPT);
  return dir;
}

// Stops every service worker of the browser; resolves once none runs.
async function stopAll(browser) {
  const page = browser.context.pages()[0] ?? await browser.context.newPage();
  const cdp = await browser.context.newCDPSession(page);
  const status = new Map(); // version id -> running status
  const stopped = new Promise((done) => {
    cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
      for (const version of versions) status.set(version.versionId, version.runningStatus);
      if (status.size >= 3 && [...status.values()].every((s) => s === 'stopped')) done();
    });
  });
  await cdp.send('ServiceWorker.enable');
  await cdp.send('ServiceWorker.stopAllWorkers');
  await stopped;
  await cdp.detach();
}

export async function wakeFigure({ server, runs, smoke, figure, notes, stats, log, callRequest, ranOk }) {
  const { median, spread, ms } = stats;
  const dirs = { empty: await floorExtension('empty'), wasm: await floorExtension('wasm') };
  const browser = await launch({ alsoLoad: Object.values(dirs) });
  try {
    const sw = await browser.worker();
    const agentUrl = server.url('bench.localhost', '/bench.html?agent&wake');
    const agentPage = await browser.newPage(agentUrl);
    const tabId = await browser.tabId(agentPage);
    await browser.waitForPalette(agentPage, (p) => p.groups.some((g) => g.entries.some((e) => e.name === 'noop')), 'the noop tool');
    const chat = 'bench-wake';
    await sw.evaluate((c) => self.toolgate.openChat(c), chat);

    // Each side's page, in its own extension's origin.
    const idOf = (kind) => browser.context.serviceWorkers()
      .map((worker) => new URL(worker.url()))
      .find((url) => url.pathname === `/${kind}-worker.js`)?.host;
    for (const kind of ['empty', 'wasm']) {
      for (const deadline = Date.now() + 10_000; !idOf(kind);) {
        if (Date.now() > deadline) throw new Error(`the ${kind} floor's worker did not start`);
        await browser.context.waitForEvent('serviceworker', { timeout: 10_000 }).catch(() => {});
      }
    }
    const toolgatePage = await browser.newPage(`chrome-extension://${new URL(sw.url()).host}/benches/pages/wake.html`);
    let id = 0;
    const sides = {
      toolgate: async () => {
        const { ms: elapsed, reply } = await toolgatePage.evaluate(([c, r]) => window.call(c, r), [chat, callRequest(tabId, 'noop', {}, `w${++id}`)]);
        if (!ranOk(reply)) throw new Error(`wake call did not run: ${JSON.stringify(reply)}`);
        return elapsed;
      },
    };
    for (const kind of ['empty', 'wasm']) {
      const page = await browser.newPage(`chrome-extension://${idOf(kind)}/wake.html`);
      sides[kind] = async () => {
        const { ms: elapsed, reply } = await page.evaluate(() => window.call());
        if (!reply?.ok) throw new Error(`the ${kind} floor did not answer: ${JSON.stringify(reply)}`);
        return elapsed;
      };
    }
    for (const send of Object.values(sides)) await send();

    const ORDERS = [['toolgate', 'empty', 'wasm'], ['empty', 'wasm', 'toolgate'], ['wasm', 'toolgate', 'empty']];
    const extra = { toolgate: [], empty: [], wasm: [] };
    const cold = { toolgate: [], empty: [], wasm: [] };
    const warm = { toolgate: [], empty: [], wasm: [] };
    for (let round = 0; round < runs; round++) {
      await stopAll(browser);
      const order = ORDERS[round % ORDERS.length];
      const coldNow = {};
      for (const side of order) coldNow[side] = await sides[side]();
      for (const side of order) {
        const warmNow = await sides[side]();
        cold[side].push(coldNow[side]);
        warm[side].push(warmNow);
        extra[side].push(coldNow[side] - warmNow);
      }
    }
    const value = median(extra.toolgate);
    // Judged as issue 39 asks: within 10 ms of the Wasm floor, measured in the same rounds.
    const overFloor = value - median(extra.wasm);
    figure({
      id: '5', figure: 'first agent call after the service worker stopped (extension page → reply)',
      measured: ms(median(cold.toolgate), 1),
      compared: `${ms(median(warm.toolgate), 1)} warm; floors: a worker +${ms(median(extra.empty), 1)}, with the Wasm core +${ms(median(extra.wasm), 1)}`,
      ratio: `+${ms(value, 1)}, ${ms(overFloor, 1)} over the Wasm floor / ≤ 10 ms over it`, met: overFloor <= 10,
      judged: { value: overFloor, unit: 'ms over the Wasm floor', target: 10 },
      data: Object.fromEntries(Object.keys(extra).map((side) => [side, { cold: spread(cold[side]), warm: spread(warm[side]), extra: spread(extra[side]) }])),
    });
    const stored = await (await browser.worker()).evaluate(async () => JSON.stringify(await chrome.storage.session.get(null)).length);
    notes.push(`5: cold = every worker stopped (CDP ServiceWorker.stopAllWorkers), then the first message from an extension page: for Toolgate, an agent call as the agent console sends it (worker start, Wasm init, reading ${(stored / 1024).toFixed(0)} KB of stored state, the call); for the floors, a message their worker answers at once, or once it has loaded Toolgate's Wasm core. Each side's cold − warm, ${smoke ? 'smoke' : `median of ${runs} rounds`}: Toolgate +${ms(value, 1)}, a worker +${ms(median(extra.empty), 1)}, a worker loading the Wasm core +${ms(median(extra.wasm), 1)}. The extensions' processes stay up (their pages are in them), so no process start is counted.`);
    log(`5: Toolgate +${ms(value, 1)}, floors +${ms(median(extra.empty), 1)} / +${ms(median(extra.wasm), 1)}`);
  } finally {
    await browser.close();
    for (const dir of Object.values(dirs)) await rm(dir, { recursive: true, force: true });
  }
}
