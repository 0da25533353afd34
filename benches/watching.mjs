// Figure 12: an agent's call of an allowed Read-only tool, watched for what
// it changes (docs/classes.md, "Hints held to their word"), against the same
// call not watched (figure 4's call). The two alternate, batch by batch, in
// one worker and tab: `self.toolgate.watchCalls` turns watching off for the
// unwatched side only. Judged on the median of the paired ratios.
export async function watchingFigure({ sw, tabId, runs, figure, notes, stats }) {
  const { median, spread, medianCI, ciText, ms } = stats;
  const out = await sw.evaluate(async ([tab, iterations, warmup, batch]) => {
    const chat = 'bench-watching';
    await self.toolgate.openChat(chat);
    let id = 0;
    // A worker's clock ticks in 100 µs: each sample is a batch of calls.
    const calls = async (watched) => {
      self.toolgate.watchCalls(watched);
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
    const on = [];
    const off = [];
    try {
      for (let i = 0; i < warmup + iterations; i++) {
        const order = i % 2 ? [true, false] : [false, true];
        const first = await calls(order[0]);
        const second = await calls(order[1]);
        if (i < warmup) continue;
        (order[0] ? on : off).push(first);
        (order[1] ? on : off).push(second);
      }
    } finally {
      self.toolgate.watchCalls(true);
    }
    return { on, off };
  }, [tabId, runs.calls, runs.warmup, runs.batch]);
  const ratios = out.on.map((value, i) => value / out.off[i]);
  const ratio = median(ratios);
  figure({
    id: '12', figure: 'agent call, allowed Read-only tool, watched for what it changes',
    measured: ms(median(out.on)), compared: `${ms(median(out.off))} the same call, not watched (figure 4's call)`,
    ratio: `${ratio.toFixed(2)}× (95 % CI ${ciText(ratios, 2)}) / ≤ 1.1×`, met: ratio <= 1.1, judged: { value: ratio, unit: '×', target: 1.1 },
    data: { watched: spread(out.on), unwatched: spread(out.off), pairedRatio: { ...spread(ratios), ci95: medianCI(ratios) } },
  });
  notes.push('12: a tab keeps its chrome.webRequest listener from its first report of tools (what it sends outside calls is its own traffic: docs/classes.md, "What a call is judged on"); watching turned off drops it, so the first watched call of each batch here adds it again, and the listener of requests in no tab with it.');
}
