// Figure 15: what the audit costs an agent's call (docs/rules.md, "Every
// site, side by side, and the audit"; issue 54). Figure 4's call, an allowed
// Read-only `noop` in a localhost tab, called from inside the worker, batch
// by batch, with the audit on and off (`self.toolgate.auditCalls(false)`,
// which exists for this figure only), in alternating order. A batch is what
// one moment of the audit's gathering holds of calls made back to back
// (`WINDOW` calls of about 1.7 ms in 250 ms); with the audit on, a sample is
// the batch and the append of its entries (`flushAudit`): all it costs the
// worker, the commit waited for. (a) the bytes the audit hands storage per call
// (each entry's text, its hashes and number, and each log's state: target
// ≤ 2 KB); (b) the call's time on against off (the median of the paired
// ratios: target ≤ 1.05×).
const WINDOW = 150;

export async function auditFigure({ browser, sw, tabId, runs, smoke, figure, notes, stats }) {
  const { median, spread, medianCI, ciText, ms } = stats;
  const batch = smoke ? runs.batch : WINDOW;
  const iterations = smoke ? runs.calls : 30;
  const out = await sw.evaluate(async ([tab, iterations, warmup, batch]) => {
    const chat = 'bench-audit';
    await self.toolgate.openChat(chat);
    // The audit's cost alone: watching the call is figure 12's.
    self.toolgate.watchCalls(false);
    let id = 0;
    const calls = async (on) => {
      self.toolgate.auditCalls(on);
      const t = performance.now();
      for (let j = 0; j < batch; j++) {
        const reply = await self.toolgate.agent(chat, {
          jsonrpc: '2.0', id: `audit-${++id}`, method: 'tools/call',
          params: { name: 'browser_call_webmcp_tool', arguments: { tabId: tab, name: 'noop', arguments: {} } },
        });
        if (reply?.result?.isError !== false) throw new Error(`noop did not run: ${JSON.stringify(reply).slice(0, 300)}`);
      }
      if (on) await self.toolgate.flushAudit();
      return (performance.now() - t) / batch;
    };
    const times = { on: [], off: [] };
    await self.toolgate.flushAudit();
    const before = self.toolgate.auditStored().bytes;
    let audited = 0;
    try {
      for (let i = 0; i < warmup + iterations; i++) {
        const order = i % 2 ? [true, false] : [false, true];
        const first = await calls(order[0]);
        const second = await calls(order[1]);
        audited += batch;
        if (i < warmup) continue;
        times[order[0] ? 'on' : 'off'].push(first);
        times[order[1] ? 'on' : 'off'].push(second);
      }
    } finally {
      self.toolgate.auditCalls(true);
      self.toolgate.watchCalls(true);
    }
    await self.toolgate.flushAudit();
    return { times, bytesPerCall: (self.toolgate.auditStored().bytes - before) / audited };
  }, [tabId, iterations, runs.warmup, batch]);
  figure({
    id: '15a', figure: 'storage the audit is handed per agent call',
    measured: `${Math.round(out.bytesPerCall)} B`,
    compared: 'the entry as JSON, its two SHA-256 hashes and number, and its share of the log\'s state',
    ratio: `${Math.round(out.bytesPerCall)} B / ≤ 2048 B`, met: out.bytesPerCall <= 2048,
    judged: { value: out.bytesPerCall, unit: 'B', target: 2048 },
    data: { bytesPerCall: out.bytesPerCall },
  });
  const { on, off } = out.times;
  const ratios = on.map((value, i) => value / off[i]);
  const ratio = median(ratios);
  figure({
    id: '15b', figure: 'agent call, allowed Read-only tool, audited (its entry appended)',
    measured: ms(median(on)),
    compared: `${ms(median(off))} the same call, not audited`,
    ratio: `${ratio.toFixed(2)}× (95 % CI ${ciText(ratios, 2)}) / ≤ 1.05×`, met: ratio <= 1.05,
    judged: { value: ratio, unit: '×', target: 1.05 },
    data: { audited: spread(on), unaudited: spread(off), pairedRatio: { ...spread(ratios), ci95: medianCI(ratios) } },
  });
  // (c) The settings page, opened on the full agents' log this figure left
  // (its 1,000 newest calls at least), to the audit shown: rows and chain.
  const kept = (await sw.evaluate(() => self.toolgate.auditChain())).agents.kept;
  const url = await sw.evaluate(() => chrome.runtime.getURL('extension/ui/options.html'));
  const shown = [];
  for (let i = 0; i < (smoke ? 1 : 10); i++) {
    const settings = await browser.newPage(url);
    await settings.waitForFunction((n) => document.querySelectorAll('#audit-rows tr').length >= n
      && /^The audit is whole/.test(document.getElementById('audit-chain').textContent)
      && performance.getEntriesByName('audit shown').length > 0, Math.min(kept, 1000));
    shown.push(await settings.evaluate(() => performance.getEntriesByName('audit shown')[0].startTime));
    await settings.close();
  }
  const time = median(shown);
  figure({
    id: '15c', figure: `the settings page opened to its audit shown, ${kept} agents' entries and the chain checked`,
    measured: ms(time), compared: 'from the page\'s start', ratio: `${ms(time)} / ≤ 200 ms`, met: time <= 200,
    judged: { value: time, unit: 'ms', target: 200 },
    data: { shown: spread(shown), kept },
  });
  notes.push('15: the audit gathers a moment\'s entries and appends them in one IndexedDB transaction, each linked to the one before by the core\'s SHA-256; an audited sample includes the append of its batch.');
}
