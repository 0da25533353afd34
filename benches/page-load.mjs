// Figure 1: page load with and without Toolgate, and with its floor (benches/README.md).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { basename, join } from 'node:path';
import { EXTENSION, launch } from '../tests/support/browser.mjs';
import { SMOKE, RUNS, log, sleep, median, spread, medianCI, ciText, spreads, ms, notes, figure } from './run.mjs';

// ---- Figure 1: page load with and without Toolgate -------------------------------

// Renderer trace events that show what a document_start content script costs.
const TRACED = ['LocalWindowProxy::CreateContext', 'ContextCreatedNotification', 'ScriptInjection::InjectJs',
  'EvaluateScript main-world.js', 'EvaluateScript relay.js', 'FunctionCall main-world.js', 'FunctionCall relay.js'];
// Of those, what the content scripts cost a document before its `load`: their
// injection (which includes running them), the extension system's notice of
// the new context, and main-world.js's DOMContentLoaded listener (the relay's
// listener runs after `load`).
const BEFORE_LOAD = ['ContextCreatedNotification', 'ScriptInjection::InjectJs', 'FunctionCall main-world.js'];

// Loads `loads` pages under a Chromium trace; the total duration per load (ms)
// of each TRACED event (scripts named by file).
async function traceLoads(chromium, page, loads, nextUrl) {
  await chromium.startTracing(page, { categories: ['devtools.timeline', 'v8', 'extensions'] });
  for (let i = 0; i < loads; i++) await page.goto(nextUrl());
  const trace = JSON.parse((await chromium.stopTracing()).toString());
  const sums = {};
  for (const event of trace.traceEvents ?? trace) {
    if (event.ph !== 'X' || !event.dur) continue;
    const url = event.args?.data?.url;
    const name = url ? `${event.name} ${basename(String(url))}` : event.name;
    if (TRACED.includes(name)) sums[name] = (sums[name] ?? 0) + event.dur / 1000 / loads;
  }
  return sums;
}

// The floor of figure 1: an extension whose only content script is an empty
// isolated-world script at document_start, as Toolgate's relay must be (it is
// the only world where a content script can reach chrome.runtime, and it must
// be there before the page's first script). Written to a temporary directory.
async function floorExtension() {
  const dir = await mkdtemp(join(os.tmpdir(), 'toolgate-floor-'));
  await writeFile(join(dir, 'empty.js'), '');
  await writeFile(join(dir, 'manifest.json'), JSON.stringify({
    manifest_version: 3, name: 'Empty isolated-world content script', version: '1',
    content_scripts: [{ matches: ['<all_urls>'], js: ['empty.js'], run_at: 'document_start', all_frames: true }],
  }));
  return dir;
}

// One browser and one tab for all three sides, which differ only in the
// extension installed (CDP's Extensions.loadUnpacked and uninstall), in
// blocks: Toolgate, the floor extension, or none. Three browsers, one per
// side, differed by up to 8 % with the same extensions in each (a browser's
// own state: its renderer, its caches), more than the 2 % being judged.
// Each block waits for the extension to settle (Toolgate's worker loads its
// core), loads the page twice unmeasured (the scripts' code cache), then
// measures. Rounds turn the sides' order.
export async function pageLoad(server) {
  log('1 page load: one browser; Toolgate, the floor extension, or neither installed in turn');
  const floorDir = await floorExtension();
  const handle = await launch({ extension: false });
  const cdp = await handle.context.browser().newBrowserCDPSession();
  const DIRS = { with: EXTENSION, floor: floorDir, without: null };
  // Runs `body` with `side`'s extension installed.
  const installed = async (side, body) => {
    const id = DIRS[side] && (await cdp.send('Extensions.loadUnpacked', { path: DIRS[side] })).id;
    try {
      if (side === 'with') {
        const sw = handle.context.serviceWorkers().find((w) => w.url().includes(id))
          ?? await handle.context.waitForEvent('serviceworker', (w) => w.url().includes(id));
        await sw.evaluate(() => self.toolgate.ready());
      }
      await sleep(SMOKE ? 0 : 200); // What installing set going, finished.
      return await body();
    } finally {
      if (id) await cdp.send('Extensions.uninstall', { id });
    }
  };
  try {
    const page = await handle.context.newPage();
    // The load time, and its phases (ms) from the Navigation Timing entry and
    // the mark the page's first script sets.
    const loadTime = async (url) => {
      await page.goto(url);
      return page.evaluate(() => {
        const [e] = performance.getEntriesByType('navigation');
        const first = performance.getEntriesByName('first-page-script')[0]?.startTime ?? e.responseEnd;
        return {
          load: e.loadEventStart - e.startTime,
          phases: {
            'navigation start → response start': e.responseStart - e.startTime,
            'response start → first page script': first - e.responseStart,
            'first page script → DOM interactive': e.domInteractive - first,
            'DOM interactive → load': e.loadEventStart - e.domInteractive,
          },
        };
      });
    };
    let n = 0;
    const ORDERS = [['with', 'floor', 'without'], ['without', 'with', 'floor'], ['floor', 'without', 'with'],
      ['without', 'floor', 'with'], ['with', 'without', 'floor'], ['floor', 'with', 'without']];
    for (const [path, label] of [['/plain.html', 'typical page'], ['/blank.html', 'minimal page']]) {
      const url = () => server.url('plain.localhost', `${path}?${++n}`);
      // Each side's block of loads: medians of the load and of each phase.
      const block = (side) => installed(side, async () => {
        for (let i = 0; i < RUNS.warmLoads; i++) await loadTime(url());
        // Toolgate really is in the page (the check comes after the loads, which never touch WebMCP).
        if (side === 'with' && await page.evaluate(() => typeof document.modelContext) !== 'object') {
          throw new Error('Toolgate is not in the page');
        }
        const loads = [];
        for (let i = 0; i < RUNS.blockLoads; i++) loads.push(await loadTime(url()));
        const phases = Object.fromEntries(Object.keys(loads[0].phases).map((phase) => [phase, median(loads.map((l) => l.phases[phase]))]));
        return { load: median(loads.map((l) => l.load)), loads: loads.map((l) => l.load), phases };
      });
      const times = { with: [], floor: [], without: [] };
      const ratios = [];
      const floorRatios = [];
      const overFloor = [];
      const phaseDeltas = {}; // with − without
      const floorPhaseDeltas = {}; // with − the floor
      for (let i = 0; i < RUNS.loadRounds; i++) {
        const round = {};
        for (const side of ORDERS[i % ORDERS.length]) round[side] = await block(side);
        for (const side of ORDERS[0]) times[side].push(...round[side].loads);
        ratios.push(round.with.load / round.without.load);
        floorRatios.push(round.floor.load / round.without.load);
        overFloor.push(round.with.load / round.floor.load);
        for (const [phase, t] of Object.entries(round.with.phases)) {
          (phaseDeltas[phase] ??= []).push(t - round.without.phases[phase]);
          (floorPhaseDeltas[phase] ??= []).push(t - round.floor.phases[phase]);
        }
      }
      const deltas = (by) => Object.entries(by).map(([phase, d]) => `${phase} ${median(d) >= 0 ? '+' : ''}${median(d).toFixed(2)}`).join('; ');
      notes.push(`1: ${label}, median over rounds of each block's median, by phase (ms): with − without: ${deltas(phaseDeltas)}; with − the floor: ${deltas(floorPhaseDeltas)}. Content scripts run at document_start, between the response and the page's first script.`);
      const ratio = median(ratios);
      const floorRatio = median(floorRatios);
      figure({
        id: label === 'typical page' ? '1a' : '1b',
        figure: `page load to \`load\`, ${label}, no WebMCP`,
        measured: `${ms(median(times.with))} with Toolgate`,
        compared: `${ms(median(times.without))} without; the floor ${ms(median(times.floor))}, ${floorRatio.toFixed(3)}×`,
        ratio: `${ratio.toFixed(3)}× (95 % CI ${ciText(ratios, 3)}); ${median(overFloor).toFixed(3)}× the floor / ≤ 1.02×`,
        met: ratio <= 1.02, judged: { value: ratio, unit: '×', target: 1.02 },
        data: { rounds: RUNS.loadRounds, loadsPerBlock: RUNS.blockLoads,
          with: spread(times.with), floor: spread(times.floor), without: spread(times.without),
          pairedRatio: { ...spread(ratios), ci95: medianCI(ratios) }, floorRatio: { ...spread(floorRatios), ci95: medianCI(floorRatios) },
          overFloor: spread(overFloor),
          ratioOfMedians: median(times.with) / median(times.without),
          phaseDeltas: spreads(phaseDeltas), floorPhaseDeltas: spreads(floorPhaseDeltas) },
      });
    }
    // Where the time goes: a Chromium trace of a few loads of each page on
    // each side: what the content scripts cost the page's main thread.
    const loads = SMOKE ? 2 : 20;
    for (const [path, label] of [['/plain.html', 'typical page'], ['/blank.html', 'minimal page']]) {
      const traced = {};
      for (const side of ['with', 'floor', 'without']) {
        traced[side] = await installed(side, async () => {
          for (let i = 0; i < RUNS.warmLoads; i++) await loadTime(server.url('plain.localhost', `${path}?t${++n}`));
          return traceLoads(handle.context.browser(), page, loads, () => server.url('plain.localhost', `${path}?t${++n}`));
        });
      }
      const row = (name) => `${name} ${['with', 'floor', 'without'].map((side) => (traced[side][name] ?? 0).toFixed(2)).join(' / ')}`;
      const excess = BEFORE_LOAD.reduce((sum, name) => sum + (traced.with[name] ?? 0) - (traced.floor[name] ?? 0), 0);
      notes.push(`1: ${label}, Chromium trace over ${loads} loads, ms of the renderer's main thread per load with Toolgate / with the floor extension / without: ${TRACED.map(row).join('; ')}; before \`load\`, Toolgate's content scripts cost ${excess.toFixed(2)} ms more than the floor's (${BEFORE_LOAD.join(', ')}). The floor extension's only content script is an empty isolated-world script at document_start: Toolgate's relay must run in an isolated world (the only one where a content script reaches chrome.runtime) and before the page's first script, and such a script alone costs the document a second V8 context.`);
    }
    await page.close();
    await handle.assertNoErrors();
  } finally {
    await cdp.detach().catch(() => {});
    await handle.close();
    await rm(floorDir, { recursive: true, force: true });
  }
}
