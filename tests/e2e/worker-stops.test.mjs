// The service worker stopped at every step of both cards and of a call
// (ARCHITECTURE.md, "a request waiting on a person lives in the stored
// Session"): before and after each write of the agent session that one
// agent's call makes, from its first request through the site question, the
// per-call confirmation and the tool's run. At each step the worker freezes
// right there (a `debugger` statement, with a debugger attached: nothing after
// it runs, what it sent before it has gone) and is stopped; the agent, which
// lost its wait, sends the same request again (same chat, same id), and the
// person goes on answering the cards in front of them. Whatever the step: no
// card is answered twice, every card answered closes, the tool runs at most
// once and never before its call card was answered, the agent gets its reply,
// and the site's answer holds for the chat's next call.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from '../support/fixture.mjs';
import { cardKind, choose, isCard } from '../support/cards.mjs';
import { entries } from '../support/browser.mjs';

const ANSWERS = { site: 'Allow read-only tools on this website', call: 'Allow this call only' };
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const debug = (...what) => { if (process.env.TOOLGATE_DEBUG) console.error(...what); };

// From now on, counts the worker's writes of the agent session (the pages'
// own tool keys pass uncounted); at write `at` (from 0), `side` ('before' or
// 'after' it is issued), it runs `debugger`. With no `at`, it only counts.
// The wrapper is put on once per worker; each call starts the count afresh.
const planWrites = (worker, at = -1, side = 'before') => worker.evaluate(async ([stopAt, where]) => {
  // Calls are not watched here (docs/classes.md, "Hints held to their
  // word"): stopping a worker frozen in the debugger after it has held a
  // chrome.webRequest listener crashes the extension's renderer, on 148 and
  // 156 alike (measured: this test's "after write 4" step, whatever the
  // listener's filter; a worker stopped mid-call without a debugger does not).
  // What this test guards is the session's writes, which watching leaves as
  // they are; conduct.test.mjs guards the watching.
  self.toolgate.watchCalls(false);
  // A save the last change scheduled (setTimeout 0, session.js) goes first.
  await new Promise((done) => setTimeout(done, 0));
  const area = chrome.storage.session;
  // What a write of the session leaves pending, for the steps' names: ': site
  // card, no window', ': call running'. Read from the record's JSON text
  // (src/decisions/agent.rs, `Session`); nothing when it cannot be read.
  const what = (items) => {
    try {
      const session = JSON.parse(items.session);
      const cards = Object.values(session.pending ?? {})
        .map((p) => `${String(p.card).toLowerCase()} card, ${p.window_id == null ? 'no window' : 'its window'}`);
      const running = Object.keys(session.running ?? {}).map(() => 'call running');
      return `: ${[...cards, ...running].join('; ') || 'nothing pending'}`;
    } catch {
      return '';
    }
  };
  if (!self.testWrites) {
    self.testWrites = {};
    const real = { set: area.set.bind(area), remove: area.remove.bind(area) };
    for (const method of ['set', 'remove']) {
      area[method] = (items, ...rest) => {
        const keys = typeof items === 'string' ? [items] : Array.isArray(items) ? items : Object.keys(items ?? {});
        const plan = self.testWrites;
        const index = keys.includes('session') ? plan.seen.push(`${method} session${what(items)}`) - 1 : -1;
        if (index === plan.at && plan.side === 'before') debugger;
        const writing = real[method](items, ...rest);
        if (index === plan.at && plan.side === 'after') debugger;
        return writing;
      };
    }
  }
  Object.assign(self.testWrites, { seen: [], at: stopAt, side: where });
}, [at, side]);

describe('the worker stopped at every step', () => {
  const h = harness({ pages: 'tests/pages/answers', chatPrefix: 'stops' });
  let run = 0;

  // One agent call of add_note, walked through both cards, the worker
  // stopped at session write `at`, `side` of it (with no `at`, never);
  // resolves with what happened.
  async function walk(at = -1, side = 'before') {
    const n = ++run;
    const t0 = Date.now();
    const mark = (what) => debug(`  [${n}] +${Date.now() - t0} ms ${what}`);
    const { page, tabId } = await h.open('stops.test', `/?${n}`, 11);
    const frozen = at >= 0 ? await h.browser.debugWorker() : null;
    try {
      const chat = await h.chat();
      const request = h.request(tabId, 'add_note', { title: `t${n}` });
      await planWrites(await h.browser.worker(), at, side);
      mark('page, chat and plan');
      const callsOf = () => page.evaluate(() => window.calls.add_note ?? 0);
      const answered = { site: 0, call: 0 };
      const callsWhenAnswered = {};
      const closing = [];
      let reply = null;
      let stopped = false;
      let failed = null;
      // The agent's wait on the worker it sent to. A stopped worker takes its
      // evaluation with it: that agent lost its wait. (Stopping a worker
      // frozen in the debugger lets it run on for a moment, every extension
      // API failing, "Extension context invalidated"; what it answers then
      // reaches only a test's evaluation, never an agent, and counts for
      // nothing.)
      let waits = 0;
      const send = (sw) => {
        const from = ++waits;
        sw.evaluate(([c, r]) => self.toolgate.agent(c, r), [chat, request]).then((r) => {
          if (from !== waits) return;
          reply = r;
          mark(`reply: ${h.text(r)}`);
        }, () => {});
      };
      send(await h.browser.worker());
      // The worker frozen: stopped, and the agent, which lost its wait unless
      // its reply came first, sends its request again (waking a new worker).
      frozen?.paused.then(async () => {
        waits += 1;
        mark('frozen');
        await h.browser.stopWorker();
        mark('stopped');
        const sw = await h.browser.startWorker();
        await sw.evaluate(() => self.toolgate.watchCalls(false));
        mark('started');
        stopped = true;
        if (!reply) send(sw);
      }).catch((error) => { failed = error; });
      // The person answers each card as it comes, once.
      const answer = async (card) => {
        const kind = await cardKind(card);
        mark(`${kind} card ready`);
        answered[kind] += 1;
        callsWhenAnswered[kind] = await callsOf();
        // choose resolves once the card closes, which it does when its answer
        // was taken, even by a worker that stopped before it could say so.
        await choose(card, ANSWERS[kind]);
        mark(`${kind} card closed`);
      };
      for (const deadline = Date.now() + 30_000; !(reply && (stopped || !frozen));) {
        if (failed) throw failed;
        assert.ok(Date.now() < deadline, reply ? 'the worker never came to that write'
          : `no reply (answered ${JSON.stringify(answered)}, stopped ${stopped})`);
        if (h.cards.pending()) closing.push(h.cards.next().then(answer));
        await sleep(25);
      }
      await Promise.race([Promise.all(closing), sleep(10_000).then(() => { throw new Error('a card answered did not close'); })]);
      const calls = await callsOf();
      const stillOpen = h.cards.pending();
      const writes = frozen ? null : await (await h.browser.worker()).evaluate(() => self.testWrites.seen);
      // The site's answer holds after the stop: a Read-only call runs without a card.
      const next = await h.start(chat, h.request(tabId, 'list_notes'));
      if (next.card) await choose(next.card, 'Deny this call');
      mark('done');
      return { n, reply, answered, calls, callsWhenAnswered, stopped, stillOpen, nextAsked: Boolean(next.card), writes };
    } finally {
      await frozen?.detach();
      await page.close();
      // A step that failed leaves no card behind for the next one.
      for (const p of h.browser.context.pages()) if (isCard(p)) await p.close();
    }
  }

  // A page's report of its tools that reaches a worker which stops before
  // it stores them is sent again by the frame's relay to the next worker
  // (ARCHITECTURE.md, "The shim–relay channel"), not lost: the page would
  // keep a tool no agent could ever be offered.
  test('a report the worker stopped under is sent again to the next worker', async () => {
    const { page } = await h.open('stops.test', '/?report', 11);
    // The worker holds its answer to the report as it stores the new tool
    // (the write never settles), and is stopped meanwhile.
    const sw = await h.browser.worker();
    await sw.evaluate(() => {
      let held;
      self.reportHeld = new Promise((done) => { held = done; });
      const area = chrome.storage.session;
      const set = area.set.bind(area);
      area.set = (items, ...rest) => {
        const texts = Object.entries(items ?? {}).filter(([key]) => key.startsWith('tool:')).map(([, text]) => String(text));
        if (!texts.some((text) => text.includes('late_tool'))) return set(items, ...rest);
        held();
        return new Promise(() => {});
      };
    });
    await page.evaluate(() => document.modelContext.registerTool({
      name: 'late_tool',
      description: 'Registered while the worker stops.',
      annotations: { readOnlyHint: true },
      execute: () => 'late',
    }));
    await sw.evaluate(() => self.reportHeld);
    await h.browser.stopWorker();
    await h.browser.startWorker();
    await h.browser.waitForPalette(page, (p) => entries(p).some((e) => e.name === 'late_tool'), 'late_tool, reported again');
    await page.close();
  });

  const steps = [];
  test('one call through both cards, its session writes counted', async () => {
    const seen = await walk();
    debug('writes', seen.writes);
    assert.equal(h.text(seen.reply), `Added "t${seen.n}".`);
    assert.deepEqual(seen.answered, { site: 1, call: 1 });
    assert.equal(seen.nextAsked, false, 'the site answer holds');
    assert.ok(seen.writes.length >= 3, `the call writes its session at least at each card and before it runs: ${seen.writes}`);
    steps.push(...seen.writes);
  });

  for (const side of ['before', 'after']) {
    test(`stopped ${side} each session write: nothing is answered twice, run twice or run unasked`, async (t) => {
      assert.ok(steps.length > 0, 'the writes were counted first');
      for (const [at, write] of steps.entries()) {
        await t.test(`stopped ${side} write ${at} (${write})`, async () => {
          const seen = await walk(at, side);
          debug(`stopped ${side} write ${at}`, JSON.stringify(seen));
          assert.ok(seen.stopped, 'the worker stopped');
          assert.ok(seen.answered.site <= 1 && seen.answered.call <= 1, `each card answered once: ${JSON.stringify(seen.answered)}`);
          assert.equal(seen.stillOpen, false, 'no card left open');
          assert.ok(seen.calls <= 1, `add_note ran ${seen.calls} times`);
          assert.equal(seen.callsWhenAnswered.call ?? 0, 0, 'add_note ran before its call card was answered');
          assert.equal(seen.nextAsked, false, 'the site answer holds after the stop');
          const text = h.text(seen.reply);
          if (seen.calls === 1) {
            assert.ok(text === `Added "t${seen.n}".` || /interrupted/.test(text), `the reply: ${text}`);
          } else {
            assert.match(text, /interrupted|not run|no longer/, `the reply says it did not run: ${text}`);
          }
        });
      }
    });
  }
});
