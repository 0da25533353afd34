// Figures 6 and 7: the Wasm's size, and the worker's memory with many tabs of
// tools (benches/README.md).
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { EXTENSION, launch } from '../tests/support/browser.mjs';
import { RUNS, log, mb, notes, figure, workerCdp, waitForCount } from './run.mjs';

// ---- Figure 6: the .wasm ---------------------------------------------------------------

export function wasmSize() {
  const file = join(EXTENSION, 'pkg/toolgate_bg.wasm');
  const raw = statSync(file).size;
  const gz = execFileSync('gzip', ['-9', '-c', file], { maxBuffer: 64 * 2 ** 20 }).length;
  const built = join(EXTENSION, 'target/wasm32-unknown-unknown/release/toolgate.wasm');
  let stale = false;
  try { stale = statSync(built).mtimeMs > statSync(file).mtimeMs; } catch { /* no build tree */ }
  figure({
    id: '6', figure: 'pkg/toolgate_bg.wasm after wasm-opt, gzip -9',
    measured: `${(gz / 1000).toFixed(1)} KB gzipped`, compared: `${(raw / 1000).toFixed(1)} KB raw`,
    ratio: '≤ 100 KB gzipped', met: gz <= 100_000, judged: { value: gz, unit: 'bytes', target: 100_000 },
    data: { raw, gzip: gz, stale },
  });
  if (stale) notes.push('6: pkg/toolgate_bg.wasm is older than target/…/toolgate.wasm: a build is pending or under way; ./build.sh makes pkg/ current.');
}

// ---- Figure 7: worker memory with many tabs of tools ---------------------------------------

export async function memory(server) {
  log(`7 memory: a fresh browser, ${RUNS.tabs} tabs × ${RUNS.toolsPerTab} tools`);
  // Fewer renderer processes than tabs: the figure is the worker's heap, not the pages'.
  const browser = await launch({ args: ['--renderer-process-limit=8'] });
  try {
    const heap = async () => {
      const cdp = await workerCdp(browser);
      try {
        await cdp.send('HeapProfiler.collectGarbage');
        const usage = await cdp.send('Runtime.getHeapUsage');
        // The Wasm core's linear memory is not in the JS heap's count: found by prototype.
        const { result: proto } = await cdp.send('Runtime.evaluate', { expression: 'WebAssembly.Memory.prototype' });
        const { objects } = await cdp.send('Runtime.queryObjects', { prototypeObjectId: proto.objectId });
        const { result } = await cdp.send('Runtime.callFunctionOn', {
          objectId: objects.objectId, returnByValue: true,
          functionDeclaration: 'function () { return this.reduce((sum, m) => sum + m.buffer.byteLength, 0); }',
        });
        return { js: usage.usedSize, wasm: result.value };
      } finally {
        await cdp.detach();
      }
    };
    const empty = await heap();
    const sw = await browser.worker();
    const pages = [];
    for (let i = 0; i < RUNS.tabs; i++) {
      pages.push(await browser.newPage(server.url(`site${i % 10}.localhost`, `/bench.html?tools=${RUNS.toolsPerTab}&tab=${i}`)));
      if (i % 25 === 24) log(`7 memory: ${i + 1} tabs open`);
    }
    const counts = await sw.evaluate(async () => {
      const tabs = await chrome.tabs.query({});
      const out = [];
      for (const tab of tabs) {
        if (!tab.url.includes('/bench.html')) continue;
        const palette = await self.toolgate.palette(tab.id);
        out.push(palette.groups.reduce((sum, g) => sum + g.entries.length, 0));
      }
      return out;
    });
    // Registrations land asynchronously; wait for the stragglers.
    const tabIds = await sw.evaluate(async () => (await chrome.tabs.query({})).filter((t) => t.url.includes('/bench.html')).map((t) => t.id));
    if (counts.some((c) => c !== RUNS.toolsPerTab)) for (const id of tabIds) await waitForCount(sw, id, RUNS.toolsPerTab);
    const full = await heap();
    const total = full.js + full.wasm;
    figure({
      id: '7', figure: `worker memory, ${RUNS.tabs} tabs × ${RUNS.toolsPerTab} tools (after GC)`,
      measured: `${mb(total)} (JS ${mb(full.js)} + Wasm ${mb(full.wasm)})`,
      compared: `${mb(empty.js + empty.wasm)} with no tabs`,
      ratio: '≤ 20 MB', met: total <= 20 * 2 ** 20, judged: { value: total, unit: 'bytes', target: 20 * 2 ** 20 },
      data: { full, empty, tabs: tabIds.length, toolsPerTab: RUNS.toolsPerTab },
    });
    notes.push(`7: JS heap is CDP Runtime.getHeapUsage usedSize of the service worker after HeapProfiler.collectGarbage; the Wasm core's linear memory (which holds the registry) is counted on top, as the sum of the worker's WebAssembly.Memory buffers (never shrinks: a high-water mark).`);
    await Promise.all(pages.map((p) => p.close()));
    await browser.assertNoErrors();
  } finally {
    await browser.close();
  }
}
