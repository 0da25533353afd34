// Toolgate's browser benchmark (issue 4): what Toolgate costs pages and agents,
// each figure beside the floor or baseline it is judged by, measured in the same
// run and interleaved (A B A B …), because these machines are noisy.
//
//   node benches/browser.mjs           every figure, medians over many runs (a few minutes)
//   node benches/browser.mjs --json    the same, as one JSON object on stdout
//   node benches/browser.mjs --smoke   every figure once or a handful of times (CI: times
//                                      nothing; fails only if something errors, or calls
//                                      are lost or duplicated)
//   node benches/browser.mjs --only 1,4   only these figures (with any of the above;
//                                      figure 11 needs Chromium 156, as the tests do)
//   node benches/browser.mjs --compare last.json
//                                      also print each judged figure beside the same figure
//                                      in an earlier run's --json output (nothing is failed)
//
// Headless Chromium with the real unpacked extension (tests/support/browser.mjs);
// pages from benches/pages/ on *.localhost. Progress goes to stderr; the table
// (or JSON) to stdout. Nothing here changes Toolgate: the worker is only read
// through `self.toolgate` and CDP.
//
// Figures 1, 4, 10 (benches/churn.mjs) and 13 (benches/costly.mjs) are ratios: the median over A/B pairs of A ÷ B (for figure
// 1, over rounds, each side's block of loads by its median), with a 95 %
// confidence interval of that median (bootstrap): on these machines it says
// whether a run can tell the ratio from its target at all. Notes after the
// table say where the time goes (a Chromium trace, a CDP CPU profile, or the
// awaited browser calls timed alone).
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { EXTENSION, launch } from '../tests/support/browser.mjs';
import { serve } from '../tests/support/server.mjs';
import { SMOKE, JSON_OUT, wanted, COMPARE, RUNS, started, log, median, spread, medianCI, ciText, ms, figures, notes, failures, figure, callRequest, ranOk, tabIdOf, waitForCount } from './run.mjs';
import { churnFigure } from './churn.mjs';
import { costlyFigure } from './costly.mjs';
import { listingFigure } from './listing.mjs';
import { untrustedFigure } from './untrusted.mjs';
import { auditFigure } from './audit.mjs';
import { wakeFigure } from './wake.mjs';
import { watchingFigure } from './watching.mjs';
import { pageLoad } from './page-load.mjs';
import { registerCost, classified } from './registration.mjs';
import { agentCall, concurrency } from './agent-call.mjs';
import { wasmSize, memory } from './footprint.mjs';

// ---- The run ---------------------------------------------------------------------------------

// What was measured: the commit, whether the tree differs from it, and when
// the extension's files last changed (a build during the run mixes builds).
const BUILT = ['pkg/toolgate_bg.wasm', 'pkg/toolgate.js', 'pkg/worker.js', 'pkg/main-world.js'];
const builtAt = () => BUILT.map((f) => statSync(join(EXTENSION, f)).mtimeMs).join(',');
function revision() {
  try {
    const git = (...args) => execFileSync('git', ['-C', EXTENSION, ...args], { encoding: 'utf8' }).trim();
    return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--', 'src', 'extension', 'pkg').length ? ' + uncommitted changes' : ''}`;
  } catch {
    return 'unknown';
  }
}

function machine(chromium) {
  const cpus = os.cpus();
  return {
    revision: revision(),
    cpus: cpus.length, cpuModel: cpus[0]?.model ?? '', memoryGB: Math.round(os.totalmem() / 2 ** 30),
    platform: `${os.type()} ${os.release()} ${os.arch()}`, node: process.version, chromium,
    date: new Date().toISOString(), mode: SMOKE ? 'smoke' : 'full',
  };
}

function table(info) {
  const head = ['figure', 'measured', 'compared with', 'ratio/target', 'met?'];
  const rows = figures.map((f) => [`${f.id}. ${f.figure}`, f.measured, f.compared, f.ratio, f.met === null ? '—' : f.met ? 'yes' : 'NO']);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  const out = [
    `Toolgate browser benchmark (${info.mode}${SMOKE ? ': single runs, times not judged' : ''}) — ${info.date}`,
    `${info.cpus} × ${info.cpuModel}, ${info.memoryGB} GB; Chromium ${info.chromium}; Node ${info.node}; Toolgate ${info.revision}; ${info.durationSeconds} s`,
    '',
    line(head),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.map(line),
  ];
  if (notes.length) out.push('', 'Notes:', ...notes.map((n) => `- ${n}`));
  if (failures.length) out.push('', 'FAILURES:', ...failures.map((f) => `- ${f}`));
  return out.join('\n');
}

// Each judged figure of this run beside the same figure of an earlier run
// (`earlier`: its --json output): one line each, lower is better for every
// figure but 8 (calls/s).
function comparison(earlier) {
  const before = new Map((earlier.figures ?? []).map((f) => [f.id, f]));
  const lines = [`Compared with ${earlier.machine?.revision ?? 'an earlier run'} (${earlier.machine?.date ?? 'undated'}, ${earlier.machine?.mode ?? '?'} mode):`];
  for (const now of figures) {
    const then = before.get(now.id);
    if (!now.judged || !then?.judged || then.judged.unit !== now.judged.unit) continue;
    const change = (now.judged.value - then.judged.value) / then.judged.value;
    const better = now.id === '8' ? change > 0 : change < 0;
    const word = Math.abs(change) < 0.005 ? 'same' : better ? 'better' : 'worse';
    const value = (v) => `${Number(v.toPrecision(4))} ${now.judged.unit}`;
    lines.push(`- ${now.id}: ${value(then.judged.value)} → ${value(now.judged.value)} (${change >= 0 ? '+' : ''}${(100 * change).toFixed(1)}%, ${word})`);
  }
  return lines.join('\n');
}

async function main() {
  // Read first, so that a wrong path fails before minutes of measuring.
  let earlier = null;
  if (COMPARE !== null) {
    try {
      earlier = JSON.parse(readFileSync(COMPARE, 'utf8'));
    } catch (error) {
      process.stderr.write(`--compare: cannot read ${COMPARE} as an earlier run's --json output: ${error.message}\n`);
      process.exit(2);
    }
  }
  const builtBefore = builtAt();
  const server = await serve('benches/pages');
  let browser = null;
  let chromium = '';
  try {
    if (wanted('6')) wasmSize();
    log('launching Chromium with Toolgate');
    browser = await launch();
    chromium = browser.context.browser().version();
    const sw = await browser.worker();
    if (wanted('1')) {
      try {
        await pageLoad(server);
      } catch (error) {
        failures.push(`1 page load failed: ${error?.stack ?? error}`);
      }
    }

    // One tab with the agent tools, for the clock check and figures 4, 5 and 8.
    const agentUrl = server.url('bench.localhost', '/bench.html?agent');
    const agentPage = await browser.newPage(agentUrl);
    const agentTab = await tabIdOf(sw, agentUrl);
    await waitForCount(sw, agentTab, 3);

    // A figure that fails is reported, and the others still run.
    const step = async (what, body) => {
      if (!wanted(what.split(' ')[0])) return;
      log(what);
      try {
        await body();
      } catch (error) {
        failures.push(`${what} failed: ${error?.stack ?? error}`);
      }
    };
    await step('2 registerTool cost', () => registerCost(server, browser, sw));
    await step('3 registration → classified', () => classified(server, browser, sw, agentTab));
    await step('4 agent call vs ping', () => agentCall(browser, sw, agentTab));
    await step('12 a watched agent call', async () => watchingFigure({
      sw: await browser.worker(), tabId: agentTab, runs: RUNS, figure, notes, stats: { median, spread, medianCI, ciText, ms },
    }));
    await step('14 results read for untrusted content', async () => untrustedFigure({
      browser, server, sw: await browser.worker(), runs: RUNS, figure, notes, stats: { median, spread, medianCI, ciText, ms },
    }));
    await step('15 an audited agent call', async () => auditFigure({
      browser, sw: await browser.worker(), tabId: agentTab, runs: RUNS, smoke: SMOKE, figure, notes, stats: { median, spread, medianCI, ciText, ms },
    }));
    await step('8 concurrent calls', async () => concurrency(browser, await browser.worker(), agentPage, agentTab));
    await step('10 agent call while another page churns', async () => churnFigure({
      browser, server, sw: await browser.worker(), agentTab, runs: RUNS, smoke: SMOKE, figure, notes, log,
      stats: { median, spread, medianCI, ciText, ms },
    }));
    await step('13 agent call while a page\'s costly schema is checked', async () => costlyFigure({
      browser, server, sw: await browser.worker(), agentTab, runs: RUNS, smoke: SMOKE, figure, notes, log,
      stats: { median, spread, medianCI, ciText, ms },
    }));
    await browser.assertNoErrors();
    await browser.close();
    browser = null;
    await step('5 cold start', () => wakeFigure({
      server, runs: RUNS.cold, smoke: SMOKE, figure, notes, log, callRequest, ranOk, stats: { median, spread, ms },
    }));
    await step('11 the browser\'s WebMCP lists a page\'s tool', () => listingFigure({
      server, smoke: SMOKE, figure, notes, log, stats: { median, spread, ms },
    }));
    await step('7 memory', () => memory(server));
  } catch (error) {
    failures.push(`the benchmark failed: ${error?.stack ?? error}`);
  } finally {
    await browser?.close().catch(() => {});
    await server.close();
  }
  if (builtAt() !== builtBefore) {
    notes.push('0: pkg/ or the extension\'s scripts changed during this run (a build ran meanwhile): its figures mix two builds; run it again.');
  }
  const info = { ...machine(chromium), durationSeconds: Math.round((performance.now() - started) / 1000) };
  // Figures and notes in the order.
  figures.sort((a, b) => a.id.localeCompare(b.id, 'en', { numeric: true }));
  const order = (note) => Number(/^\d+/.exec(note)?.[0] ?? 99);
  notes.sort((a, b) => order(a) - order(b));
  if (JSON_OUT) {
    process.stdout.write(`${JSON.stringify({ machine: info, figures, notes, failures }, null, 2)}\n`);
    // stdout holds only the JSON: the comparison goes with the progress.
    if (earlier) process.stderr.write(`${comparison(earlier)}\n`);
  } else {
    process.stdout.write(`${table(info)}\n`);
    if (earlier) process.stdout.write(`\n${comparison(earlier)}\n`);
  }
  process.exitCode = failures.length ? 1 : 0;
}

await main();
