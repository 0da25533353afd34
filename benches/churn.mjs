// Figure 10: another tab's agent call while one page churns, against the same
// call with no churn (issue 13, "One page starves every agent"). The churning
// page (benches/pages/churn.html) publishes 600 tools of 3 KB (as many as fit
// one tab's 2 MB cap: docs/classes.md, "What Toolgate keeps") and registers
// one of them again in every task. The call is figure 4's: an allowed
// Read-only tool with a trivial execute, in the agent tab, timed inside the
// worker. Interleaved: each round is a batch of calls with no churn, one while
// the page churns and one while it runs the same loop registering nothing
// (the floor: the busy renderer's own cost), in rotating order; the figure is
// the median of the rounds' ratios. Target: at most 2×.
import { tabIdOf, waitForCount } from './run.mjs';

export async function churnFigure({ browser, server, sw, agentTab, runs, smoke, figure, notes, stats, log }) {
  const { median, spread, medianCI, ciText, ms } = stats;
  const url = server.url('churn.localhost', '/churn.html');
  const page = await browser.newPage(url);
  const tabId = await tabIdOf(sw, url);
  await waitForCount(sw, tabId, 600, 60_000);
  const pairs = smoke ? 2 : 15;
  const batch = smoke ? 3 : 20;
  const calls = () => sw.evaluate(async ([tab, n]) => {
    const chat = 'bench-churn';
    await self.toolgate.openChat(chat);
    self.benchChurnId ??= 0;
    const times = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      const reply = await self.toolgate.agent(chat, {
        jsonrpc: '2.0', id: `churn-${++self.benchChurnId}`, method: 'tools/call',
        params: { name: 'browser_call_webmcp_tool', arguments: { tabId: tab, name: 'noop', arguments: {} } },
      });
      if (reply?.result?.isError !== false) throw new Error(`noop did not run: ${JSON.stringify(reply)}`);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)];
  }, [agentTab, batch]);
  const churning = async (floor = false) => {
    await page.evaluate((f) => window.churn(f), floor);
    // Under way: reports made and answered before the calls start.
    const from = await page.evaluate(() => window.reRegistered);
    await page.waitForFunction((n) => window.reRegistered > n + 50, from);
    const ms = await calls();
    const made = await page.evaluate(() => { window.stop(); return window.reRegistered; });
    return { ms, made };
  };
  // Each round: calls with no churn, while the page churns, and while it
  // runs the same loop registering nothing (the floor), in rotating order.
  const calm = [];
  const churned = [];
  const floors = [];
  let reports = 0;
  const kinds = {
    calm: async () => calm.push(await calls()),
    churn: async () => {
      const { ms: c, made } = await churning();
      churned.push(c);
      reports = made;
    },
    floor: async () => floors.push((await churning(true)).ms),
  };
  const orders = [['calm', 'churn', 'floor'], ['churn', 'floor', 'calm'], ['floor', 'calm', 'churn']];
  for (let i = 0; i < pairs; i++) {
    for (const kind of orders[i % orders.length]) await kinds[kind]();
  }
  log(`10: ${reports} re-registrations made by the churning page`);
  const ratios = churned.map((c, i) => c / calm[i]);
  const floorRatios = floors.map((f, i) => f / calm[i]);
  const overFloor = churned.map((c, i) => c / floors[i]);
  const ratio = median(ratios);
  figure({
    id: '10', figure: "another tab's agent call while one page re-registers a tool in every task (600 tools of 3 KB)",
    measured: ms(median(churned)), compared: `${ms(median(calm))} with no churn; ${ms(median(floors))} while the page runs the same loop registering nothing (the floor, ${median(floorRatios).toFixed(2)}×)`,
    ratio: `${ratio.toFixed(2)}× (95 % CI ${ciText(ratios, 2)}; ${median(overFloor).toFixed(2)}× the floor) / ≤ 2×`, met: ratio <= 2, judged: { value: ratio, unit: '×', target: 2 },
    data: {
      churn: spread(churned), calm: spread(calm), floor: spread(floors),
      pairedRatio: { ...spread(ratios), ci95: medianCI(ratios) },
      floorRatio: { ...spread(floorRatios), ci95: medianCI(floorRatios) },
      overFloor: { ...spread(overFloor), ci95: medianCI(overFloor) },
      runs,
    },
  });
  notes.push(`10: each sample is the median of ${batch} sequential calls; the churning page's reports are applied in its tab's own queue, and those that come while its last write is under way are stored in one write.`);
  await page.close();
}
