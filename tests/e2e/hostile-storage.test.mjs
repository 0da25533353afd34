// Hostile pages against Toolgate's storage and its one worker (docs/classes.md,
// "What Toolgate keeps"): a page that fills chrome.storage.session, a 5 MB
// description, and a page that re-registers a tool in every task while an
// agent calls another tab's tool; in headless Chromium with the real
// extension, cards clicked by their labels.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { entries } from '../support/browser.mjs';
import { harness } from '../support/fixture.mjs';
import { choose } from '../support/cards.mjs';
import { inRelayWorld } from '../support/relay-world.mjs';

// What a hostile frame sends the worker, as the frame (relay-world.mjs): a
// page cannot reach the shim–relay channel, so this is the most any frame's
// messages could do, and each budget must hold against it.

// Fills Toolgate's storage: reports of ever smaller tools, each size tried
// until one is refused, a refused tool taken back so that the next one may
// fit. Resolves with every refusal the frame was told of, and how many tools it kept.
const flood = (page) => inRelayWorld(page, async () => {
  let batch = 5000;
  const send = (ops) => chrome.runtime.sendMessage(JSON.stringify({ type: 'updates', batch: ++batch, ops }));
  const refusals = [];
  let n = 0;
  let kept = 0;
  for (let size = 1 << 20; size >= 256; size >>= 1) {
    for (;;) {
      const name = `f${++n}`;
      const answer = await send([{ op: 'register', decl: { path: 'document_object', name,
        description: 'x'.repeat(size), annotations: { readOnlyHint: true } } }]);
      const refused = answer.error ?? answer.results[0]?.error;
      if (!refused) { kept++; continue; }
      refusals.push(refused);
      await send([{ op: 'unregister', source: 'document', kind: 'tool', name }]);
      break;
    }
  }
  return { refusals, kept };
});

// Sends `count` native calls whose tool name is `length` characters (or
// `name`), each with arguments of `bytes` characters; resolves with the
// replies once `settle` calls (by default every call) have one.
let nextCall = 1;
const forge = (page, count, length, { name = null, bytes = 0, settle = count } = {}) => {
  const first = nextCall;
  nextCall += count;
  return inRelayWorld(page, ({ first, count, length, name: named, bytes, settle }) => new Promise((done) => {
    const replies = [];
    for (let call = first; call < first + count; call += 1) {
      const name = named ?? `missing_${call}_`.padEnd(length, 'x');
      const input = bytes ? { text: 'x'.repeat(bytes) } : {};
      chrome.runtime.sendMessage(JSON.stringify({ type: 'native_call', call, source: 'document', name, arguments: input }))
        .then((reply) => {
          replies.push(reply?.error?.message ?? reply?.result?.content?.[0]?.text ?? JSON.stringify(reply).slice(0, 200));
          if (replies.length === settle) done(replies);
        });
    }
  }), { first, count, length, name, bytes, settle });
};

const QUOTA = 10 * 1024 * 1024; // chrome.storage.session.QUOTA_BYTES

describe('hostile pages and storage', () => {
  const h = harness({ pages: 'tests/pages/hostile-storage', chatPrefix: 'storage' });
  const { open, chat, request: call, start, text } = h;
  const bytesInUse = async () => (await h.browser.worker()).evaluate(() => chrome.storage.session.getBytesInUse(null));
  // Stops the worker, then wakes a new one as the settings page does (it asks the worker for
  // the agents' status as it opens).
  const restart = async () => {
    const id = new URL((await h.browser.worker()).url()).host;
    await h.browser.stopWorker();
    const settings = await h.browser.newPage(`chrome-extension://${id}/extension/ui/options.html`);
    await h.browser.worker();
    await settings.close();
  };

  test('a page that fills storage is refused at its cap, is never told of the quota, and cannot crowd out answers or a later tab', async () => {
    const flooding = await open('flood.test', '/flood.html', 0);
    const { refusals, kept } = await flood(flooding.page);
    assert.ok(kept > 0, 'the page stored what fits its cap');
    for (const refusal of refusals) {
      assert.doesNotMatch(refusal, /quota/i, 'nothing the page hears reveals the quota');
      assert.match(refusal, /^Toolgate stores at most 2 MB \(2097152 bytes\) of tools for one tab; this tool would pass it$/);
    }
    assert.ok(await bytesInUse() <= QUOTA - 3 * 1024 * 1024, 'the agent session keeps its share');

    // A tab opened later keeps its tools across a worker restart.
    const later = await open('later.test', '/tools.html', 2);
    // "Deny for this chat" on that site is stored, and holds after a restart.
    const chatId = await chat();
    const first = await start(chatId, call(later.tabId, 'add_note'));
    assert.ok(first.card, 'the site question');
    await choose(first.card, 'Deny for this chat');
    assert.match(text(await first.reply), /denied|refused/i);
    await restart();
    const again = await start(chatId, call(later.tabId, 'add_note'));
    assert.ok(!again.card, 'the denied site is not asked again after a restart');
    assert.match(text(again.reply), /refused|denied/i);
    assert.deepEqual(entries(await h.browser.palette(later.page)).map((e) => e.name), ['read_notes', 'add_note'],
      "the later tab's tools survived the restart");
    assert.deepEqual(await later.page.evaluate(() => window.ran), []);
    await flooding.page.close();
    await later.page.close();
  });

  test('a 5 MB description is stored cut to what is shown, and reads back the same after a restart', async () => {
    const before = await bytesInUse();
    const { page } = await open('huge.test', '/huge.html', 1);
    const grew = await bytesInUse() - before;
    assert.ok(grew < 70 * 1024, `one tool takes ${grew} bytes of storage`);
    const shown = entries(await h.browser.palette(page))[0];
    await restart();
    const again = entries(await h.browser.palette(page))[0];
    assert.deepEqual(again, shown, 'the same tool after a restart');
    assert.equal(again.badge, 'Consequential');
    assert.match(JSON.stringify(again), /description is longer than 65536 bytes/);
    await page.close();
  });

  test('a page re-registering a tool in every task stores only what changed and does not hold up another tab\'s agent call', async () => {
    const churn = await open('churn.test', '/churn.html', 600, 60_000);
    const quiet = await open('quiet.test', '/quiet.html', 1);
    const chatId = await chat();
    const first = await start(chatId, call(quiet.tabId, 'clock'));
    await choose(first.card, 'Allow read-only tools on this website');
    assert.equal(text(await first.reply), 'tick');
    const sw = await h.browser.worker();
    // Every write the worker makes from now on, by its size.
    await sw.evaluate(() => {
      const area = chrome.storage.session;
      const set = area.set.bind(area);
      self.testWrites = [];
      self.testToolWritesAt = [];
      area.set = (items) => {
        self.testWrites.push(Object.values(items).reduce((n, v) => n + (typeof v === 'string' ? v.length : 0), 0));
        if (Object.keys(items).some((key) => key.startsWith('tool:'))) self.testToolWritesAt.push(performance.now());
        return set(items);
      };
    });
    // A call that has not answered in 10 s fails the test as it stands (it waits on the other
    // tab's queue, which grows without end).
    const LONGEST_MS = 10_000;
    const timed = () => {
      let timer;
      const late = new Promise((done, fail) => {
        timer = setTimeout(() => fail(new Error(`another tab's call took over ${LONGEST_MS} ms`)), LONGEST_MS);
      });
      const answered = sw.evaluate(async ([c, r]) => {
        const started = performance.now();
        const reply = await self.toolgate.agent(c, r);
        return { ms: performance.now() - started, text: reply.result?.content?.[0]?.text };
      }, [chatId, call(quiet.tabId, 'clock')]);
      return Promise.race([answered, late]).finally(() => clearTimeout(timer));
    };
    const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const quietMs = [];
    for (let i = 0; i < 5; i++) quietMs.push((await timed()).ms);

    await churn.page.evaluate(() => window.churn());
    // The churn is under way: many reports made, and answered, before the calls.
    await churn.page.waitForFunction(() => window.reRegistered > 100);
    const churnMs = [];
    for (let i = 0; i < 5; i++) {
      const { ms, text: said } = await timed();
      assert.equal(said, 'tick');
      churnMs.push(ms);
    }
    const made = await churn.page.evaluate(() => { window.stop(); return window.reRegistered; });
    const writes = await sw.evaluate(() => self.testWrites);
    assert.ok(writes.length > 0 && writes.length < made, `${made} reports coalesced into ${writes.length} writes`);
    assert.ok(Math.max(...writes) < 64 * 1024, `a write of one changed tool, not the tab: ${Math.max(...writes)} bytes`);
    // A flooding tab's writes are spaced (core.js, WRITE_SPACING_MS: 20 ms from
    // the start of one write to the next, on average), however fast the relay
    // sends its next report, once its first five (WRITE_BURST) have gone at
    // once; a write slower than the spacing gives some of the burst back, so
    // two may then come closer. Unspaced, they came 2.9 ms apart.
    const at = (await sw.evaluate(() => self.testToolWritesAt)).slice(5);
    const spacing = (at.at(-1) - at[0]) / (at.length - 1);
    assert.ok(at.length > 10 && spacing >= 15, `the churning tab's writes ${at.length} after its burst, ${spacing.toFixed(1)} ms apart on average`);
    const during = median(churnMs);
    const calm = median(quietMs);
    assert.ok(during < Math.max(1000, 10 * calm), `another tab's call took ${during.toFixed(1)} ms under churn, ${calm.toFixed(1)} ms without`);
    await churn.page.close();
    await quiet.page.close();
  });

  // The audit's two logs (docs/rules.md, "Audit"): agents' traffic, however
  // much and however long, neither evicts the person's entries nor fills
  // the storage the rules share.
  test('forged calls neither evict the person\'s changes from the audit nor fill local storage', async () => {
    const sw = await h.browser.worker();
    const audit = () => sw.evaluate(async () => {
      const stored = await chrome.storage.local.get(['audit', 'audit:agents']);
      return [...(stored.audit ?? []), ...(stored['audit:agents'] ?? [])];
    });
    // A rule change, as the settings page makes it.
    const setRule = (site, write) => sw.evaluate(async ([s, w]) => {
      const { rules: book = { sites: {} } } = await chrome.storage.local.get('rules');
      book.sites[s] = { read: 'allowed', write: w, delete: 'off', outside: 'ask_first' };
      await chrome.storage.local.set({ rules: book });
    }, [site, write]);
    const recorded = async (site) => {
      // The audit gathers its entries for a moment before writing them.
      while (!(await audit()).some((e) => e.what === 'rules' && e.site === site)) await new Promise((r) => setTimeout(r, 50));
    };
    await setRule('https://person.test', 'ask_first');
    await recorded('https://person.test');

    const forger = await open('forger.test', '/forger.html', 1);
    const replies = await forge(forger.page, 1100, 8);
    assert.equal(replies.length, 1100);
    assert.match(replies[0], /^missing_1_ is not a tool Toolgate saw this frame register/);
    const long = await forge(forger.page, 4, 2 * 1024 * 1024);
    assert.equal(long.length, 4);
    // The agents' log is written after its moment too: wait for the last forged call's entry.
    while (!(await audit()).some((e) => e.what === 'decision' && /^missing_1104_x/.test(e.error ?? ''))) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const entries = await audit();
    assert.ok(entries.some((e) => e.what === 'rules' && e.site === 'https://person.test'), "the person's change is still there");
    assert.ok(entries.every((e) => JSON.stringify(e).length < 4096), 'every entry is cut to size');
    const used = await sw.evaluate(() => chrome.storage.local.getBytesInUse(null));
    assert.ok(used < 1024 * 1024, `local storage holds ${used} bytes`);
    // The person's next change is stored, and recorded.
    await setRule('https://next.test', 'off');
    await recorded('https://next.test');
    await forger.page.close();
  });

  // ARCHITECTURE.md, "Budgets": the sites seen and the tools seen on them
  // are pages' doing, so a page that spreads its tools over many origins
  // cannot fill the storage the person's rules share.
  test('the sites and the tools seen on them are bounded: the oldest go, the newest site and its tools are kept', async () => {
    const sw = await h.browser.worker();
    // As if two hundred sites had been seen, each with tools: 1.2 MB in all.
    await sw.evaluate(async () => {
      const sites = Array.from({ length: 200 }, (_, i) => `https://seen-${i}.test`);
      const tools = Object.fromEntries(sites.map((site) => [site, Array.from({ length: 60 }, (_, j) => ({
        name: `tool_${j}_${'x'.repeat(60)}`, area: null, kind: 'read',
      }))]));
      await chrome.storage.local.set({ sites_seen: sites, tools_seen: tools });
    });
    await restart();
    const { page } = await open('bounded.test', '/tools.html', 2);
    const site = `http://bounded.test:${h.server.port}`;
    const stored = await (await h.browser.worker()).evaluate(async (s) => {
      // The tools are remembered a moment after the page's reports.
      for (;;) {
        const got = await chrome.storage.local.get(['sites_seen', 'tools_seen']);
        if (got.tools_seen?.[s]) return { sites: got.sites_seen, tools: got.tools_seen, size: JSON.stringify(got.tools_seen).length };
        await new Promise((r) => setTimeout(r, 50));
      }
    }, site);
    assert.equal(stored.sites.length, 200, 'at most 200 sites');
    assert.equal(stored.sites.at(-1), site, 'the newest is kept');
    assert.ok(!stored.sites.includes('https://seen-0.test'), 'the first seen went');
    assert.ok(stored.size <= 1024 * 1024, `the tools seen take ${stored.size} characters`);
    assert.ok(!('https://seen-0.test' in stored.tools), 'the site remembered longest ago went');
    assert.ok('https://seen-199.test' in stored.tools, 'the most recent are kept');
    assert.equal(stored.tools[site].length, 2);
    await page.close();
  });

  // ARCHITECTURE.md, "Budgets": a call waiting on a person holds its
  // arguments in session storage, charged to its tab.
  test('forged calls with megabytes of arguments are refused before any card, and cannot crowd out another site\'s answer', { timeout: 60_000 }, async () => {
    const forger = await open('forged-args.test', '/forger.html', 1);
    const refusals = await forge(forger.page, 5, 0, { name: 'send', bytes: 2.5 * 1024 * 1024 });
    for (const refusal of refusals) {
      assert.match(refusal, /^Nothing ran: Toolgate holds at most 1 MB \(1048576 bytes\) of arguments of calls waiting on a person for one tab/);
    }
    assert.equal(h.cards.pending(), false, 'no card opened');
    assert.ok(await bytesInUse() < 1024 * 1024, 'session storage holds none of it');

    // Another site's "Deny for this chat" is stored, and holds after a restart.
    const later = await open('denied.test', '/tools.html', 2);
    const chatId = await chat();
    const first = await start(chatId, call(later.tabId, 'add_note'));
    assert.ok(first.card, 'the site question');
    await choose(first.card, 'Deny for this chat');
    await first.reply;
    await restart();
    const again = await start(chatId, call(later.tabId, 'add_note'));
    assert.ok(!again.card, 'the denied site is not asked again after a restart');
    assert.deepEqual(await forger.page.evaluate(() => window.ran), []);
    await forger.page.close();
    await later.page.close();
  });

  // docs/cards.md, "One card at a time": a tab shows one card, four more
  // wait behind it, and further calls are refused.
  test('fifteen forged calls open one card: four wait behind it, ten are refused, and the next opens once it is answered', { timeout: 60_000 }, async () => {
    const forger = await open('spam.test', '/forger.html', 1);
    const sw = await h.browser.worker();
    await sw.evaluate(async (site) => {
      const { rules: book = { sites: {} } } = await chrome.storage.local.get('rules');
      book.sites[site] = { read: 'allowed', write: 'ask_first', delete: 'ask_first', outside: 'ask_first' };
      await chrome.storage.local.set({ rules: book });
    }, new URL(forger.page.url()).origin);
    const cardWindows = async () => (await h.browser.context.pages()).filter((p) => p.url().includes('/card.html?card=')).length;
    const refusals = await forge(forger.page, 15, 0, { name: 'send', settle: 10 });
    for (const refusal of refusals) {
      assert.equal(refusal, 'Nothing ran: 5 cards already wait on a person for this tab, the most Toolgate lets one tab have. Try again once they are answered.');
    }
    const first = await h.cards.next();
    assert.equal(await cardWindows(), 1, 'one card window for the tab');
    await choose(first, 'Refuse');
    const second = await h.cards.next();
    assert.notEqual(second.url(), first.url(), 'the next card opens once the first is answered');
    assert.equal(await cardWindows(), 1);
    await second.close();
    for (let n = 0; n < 3; n += 1) await (await h.cards.next()).close();
    assert.deepEqual(await forger.page.evaluate(() => window.ran), []);
    await forger.page.close();
  });
});
