// Figure 13: another tab's agent call while a page's costly schema is being
// checked, against the same call calm (issue 37, "Work a page can make the
// worker do"; benches/README.md, "Figure 13"). The worker is one thread, and
// every check of a page's schema runs in it under a budget
// (src/page/schema/budget.rs): what the budget lets through is what another
// tab's call may wait for. The call is figure 4's: an allowed Read-only tool
// with a trivial execute, in the agent tab, timed inside the worker, each
// sample the median of a batch of sequential calls. Target: at most 2×.
// - 13a: while another chat calls, in a loop, a page's tool with arguments
//   that take its check right up to the budget (`WARM`, the costliest of the
//   shapes surveyed in benches/README.md);
// - 13b: while another chat makes the first calls of a page's 64 KB schemas,
//   each a fresh schema text (a salt in its patterns), so that every call
//   compiles its schema's 100 patterns (benches/pages/costly.html); the
//   same tools' second calls are measured beside it (the warm 64 KB schema).
// Interleaved: each round measures each side once, in rotating order; the
// figure is the median of the rounds' ratios, with its 95 % CI.
import { tabIdOf, waitForCount } from './run.mjs';

// The load of 13a: a tool of benches/pages/costly.html and the arguments
// that take its check nearest the budget (10,000 steps) without passing it,
// the costliest of the shapes tried (benches/README.md, "Figure 13"): 9,900
// strings for an array of strings, accepted and run.
const WARM = { name: 'labels', args: () => ({ labels: Array.from({ length: 9_900 }, (_, i) => `l${i % 10}`) }), ends: ['ok'] };

// Runs in the worker: `batch` sequential calls of `noop` in the agent tab,
// ending early (after one at least) once the load is over, if `whileLoad`
// (`self.benchCostlyOver`): the median call, and how many calls the batch made.
async function noopBatch([agentTab, batch, whileLoad]) {
  const chat = 'bench-costly';
  await self.toolgate.openChat(chat);
  self.benchCostlyId ??= 0;
  const times = [];
  for (let i = 0; i < batch && !(whileLoad && i > 0 && self.benchCostlyOver); i++) {
    const t = performance.now();
    const reply = await self.toolgate.agent(chat, {
      jsonrpc: '2.0', id: `costly-${++self.benchCostlyId}`, method: 'tools/call',
      params: { name: 'browser_call_webmcp_tool', arguments: { tabId: agentTab, name: 'noop', arguments: {} } },
    });
    if (reply?.result?.isError !== false) throw new Error(`noop did not run: ${JSON.stringify(reply)}`);
    times.push(performance.now() - t);
  }
  const sorted = [...times].sort((a, b) => a - b);
  return { ms: sorted[sorted.length >> 1], slowest: sorted.at(-1), calls: sorted.length };
}

// Runs in the worker: one call of the load, by another chat, with the
// arguments left in `self.benchCostlyArgs`: its time, and how it ended.
async function loadCall([tabId, name]) {
  const chat = 'bench-costly-load';
  await self.toolgate.openChat(chat);
  self.benchCostlyId ??= 0;
  const t = performance.now();
  const reply = await self.toolgate.agent(chat, {
    jsonrpc: '2.0', id: `costly-${++self.benchCostlyId}`, method: 'tools/call',
    params: { name: 'browser_call_webmcp_tool', arguments: { tabId, name, arguments: self.benchCostlyArgs } },
  });
  return { ms: performance.now() - t, text: reply?.error?.message ?? reply?.result?.content?.[0]?.text ?? JSON.stringify(reply) };
}

export async function costlyFigure({ browser, server, sw, agentTab, runs, smoke, figure, notes, stats, log }) {
  const { median, spread, medianCI, ciText, ms } = stats;
  const rounds = smoke ? 1 : 15;
  const batch = smoke ? 3 : 20;
  const tabOf = (url) => tabIdOf(sw, url);
  const listed = (tabId, count) => waitForCount(sw, tabId, count, 60_000);
  // A batch of timed calls while (if `load` is given) another chat calls
  // `load.names` in turn, once each (`load.once`) or until the batch ends.
  // Each of the load's calls is a message of its own from here, as an
  // agent's request is, and the next is sent when it is answered.
  const measure = async (load) => {
    if (load === null) return { ...await sw.evaluate(noopBatch, [agentTab, batch, false]), loaded: 0, loadMs: 0, endings: {} };
    await sw.evaluate((args) => { self.benchCostlyArgs = args; self.benchCostlyOver = false; }, load.args);
    let batchDone = false;
    const loadTimes = [];
    const endings = {};
    const loading = (async () => {
      for (let i = 0; !batchDone && !(load.once && i >= load.names.length); i++) {
        const { ms: took, text } = await sw.evaluate(loadCall, [load.tabId, load.names[i % load.names.length]]);
        const ending = load.ends.find((start) => text.startsWith(start));
        if (ending === undefined) throw new Error(`the load's call ended otherwise: ${text.slice(0, 300)}`);
        endings[ending] = (endings[ending] ?? 0) + 1;
        loadTimes.push(took);
      }
      await sw.evaluate(() => { self.benchCostlyOver = true; });
    })();
    // Under way: the load's first call is sent before the first timed call.
    await new Promise((done) => setTimeout(done, 1));
    const out = await sw.evaluate(noopBatch, [agentTab, batch, true]).finally(() => { batchDone = true; });
    await loading;
    return { ...out, loaded: loadTimes.length, loadMs: median(loadTimes), endings };
  };

  // 13a: a loop of checks right up to the budget, warm (its first call made before).
  const warmUrl = server.url('costly.localhost', '/costly.html?warm');
  const page = await browser.newPage(warmUrl);
  const tabId = await tabOf(warmUrl);
  await listed(tabId, 4);
  const load = { tabId, names: [WARM.name], args: WARM.args(), ends: WARM.ends, once: false };
  await measure({ ...load, once: true });
  const calm = [];
  const loaded = [];
  const slowest = [];
  const loadMs = [];
  let loadCalls = 0;
  for (let i = 0; i < rounds; i++) {
    for (const side of i % 2 ? ['load', 'calm'] : ['calm', 'load']) {
      const out = await measure(side === 'load' ? load : null);
      if (side === 'calm') calm.push(out.ms);
      else {
        loaded.push(out.ms);
        slowest.push(out.slowest);
        loadMs.push(out.loadMs);
        loadCalls += out.loaded;
      }
    }
  }
  const ratios = loaded.map((l, i) => l / calm[i]);
  const ratio = median(ratios);
  figure({
    id: '13a', figure: "another tab's agent call while a page's tool is called with arguments its check takes up to the budget",
    measured: ms(median(loaded)), compared: `${ms(median(calm))} calm`,
    ratio: `${ratio.toFixed(2)}× (95 % CI ${ciText(ratios, 2)}) / ≤ 2×`, met: ratio <= 2, judged: { value: ratio, unit: '×', target: 2 },
    data: { loaded: spread(loaded), calm: spread(calm), slowest: spread(slowest), loadCall: spread(loadMs), pairedRatio: { ...spread(ratios), ci95: medianCI(ratios) }, runs },
  });
  // A text matched against a pattern with a wide repetition: on a Pike VM it
  // cost the text times the repetition's width (1.0-2.6 s here), and the lazy
  // DFA that runs first now charges each state it builds, so the check is
  // refused as too costly within the budget (benches/README.md, "Figure 13").
  const text = smoke ? 1_600 : 16_000;
  await sw.evaluate((args) => { self.benchCostlyArgs = args; }, { text: 'a'.repeat(text) });
  const wide = await sw.evaluate(loadCall, [tabId, 'text']);
  if (!/too costly to check/.test(wide.text)) throw new Error(`the wide pattern's check ended otherwise: ${wide.text.slice(0, 300)}`);
  notes.push(`13a: not in the figure: one check of ${text.toLocaleString('en')} bytes against \`a{0,2000}b\`, refused as too costly to check, took ${ms(wide.ms)} as its chat saw it.`);
  // What an honest call with a pattern costs: 300 words, accents among them,
  // against `^\p{L}{1,20}$`, each matched by the count and by the validator.
  await sw.evaluate((args) => { self.benchCostlyArgs = args; }, { tags: Array.from({ length: 300 }, (_, i) => `mot${'é'.repeat(i % 12)}`) });
  const tagged = [];
  for (let i = 0; i <= (smoke ? 2 : 40); i++) {
    const call = await sw.evaluate(loadCall, [tabId, 'tags']);
    if (/^(cannot check|invalid)/.test(call.text)) throw new Error(`the honest pattern's check ended otherwise: ${call.text.slice(0, 300)}`);
    if (i > 0) tagged.push(call.ms);
  }
  notes.push(`13a: not in the figure: an honest call with a pattern (300 words against \`^\\p{L}{1,20}$\`) took ${ms(median(tagged))} as its chat saw it (median of ${tagged.length}).`);
  notes.push(`13a: the load is another chat calling \`${WARM.name}\` (benches/pages/costly.html) in a loop, each call ${ms(median(loadMs))} as its chat sees it (${loadCalls} calls in all); each sample the median of ${batch} sequential calls, the slowest of each batch ${ms(median(slowest))} (median over rounds).`);

  // 13b: first calls of fresh 64 KB schemas, then the same tools' second calls.
  const tools = smoke ? 2 : 16;
  const names = Array.from({ length: tools }, (_, n) => `first${n}`);
  const sides = { calm: [], first: [], warm: [] };
  const slowestOf = { calm: [], first: [], warm: [] };
  const loadTimes = { first: [], warm: [] };
  const made = { first: 0, warm: 0 };
  // Calls refused as too costly to check (not one is expected).
  const refused = { first: 0, warm: 0 };
  const orders = [['calm', 'first', 'warm'], ['first', 'calm', 'warm'], ['first', 'warm', 'calm']];
  for (let i = 0; i < rounds; i++) {
    // The last round's tools gone first, so that every call below is of this round's.
    await page.goto(server.url('costly.localhost', '/costly.html'));
    await listed(tabId, 0);
    await page.goto(server.url('costly.localhost', `/costly.html?first=r${i}x${Date.now()}&n=${tools}`));
    await listed(tabId, tools);
    for (const side of orders[i % orders.length]) {
      const out = await measure(side === 'calm' ? null : { tabId, names, args: {}, ends: ['ok', 'cannot check'], once: true });
      sides[side].push(out.ms);
      slowestOf[side].push(out.slowest);
      if (side !== 'calm') {
        loadTimes[side].push(out.loadMs);
        made[side] += out.loaded;
        refused[side] += out.endings['cannot check'] ?? 0;
      }
    }
  }
  const firstRatios = sides.first.map((f, i) => f / sides.calm[i]);
  const warmRatios = sides.warm.map((w, i) => w / sides.calm[i]);
  const firstRatio = median(firstRatios);
  figure({
    id: '13b', figure: "the same, while a page's 64 KB schemas are called for the first time (100 patterns compiled a call)",
    measured: ms(median(sides.first)),
    compared: `${ms(median(sides.calm))} calm; ${ms(median(sides.warm))} during the same tools' second calls (${median(warmRatios).toFixed(2)}×)`,
    ratio: `${firstRatio.toFixed(2)}× (95 % CI ${ciText(firstRatios, 2)}) / ≤ 2×`, met: firstRatio <= 2, judged: { value: firstRatio, unit: '×', target: 2 },
    data: {
      first: spread(sides.first), calm: spread(sides.calm), warm: spread(sides.warm),
      slowest: { calm: spread(slowestOf.calm), first: spread(slowestOf.first), warm: spread(slowestOf.warm) },
      firstCall: spread(loadTimes.first), secondCall: spread(loadTimes.warm),
      pairedRatio: { ...spread(firstRatios), ci95: medianCI(firstRatios) }, warmRatio: { ...spread(warmRatios), ci95: medianCI(warmRatios) }, runs,
    },
  });
  notes.push(`13b: each round the page publishes ${tools} tools of a 64 KB schema with a fresh salt; the load is another chat calling each once (a first call, as its chat sees it: ${ms(median(loadTimes.first))}; a second call ${ms(median(loadTimes.warm))}); a batch ends with its load (${made.first} first calls in all), its slowest call ${ms(median(slowestOf.first))} (calm ${ms(median(slowestOf.calm))}; medians over rounds). Refused as too costly to check: ${refused.first} first calls, ${refused.warm} of ${made.warm} second calls.`);
  log(`13: ${loadCalls} checks up to the budget, ${made.first} first calls of 64 KB schemas`);
  await page.close();
}
