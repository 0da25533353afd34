// The service worker stopped at every step of both cards and of a call
// (ARCHITECTURE.md, "a request waiting on a person lives in the stored
// Session"): before and after each storage write an agent's call makes, from
// its first request through the site question, the per-call confirmation and
// the tool's run. At each step the worker is stopped, the agent sends its
// request again (as agents do when they lose their wait), and the person goes
// on answering the cards in front of them, each once. Whatever the step: the
// person never answers a card twice, the tool runs at most once and never
// before it was allowed, and the agent gets its reply.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { entries, launch } from '../support/browser.mjs';
import { serve } from '../support/server.mjs';
import { cardKind, cardWatcher, choose } from '../support/cards.mjs';

const REAL_HOSTS = ['--host-resolver-rules=MAP *.test 127.0.0.1'];
const ANSWERS = { site: 'Allow read-only tools on this website', call: 'Allow this call only' };

describe('the worker stopped at every step', () => {
  let server;
  let browser;
  let cards;
  let run = 0;

  before(async () => {
    server = await serve('tests/pages/answers');
    browser = await launch({ args: REAL_HOSTS });
    cards = cardWatcher(browser.context);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  // Counts the worker's storage writes from now on; at write `at` (counted
  // from 0), on `side` ('before' or 'after' the write), it stops there for
  // good and says so (`self.stoppedAt`). With no `at`, it only counts.
  const interceptWrites = (worker, at = -1, side = 'before') => worker.evaluate(([stopAt, where]) => {
    const area = chrome.storage.session;
    const real = { set: area.set.bind(area), remove: area.remove.bind(area) };
    self.writes = [];
    self.stoppedAt = null;
    const never = () => new Promise(() => {});
    for (const method of ['set', 'remove']) {
      area[method] = async (items) => {
        const index = self.writes.length;
        self.writes.push(`${method} ${typeof items === 'string' ? items : Object.keys(items ?? {}).join(',')}`);
        if (index === stopAt && where === 'before') { self.stoppedAt = index; await never(); }
        const result = await real[method](items);
        if (index === stopAt && where === 'after') { self.stoppedAt = index; await never(); }
        return result;
      };
    }
  }, [at, side]);

  // One agent call of add_note, walked through both cards, the worker
  // stopped where `intercept` says; resolves with what happened.
  async function walk(intercept) {
    const id = ++run;
    const chat = `stops-${id}`;
    const page = await browser.newPage(server.url('stops.test', `/?${id}`));
    await browser.waitForPalette(page, (p) => entries(p).length === 11, 'the page\'s tools');
    const tabId = await browser.tabId(page);
    let worker = await browser.worker();
    await worker.evaluate((c) => self.toolgate.openChat(c, { label: c }), chat);
    await intercept(worker);
    const request = { jsonrpc: '2.0', id, method: 'tools/call',
      params: { name: 'browser_call_webmcp_tool', arguments: { tabId, name: 'add_note', arguments: { title: `t${id}` } } } };
    const answered = { site: 0, call: 0 };
    const callsBefore = {};
    let reply = null;
    let stopped = false;
    const send = (sw) => sw.evaluate(([c, r]) => self.toolgate.agent(c, r), [chat, request])
      .then((r) => { reply = r; }, () => {}); // A stopped worker takes its evaluation with it.
    send(worker);
    for (const deadline = Date.now() + 30_000; !reply;) {
      assert.ok(Date.now() < deadline, `no reply (answered ${JSON.stringify(answered)}, stopped ${stopped})`);
      if (!stopped && await worker.evaluate(() => self.stoppedAt !== null).catch(() => false)) {
        stopped = true;
        await browser.stopWorker();
        worker = await browser.worker();
        send(worker);
      }
      if (cards.pending()) {
        const card = await cards.next();
        const kind = await cardKind(card);
        callsBefore[kind] = await page.evaluate(() => window.calls.add_note ?? 0);
        answered[kind] += 1;
        // The click's answer may be cut off by the stop: choose resolves
        // once the card closes, which it does when its answer was taken.
        const choosing = choose(card, ANSWERS[kind]);
        await Promise.race([choosing, new Promise((done) => setTimeout(done, 50))]);
        choosing.catch(() => {});
      }
      await new Promise((done) => setTimeout(done, 25));
    }
    const calls = await page.evaluate(() => window.calls.add_note ?? 0);
    const writes = await (await browser.worker()).evaluate(() => self.writes ?? []);
    await page.close();
    return { reply, answered, calls, callsBefore, stopped, writes };
  }

  test('the writes one call makes, counted', async () => {
    const seen = await walk((worker) => interceptWrites(worker));
    assert.equal(seen.reply.result?.content?.[0]?.text, `Added "t${run}".`);
    assert.deepEqual(seen.answered, { site: 1, call: 1 });
    assert.ok(seen.writes.length >= 3, `the call writes its session at least at each card and before it runs: ${seen.writes}`);
    if (process.env.TOOLGATE_DEBUG) console.error('writes', seen.writes);
    steps.push(...seen.writes.map((_, at) => at));
  });

  const steps = [];
  for (const side of ['before', 'after']) {
    test(`stopped ${side} each write: nothing is answered twice, run twice or run unasked`, async () => {
      assert.ok(steps.length > 0, 'the writes were counted first');
      for (const at of steps) {
        const seen = await walk((worker) => interceptWrites(worker, at, side));
        const where = `stopped ${side} write ${at}`;
        if (process.env.TOOLGATE_DEBUG) console.error(where, JSON.stringify(seen));
        assert.ok(seen.stopped, `${where}: the worker stopped`);
        assert.ok(seen.answered.site <= 1 && seen.answered.call <= 1, `${where}: each card answered once: ${JSON.stringify(seen.answered)}`);
        assert.ok(seen.calls <= 1, `${where}: add_note ran ${seen.calls} times`);
        assert.equal(seen.callsBefore.call ?? 0, 0, `${where}: add_note ran before its call card was answered`);
        const text = seen.reply.result?.content?.[0]?.text ?? seen.reply.error?.message;
        if (seen.calls === 1) {
          assert.ok(text === `Added "t${run}".` || /interrupted/.test(text), `${where}: the reply: ${text}`);
        } else {
          assert.match(text, /interrupted|not run|no longer/, `${where}: the reply says it did not run: ${text}`);
        }
      }
      await browser.assertNoErrors();
    });
  }
});
