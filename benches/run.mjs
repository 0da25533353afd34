// What every figure of the browser benchmark shares (benches/browser.mjs):
// the command line, how many runs each figure takes, the statistics, what
// gets reported, the worker through CDP, and helpers on the browser with
// Toolgate.
import { basename } from 'node:path';

export const argv = process.argv.slice(2);
export const SMOKE = argv.includes('--smoke');
export const JSON_OUT = argv.includes('--json');
// `--only 1,4`: the figures to measure (all when absent).
export const ONLY = argv.includes('--only') ? new Set(String(argv[argv.indexOf('--only') + 1] ?? '').split(',')) : null;
export const wanted = (id) => ONLY === null || ONLY.has(id);
// `--compare last.json`: an earlier run's --json output, read before anything runs.
export const COMPARE = argv.includes('--compare') ? argv[argv.indexOf('--compare') + 1] : null;

// How many runs each figure takes.
export const RUNS = SMOKE
  ? { loadRounds: 1, blockLoads: 1, warmLoads: 1, register: 1, registerN: 1000, classifyOne: 1, classifyMany: 1, calls: 3, batch: 2, warmup: 1,
    cold: 1, tabs: 3, toolsPerTab: 5, chats: 2, callsPerChat: 5, rounds: 1, profileCalls: 5 }
  : { loadRounds: 30, blockLoads: 5, warmLoads: 2, register: 20, registerN: 1000, classifyOne: 30, classifyMany: 15, calls: 150, batch: 10, warmup: 5,
    cold: 20, tabs: 100, toolsPerTab: 50, chats: 10, callsPerChat: 100, rounds: 3, profileCalls: 1000 };

export const started = performance.now();
export const log = (...words) => process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(1)} s] ${words.join(' ')}\n`);
export const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// ---- Statistics ------------------------------------------------------------

export function median(values) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))];
}
export const spread = (values) => ({ n: values.length, median: median(values), p25: quantile(values, 0.25), p75: quantile(values, 0.75) });
// A 95 % confidence interval of the median (percentile bootstrap, 2,000
// resamples, a fixed seed so that a run's output is reproducible from its
// data): how far the judged median of a ratio can be trusted on this machine.
export function medianCI(values) {
  let seed = 12345;
  const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
  const medians = [];
  for (let i = 0; i < 2000; i++) {
    medians.push(median(values.map(() => values[Math.floor(random() * values.length)])));
  }
  return [quantile(medians, 0.025), quantile(medians, 0.975)];
}
export const ciText = (values, digits) => medianCI(values).map((v) => v.toFixed(digits)).join('–');
// `{name: values}` → `{name: spread}`.
export const spreads = (byName) => Object.fromEntries(Object.entries(byName).map(([name, values]) => [name, spread(values)]));
export const ms = (v, digits = 2) => `${v.toFixed(digits)} ms`;
export const us = (v) => `${v.toFixed(2)} µs`;
export const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(2)} MB`;

// ---- What gets reported ------------------------------------------------------

export const figures = [];
export const notes = [];
export const failures = []; // Errors and lost or duplicated calls: the only reasons to exit non-zero.

// One row. `met`: true, false, or null (nothing to judge); `judged`: the
// number held to the target ({value, unit, target}), for comparing runs.
export function figure(row) {
  figures.push(row);
  log(`${row.id} ${row.figure}: ${row.measured} | ${row.compared} | ${row.ratio} | ${row.met === null ? '—' : row.met ? 'yes' : 'NO'}`);
}

// ---- The worker through CDP --------------------------------------------------
// Playwright's CDP sessions cannot address a flat child session, so the service
// worker is attached unflattened and spoken to through Target.sendMessageToTarget.

export async function workerCdp(browser) {
  const cdp = await browser.context.browser().newBrowserCDPSession();
  const { targetInfos } = await cdp.send('Target.getTargets');
  const target = targetInfos.find((t) => t.type === 'service_worker' && t.url.startsWith('chrome-extension://'));
  if (!target) throw new Error('no service worker target');
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: target.targetId, flatten: false });
  let nextId = 0;
  const pending = new Map();
  cdp.on('Target.receivedMessageFromTarget', (event) => {
    if (event.sessionId !== sessionId) return;
    const message = JSON.parse(event.message);
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (message.error) waiting.reject(new Error(`${waiting.method}: ${message.error.message}`));
    else waiting.resolve(message.result);
  });
  return {
    send(method, params = {}) {
      const id = ++nextId;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject, method });
        cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) }).catch(reject);
      });
    },
    detach: () => cdp.detach(),
  };
}

// The top self-time functions of a CPU profile, idle left out.
export function profileSummary(profile, top = 6) {
  const self = new Map();
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
  const place = ({ functionName, url, lineNumber }) =>
    `${functionName || '(anonymous)'}${url ? ` ${basename(url.split('?')[0]) || url}:${lineNumber + 1}` : ''}`;
  let hits = 0;
  let wasmHits = 0;
  for (const node of profile.nodes) {
    const { functionName, url } = node.callFrame;
    if (functionName === '(idle)' || !node.hitCount) continue;
    if (url.endsWith('.wasm') || functionName.startsWith('wasm-function') || functionName.startsWith('js-to-wasm')) wasmHits += node.hitCount;
    // Functions without a script are native, mostly chrome.* bindings, which
    // V8's profiler names after unrelated methods of the same API (a
    // chrome.storage call shows as "setAccessLevel"): named here by their caller.
    const native = !url && !functionName.startsWith('(');
    const caller = parent.get(node.id);
    const key = native && caller?.callFrame.url ? `native call from ${place(caller.callFrame)}` : place(node.callFrame);
    self.set(key, (self.get(key) ?? 0) + node.hitCount);
    hits += node.hitCount;
  }
  const interval = (profile.endTime - profile.startTime) / Math.max(1, profile.samples.length) / 1000;
  const busy = hits * interval;
  const list = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)
    .map(([name, n]) => `${name} ${((100 * n) / Math.max(1, hits)).toFixed(0)}%`);
  return { busyMs: busy, wasmMs: wasmHits * interval, top: list };
}

export async function profiled(session, body) {
  await session.send('Profiler.enable');
  await session.send('Profiler.setSamplingInterval', { interval: 100 });
  await session.send('Profiler.start');
  let profile;
  try {
    await body();
  } finally {
    ({ profile } = await session.send('Profiler.stop'));
    await session.send('Profiler.disable');
  }
  return profileSummary(profile);
}

// ---- Helpers on the browser with Toolgate ------------------------------------------

export const callRequest = (tabId, name, args, id) => ({
  jsonrpc: '2.0', id, method: 'tools/call',
  params: { name: 'browser_call_webmcp_tool', arguments: { tabId, name, arguments: args } },
});

export function ranOk(reply) {
  return reply?.error === undefined && reply?.result?.isError === false
    && reply.result._meta?.toolgate?.decision === 'run';
}

export async function tabIdOf(sw, url) {
  return sw.evaluate(async (u) => (await chrome.tabs.query({})).find((t) => t.url === u)?.id, url);
}

// Waits until the tab's palette lists `count` entries (or, `count` a
// function, entries it says are enough), worker side, polling.
export async function paletteCount(sw, tabId) {
  return sw.evaluate(async (id) => (await self.toolgate.palette(id)).groups
    .reduce((sum, g) => sum + g.entries.length, 0), tabId);
}
export async function waitForCount(sw, tabId, count, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const n = await paletteCount(sw, tabId);
    if (typeof count === 'function' ? count(n) : n === count) return;
    if (Date.now() > deadline) throw new Error(`tab ${tabId}: ${n} tools in the palette, not ${count}`);
    await sleep(20);
  }
}
