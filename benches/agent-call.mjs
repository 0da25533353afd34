// Figures 4 and 8: an agent call against a ping of its tab, and many chats'
// concurrent calls (benches/README.md).
import { RUNS, median, spread, medianCI, ciText, spreads, ms, notes, failures, figure, workerCdp, profiled } from './run.mjs';

// ---- Figure 4: an agent call against the floor ------------------------------------------

export async function agentCall(browser, sw, tabId) {
  const out = await sw.evaluate(async ([tab, iterations, warmup, batch]) => {
    const chat = 'bench-calls';
    await self.toolgate.openChat(chat);
    // The gate's own cost: watching the call is figure 12's.
    self.toolgate.watchCalls(false);
    let id = 0;
    // A worker's clock ticks in 100 µs: each sample is a batch of `batch`
    // sequential round trips, divided by `batch`.
    const ping = async () => {
      const t = performance.now();
      for (let j = 0; j < batch; j++) {
        const answer = await chrome.tabs.sendMessage(tab, { type: 'ping' }, { frameId: 0 });
        if (answer?.type !== 'pong') throw new Error(`ping answered ${JSON.stringify(answer)}`);
      }
      return (performance.now() - t) / batch;
    };
    const call = async () => {
      const t = performance.now();
      for (let j = 0; j < batch; j++) {
        const reply = await self.toolgate.agent(chat, {
          jsonrpc: '2.0', id: ++id, method: 'tools/call',
          params: { name: 'browser_call_webmcp_tool', arguments: { tabId: tab, name: 'noop', arguments: {} } },
        });
        if (reply?.result?.isError !== false) throw new Error(`noop did not run: ${JSON.stringify(reply)}`);
      }
      return (performance.now() - t) / batch;
    };
    // What an agent call does besides the round trip, timed the same way:
    // the hop into the page's main world and back (the relay hands a call
    // to the shim, which answers at once that no such tool is registered),
    // and, for comparison, a session write (an agent call makes none when
    // it calls a Read-only tool and takes its reply).
    const part = async (fn) => {
      const t = performance.now();
      for (let j = 0; j < batch; j++) await fn();
      return (performance.now() - t) / batch;
    };
    const parts = { mainWorldHop: [], sessionWrite: [] };
    const { session } = await chrome.storage.session.get('session');
    const pings = [];
    const calls = [];
    for (let i = 0; i < warmup + iterations; i++) {
      const [a, b] = i % 2 ? [ping, call] : [call, ping];
      const first = await a();
      const second = await b();
      if (i < warmup) continue;
      (a === ping ? pings : calls).push(first);
      (b === ping ? pings : calls).push(second);
      if ((i - warmup) % 5 === 0) {
        parts.mainWorldHop.push(await part(async () => {
          const answer = await chrome.tabs.sendMessage(tab, { type: 'call', source: 'document', name: 'no such tool', arguments: {} }, { frameId: 0 });
          if (answer?.ok !== false) throw new Error(`the hop answered ${JSON.stringify(answer)}`);
        }));
        parts.sessionWrite.push(await part(() => chrome.storage.session.set({ 'bench:probe': session ?? '' })));
      }
    }
    await chrome.storage.session.remove('bench:probe');
    self.toolgate.watchCalls(true);
    return { pings, calls, parts, sessionBytes: JSON.stringify(session ?? null).length };
  }, [tabId, RUNS.calls, RUNS.warmup, RUNS.batch]);
  const ratios = out.calls.map((c, i) => c / out.pings[i]);
  const ratio = median(ratios);
  figure({
    id: '4', figure: 'agent call, allowed Read-only tool, trivial execute (inside the worker)',
    measured: ms(median(out.calls)), compared: `${ms(median(out.pings))} tabs.sendMessage ping`,
    ratio: `${ratio.toFixed(2)}× (95 % CI ${ciText(ratios, 2)}) / ≤ 1.5×`, met: ratio <= 1.5, judged: { value: ratio, unit: '×', target: 1.5 },
    data: { call: spread(out.calls), ping: spread(out.pings), pairedRatio: { ...spread(ratios), ci95: medianCI(ratios) },
      parts: spreads(out.parts) },
  });
  if (ratio > 1.5) {
    const p = Object.fromEntries(Object.entries(out.parts).map(([k, v]) => [k, median(v)]));
    const cdp = await workerCdp(browser);
    const calls = RUNS.profileCalls;
    const summary = await profiled(cdp, () => sw.evaluate(async ([tab, times]) => {
      for (let i = 0; i < times; i++) {
        await self.toolgate.agent('bench-calls', {
          jsonrpc: '2.0', id: `p${i}`, method: 'tools/call',
          params: { name: 'browser_call_webmcp_tool', arguments: { tabId: tab, name: 'noop', arguments: {} } },
        });
      }
    }, [tabId, calls]));
    // The ping's own worker CPU, profiled the same way: on a 2-core machine the
    // worker's CPU time competes with the browser and renderer threads that
    // carry the round trip, so it counts wherever in the call it is spent.
    const pingSummary = await profiled(cdp, () => sw.evaluate(async ([tab, times]) => {
      for (let i = 0; i < times; i++) await chrome.tabs.sendMessage(tab, { type: 'ping' }, { frameId: 0 });
    }, [tabId, calls]));
    await cdp.detach();
    notes.push(`4: one agent call = the ping's round trip + the hop into the page's main world, where the tool lives (relay → shim → relay: ${ms(p.mainWorldHop - median(out.pings))} more than the ping, measured as a call of an unknown tool) + the worker's own work: the Wasm core (decision and reply, JSON in and out) and the shell's promises. Worker profile over ${calls} calls: ${ms(summary.busyMs / calls)} of worker CPU per call (a ping: ${ms(pingSummary.busyMs / calls)}), ${ms(summary.wasmMs / calls)} of it in the Wasm core; top self time: ${summary.top.join(', ')}. No storage is touched: a Read-only call whose agent takes its reply changes nothing that must be stored (a session write, for comparison, takes ${ms(p.sessionWrite)} and holds up the browser's UI thread that the page's message goes through).`);
  }
}


// ---- Figure 8: many chats, many concurrent calls -------------------------------------------

export async function concurrency(browser, sw, page, tabId) {
  const rates = [];
  let ok = true;
  for (let round = 0; round < RUNS.rounds; round++) {
    await page.evaluate(() => { window.executed.clear(); window.executions = 0; });
    const out = await sw.evaluate(async ([tab, chats, perChat, round]) => {
      const names = Array.from({ length: chats }, (_, c) => `bench-many-${round}-${c}`);
      for (const chat of names) await self.toolgate.openChat(chat);
      const t = performance.now();
      const replies = await Promise.all(names.flatMap((chat) => Array.from({ length: perChat }, (_, n) => self.toolgate.agent(chat, {
        jsonrpc: '2.0', id: n, method: 'tools/call',
        params: { name: 'browser_call_webmcp_tool', arguments: { tabId: tab, name: 'count', arguments: { chat, n } } },
      }).then((reply) => ({ chat, n, reply }), (error) => ({ chat, n, error: String(error) })))));
      const elapsed = performance.now() - t;
      const wrong = replies.filter(({ chat, n, reply, error }) => error || reply?.id !== n
        || reply?.result?.isError !== false
        || JSON.stringify(reply.result.structuredContent ?? JSON.parse(reply.result.content[0].text)) !== JSON.stringify({ chat, n }));
      return { elapsed, replies: replies.length, wrong: wrong.slice(0, 3).map((w) => JSON.stringify(w).slice(0, 300)), wrongCount: wrong.length };
    }, [tabId, RUNS.chats, RUNS.callsPerChat, round]);
    const executed = await page.evaluate(() => ({ total: window.executions, keys: [...window.executed.entries()] }));
    const want = RUNS.chats * RUNS.callsPerChat;
    const duplicated = executed.keys.filter(([, times]) => times > 1).length;
    const missing = want - executed.keys.length;
    if (out.wrongCount || duplicated || missing || executed.total !== want) {
      ok = false;
      failures.push(`8: round ${round}: ${out.wrongCount} wrong replies (${out.wrong.join(' | ')}), ${missing} calls never executed, ${duplicated} executed twice, ${executed.total} executions for ${want} calls`);
    }
    rates.push(want / (out.elapsed / 1000));
  }
  figure({
    id: '8', figure: `${RUNS.chats} chats × ${RUNS.callsPerChat} concurrent calls, Read-only tool`,
    measured: `${median(rates).toFixed(0)} calls/s`, compared: '—',
    ratio: 'all complete, none lost or duplicated', met: ok, judged: { value: median(rates), unit: 'calls/s', target: null },
    data: { callsPerSecond: spread(rates), rounds: RUNS.rounds, exact: ok },
  });
}
