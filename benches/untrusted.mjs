// Figure 14: what reading results for untrusted content costs an agent's call
// (docs/cards.md, "After untrusted content"; issue 38, "Measure it"). Figure
// 4's call, an allowed Read-only tool in a localhost tab, called from inside
// the worker: (a) `noop`, whose result is "ok"; (b) `read_mail`, whose result
// is 100 KB of honest mail (benches/pages/untrusted.js), which the core reads
// whole, as JSON, for phrases addressed to the model and hidden text
// (`page::untrusted`), and finds nothing. Each against the same call with the
// guard off (`self.toolgate.guardUntrusted(false)`, which exists for this
// figure only: the call as it was before the guard), batch by batch in one
// worker and tab, in alternating order. Judged on the median of the paired
// ratios, target ≤ 1.1×, for (a); for (b) on the median of the paired
// differences, target ≤ 5 ms more. A tabs.sendMessage ping is timed beside them,
// as figure 4's floor.
import { tabIdOf, waitForCount } from './run.mjs';

export async function untrustedFigure({ browser, server, sw, runs, figure, notes, stats }) {
  const { median, spread, medianCI, ciText, ms } = stats;
  const url = server.url('untrusted.localhost', '/untrusted.html');
  const page = await browser.newPage(url);
  const tabId = await tabIdOf(sw, url);
  await waitForCount(sw, tabId, 2);
  const mailBytes = await page.evaluate(() => window.mailBytes);
  const out = await sw.evaluate(async ([tab, iterations, warmup, batch]) => {
    const chat = 'bench-untrusted';
    await self.toolgate.openChat(chat);
    // The guard's cost alone: watching the call is figure 12's.
    self.toolgate.watchCalls(false);
    let id = 0;
    let bytes = 0;
    // A worker's clock ticks in 100 µs: each sample is a batch of calls.
    const calls = async (name, guarded) => {
      await self.toolgate.guardUntrusted(guarded);
      const t = performance.now();
      for (let j = 0; j < batch; j++) {
        const reply = await self.toolgate.agent(chat, {
          jsonrpc: '2.0', id: ++id, method: 'tools/call',
          params: { name: 'browser_call_webmcp_tool', arguments: { tabId: tab, name, arguments: {} } },
        });
        if (reply?.result?.isError !== false) throw new Error(`${name} did not run: ${JSON.stringify(reply).slice(0, 300)}`);
        const meta = reply.result._meta?.toolgate ?? {};
        if (meta.result_untrusted || meta.chat_read_untrusted) {
          throw new Error(`${name}'s honest result was held for untrusted content: ${JSON.stringify(meta).slice(0, 300)}`);
        }
        bytes = Math.max(bytes, reply.result.content?.[0]?.text?.length ?? 0);
      }
      return (performance.now() - t) / batch;
    };
    const ping = async () => {
      const t = performance.now();
      for (let j = 0; j < batch; j++) {
        const answer = await chrome.tabs.sendMessage(tab, { type: 'ping' }, { frameId: 0 });
        if (answer?.type !== 'pong') throw new Error(`ping answered ${JSON.stringify(answer)}`);
      }
      return (performance.now() - t) / batch;
    };
    const times = { noop: { on: [], off: [] }, read_mail: { on: [], off: [] } };
    const pings = [];
    try {
      for (let i = 0; i < warmup + iterations; i++) {
        const order = i % 2 ? [true, false] : [false, true];
        for (const name of ['noop', 'read_mail']) {
          const first = await calls(name, order[0]);
          const second = await calls(name, order[1]);
          if (i < warmup) continue;
          times[name][order[0] ? 'on' : 'off'].push(first);
          times[name][order[1] ? 'on' : 'off'].push(second);
        }
        const p = await ping();
        if (i >= warmup) pings.push(p);
      }
    } finally {
      await self.toolgate.guardUntrusted(true);
      self.toolgate.watchCalls(true);
    }
    return { times, pings, bytes };
  }, [tabId, runs.calls, runs.warmup, runs.batch]);
  const ping = median(out.pings);
  // 14a is judged as a ratio (≤ 1.1×); 14b, a 100 KB result, as the time
  // the reading adds (≤ 5 ms: issue 57's bound once the learned detector
  // reads every result), on the median of the paired differences.
  const judge = (id, name, what, moreMs) => {
    const { on, off } = out.times[name];
    const ratios = on.map((value, i) => value / off[i]);
    const diffs = on.map((value, i) => value - off[i]);
    const ratio = median(ratios);
    const extra = median(diffs);
    const verdict = moreMs === undefined
      ? { ratio: `${ratio.toFixed(2)}× (95 % CI ${ciText(ratios, 2)}) / ≤ 1.1×`, met: ratio <= 1.1, judged: { value: ratio, unit: '×', target: 1.1 } }
      : { ratio: `+${ms(extra)} (95 % CI ${ciText(diffs, 2)} ms; ${ratio.toFixed(2)}×) / ≤ ${moreMs} ms more`, met: extra <= moreMs, judged: { value: extra, unit: 'ms', target: moreMs } };
    figure({
      id, figure: `agent call, allowed Read-only tool, ${what}, its result read for untrusted content`,
      measured: ms(median(on)),
      compared: `${ms(median(off))} the same call, not read (the guard off); ${ms(ping)} tabs.sendMessage ping`,
      ...verdict,
      data: { guarded: spread(on), unguarded: spread(off), ping: spread(out.pings), pairedRatio: { ...spread(ratios), ci95: medianCI(ratios) }, pairedDifference: { ...spread(diffs), ci95: medianCI(diffs) } },
    });
    return extra;
  };
  judge('14a', 'noop', 'trivial execute (figure 4\'s call)');
  const extra = judge('14b', 'read_mail', `a ${Math.round(mailBytes / 1000)} KB result of honest mail`, 5);
  notes.push(`14: the guard reads each result in the Wasm core: a first look over its JSON text clears most honest results in one pass; one it cannot clear is read string by string (hidden characters, then the 12 phrases on the text normalised), and every result the phrases clear is read by the learned detector (docs/detector.md); on the ${Math.round(mailBytes / 1000)} KB result that is ${ms(extra)} a call here (median paired difference; the core's native microbenchmark, untrusted/honest result, is in benches/JOURNAL.md). Nothing is stored for an honest result, and a result over the reply's cap is not read (the agent never gets it).`);
  await page.close();
}
