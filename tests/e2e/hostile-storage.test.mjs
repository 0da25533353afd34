// Hostile pages and agents against Toolgate's storage and its one worker
// (docs/classes.md, "What Toolgate keeps"; docs/agents.md, "Arguments and
// limits"): a page that fills chrome.storage.session, a 5 MB description, a
// page that re-registers a tool in every task while an agent calls another
// tab's tool, ids and arguments that grow as they are stored, and pages that
// push a site out of the record of tools seen; in headless Chromium with the
// real extension, cards and the settings pages clicked by their labels.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TOOLGATE_ID, entries } from '../support/browser.mjs';
import { harness } from '../support/fixture.mjs';
import { auditOnce } from '../support/audit.mjs';
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
    const audit = () => sw.evaluate(() => self.toolgate.auditEntries());
    // A rule change, as the settings page makes it.
    const setRule = (site, write) => sw.evaluate(async ([s, w]) => {
      const { rules: book = { sites: {} } } = await chrome.storage.local.get('rules');
      book.sites[s] = { read: 'allowed', write: w, delete: 'off', outside: 'ask_first' };
      await chrome.storage.local.set({ rules: book });
    }, [site, write]);
    // The audit gathers its entries for a moment before writing them.
    const recorded = (site) => auditOnce(sw, { what: 'rules', site });
    await setRule('https://person.test', 'ask_first');
    await recorded('https://person.test');

    const forger = await open('forger.test', '/forger.html', 1);
    const replies = await forge(forger.page, 1100, 8);
    assert.equal(replies.length, 1100);
    assert.match(replies[0], /^missing_1_ is not a tool Toolgate saw this frame register/);
    const long = await forge(forger.page, 4, 2 * 1024 * 1024);
    assert.equal(long.length, 4);
    // The agents' log is written after its moment too: wait for the last forged call's entry.
    await auditOnce(sw, { what: 'decision', error: '^missing_1104_x' });
    const entries = await audit();
    assert.ok(entries.some((e) => e.what === 'rules' && e.site === 'https://person.test'), "the person's change is still there");
    assert.ok(entries.every(({ chain, ...e }) => JSON.stringify(e).length < 4096), 'every entry is cut to size');
    const chain = await sw.evaluate(() => self.toolgate.auditChain());
    assert.deepEqual(chain.agents.breaks, [], 'the agents\' log let its oldest go and is whole');
    assert.ok(chain.agents.kept <= 1000, `the agents' log keeps ${chain.agents.kept} entries`);
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
      assert.match(refusal, /^Nothing ran: Toolgate holds at most 1 MB \(1048576 bytes\) of requests waiting on a person for one tab, counted as stored/);
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

  // ARCHITECTURE.md, "Budgets": every field an agent makes Toolgate store is
  // bounded, and counted as stored (a quote takes two bytes in the stored
  // session's JSON text).
  test('request ids past 256 bytes as stored are refused before any card, and another site\'s "Deny for this chat" is stored and holds after a restart', { timeout: 60_000 }, async () => {
    const asked = await open('ids.test', '/tools.html', 2);
    const agentChat = await chat();
    // 1.8 million quotes: 3.6 MB as stored, each id.
    const quotes = '"'.repeat(1.8 * 1024 * 1024);
    for (const n of [1, 2, 3]) {
      const got = await start(agentChat, call(asked.tabId, 'add_note', {}, `${n}${quotes}`));
      assert.ok(!got.card, 'no card opens for a request whose id would pass its bound');
      assert.equal(got.reply.error?.code, -32600);
      assert.match(got.reply.error.message,
        /^Nothing was done: the request id takes 3774\d{3} bytes as Toolgate stores it \(its JSON text\), and Toolgate takes request ids of at most 256 bytes\. Use a short id\.$/);
    }
    assert.equal(h.cards.pending(), false, 'no card opened');
    assert.ok(await bytesInUse() < 1024 * 1024, 'session storage holds none of them');

    // Another site's "Deny for this chat" is stored, and holds after a restart.
    const later = await open('denied-ids.test', '/tools.html', 2);
    const first = await start(agentChat, call(later.tabId, 'add_note'));
    assert.ok(first.card, 'the site question');
    await choose(first.card, 'Deny for this chat');
    assert.match(text(await first.reply), /denied|refused/i);
    await restart();
    const again = await start(agentChat, call(later.tabId, 'add_note'));
    assert.ok(!again.card, 'the denied site is not asked again after a restart');
    assert.deepEqual(await asked.page.evaluate(() => window.ran), []);
    await asked.page.close();
    await later.page.close();
  });

  test('a chat id past 256 bytes is refused, and a label is kept to 100 characters', async () => {
    const sw = await h.browser.worker();
    const longId = `storage-${'x'.repeat(1024 * 1024)}`;
    await assert.rejects(sw.evaluate((c) => self.toolgate.openChat(c, { label: 'Long id' }), longId),
      /the chat id takes 1048586 bytes as Toolgate stores it \(its JSON text\), and Toolgate takes chat ids of at most 256 bytes/);
    const { page, tabId } = await open('chat-ids.test', '/tools.html', 2);
    const refused = (await h.send(longId, call(tabId, 'read_notes'))).error;
    assert.equal(refused?.code, -32600);
    assert.match(refused.message, /the chat id takes 1048586 bytes/);
    // A label of 3 MB as stored: its first 100 characters are kept.
    const label = `Agent ${'"'.repeat(1.5 * 1024 * 1024)}`;
    const labelled = await chat(label);
    const first = await start(labelled, call(tabId, 'add_note'));
    assert.ok(first.card, 'the site question');
    await choose(first.card, 'Deny for this chat');
    await first.reply;
    const stored = await sw.evaluate(async () => {
      const record = (await chrome.storage.session.get('session')).session;
      return { bytes: await chrome.storage.session.getBytesInUse(null), record };
    });
    assert.ok(stored.bytes < 1024 * 1024, `session storage holds ${stored.bytes} bytes`);
    assert.ok(!stored.record?.includes(longId.slice(0, 1000)), 'nothing of the long chat id is kept');
    assert.equal(JSON.parse(stored.record).answers.chats[labelled].label, label.slice(0, 100), 'the label is kept to 100 characters');
    await page.close();
  });

  // 400,000 quotes are 800 KB of JSON text, under the 1 MB a tab's waiting
  // calls may hold; stored in the session's JSON text, each is escaped again.
  test('arguments are counted as stored: 400,000 quotes take 1.6 MB, and the call is refused before any card', async () => {
    const { page, tabId } = await open('quoted.test', '/tools.html', 2);
    const got = await start(await chat(), call(tabId, 'add_note', { title: '"'.repeat(400_000) }));
    assert.ok(!got.card, 'no card opens');
    assert.match(text(got.reply),
      /^Nothing ran: Toolgate holds at most 1 MB \(1048576 bytes\) of requests waiting on a person for one tab, counted as stored \(their arguments and ids\), and this call of add_note \(1600\d{3} bytes\) would pass it\./);
    assert.ok(await bytesInUse() < 1024 * 1024, 'session storage holds none of it');
    await page.close();
  });

  // docs/rules.md, "Set areas and tools apart": a change the person makes to
  // their own rules never depends on the record of tools seen, which pages
  // can fill and so evict a site from.
  test('after pages push a site out of the tools seen, its tool and area with a rule stay listed, and the person can change them and put them back', { timeout: 180_000 }, async () => {
    const bank = await open('bank.test', '/bank.html', 3);
    const site = new URL(bank.page.url()).origin;
    const setApart = await h.browser.newPage(`chrome-extension://${TOOLGATE_ID}/extension/ui/set-apart.html?site=${encodeURIComponent(site)}`);
    const menu = () => setApart.getByRole('combobox', { name: 'What agents may do with accounts.delete' });
    const holds = () => setApart.locator('li.tool', { has: setApart.locator('code', { hasText: /^accounts\.delete$/ }) }).locator('.holds');
    await setApart.locator('.area-row button', { hasText: /^accounts$/ }).click();
    await menu().selectOption({ label: "Allowed, and start this site's rules from the defaults" });
    await holds().filter({ hasText: 'Allowed, set apart' }).waitFor();
    const cardsArea = setApart.getByRole('combobox', { name: 'What the tools of cards may do' });
    await cardsArea.selectOption({ label: 'Off' });
    await setApart.locator('.area-row', { has: cardsArea }).locator('.apart').waitFor();
    await setApart.close();
    await bank.page.close();

    // Two pages of 2,000 long-named tools each: the record of tools seen
    // (1 MB for every site) forgets bank.test, remembered longest ago.
    const sw = await h.browser.worker();
    const seen = () => sw.evaluate(async () => (await chrome.storage.local.get('tools_seen')).tools_seen ?? {});
    while (!(site in await seen())) await new Promise((r) => setTimeout(r, 50));
    const flooders = [];
    for (const host of ['names-1.test', 'names-2.test']) {
      flooders.push((await open(host, '/names.html', 2000, 120_000)).page);
    }
    while (site in await seen()) await new Promise((r) => setTimeout(r, 50));
    for (const page of flooders) await page.close();

    // The person opens the site's set-apart page: the tool with a rule is listed, and changed by clicks.
    const view = await h.browser.newPage(`chrome-extension://${TOOLGATE_ID}/extension/ui/set-apart.html?site=${encodeURIComponent(site)}`);
    await view.locator('.area-row button', { hasText: /^accounts$/ }).click();
    const tool = (name) => view.getByRole('combobox', { name: `What agents may do with ${name}` });
    assert.equal(await tool('accounts.delete').inputValue(), 'allowed');
    await tool('accounts.delete').selectOption({ label: 'Off' });
    const row = view.locator('li.tool', { has: view.locator('code', { hasText: /^accounts\.delete$/ }) });
    await row.locator('.holds', { hasText: 'Off, set apart' }).waitFor();
    assert.equal(await view.locator('#apart-error').textContent(), '');
    const rules = () => sw.evaluate(async (s) => (await chrome.storage.local.get('rules')).rules.sites[s], site);
    assert.equal((await rules()).tools['accounts.delete'], 'off');

    // It stays listed: opened again, the page shows it Off.
    await view.reload();
    await view.locator('.area-row button', { hasText: /^accounts$/ }).click();
    assert.equal(await tool('accounts.delete').inputValue(), 'off');
    await row.locator('.holds', { hasText: 'Off, set apart' }).waitFor();
    // And it is put back.
    await tool('accounts.delete').selectOption({ label: 'As its area and kind' });
    await row.locator('.apart').waitFor({ state: 'hidden' });
    assert.equal(await view.locator('#apart-error').textContent(), '');
    assert.equal((await rules()).tools['accounts.delete'], undefined);

    // The area cards, with a rule and none of its tools seen now, is listed, changed and put back.
    const cards = view.getByRole('combobox', { name: 'What the tools of cards may do' });
    assert.equal(await cards.inputValue(), 'off');
    assert.equal(await view.locator('.area-row', { has: cards }).locator('.holds').textContent(), 'None of its tools seen now');
    // Stored, the rules change (the settings page writes them as it saves).
    const stored = (level) => sw.evaluate(([s, l]) => new Promise((done) => {
      const check = async () => {
        if ((await chrome.storage.local.get('rules')).rules.sites[s].areas.cards !== l) return;
        chrome.storage.onChanged.removeListener(check);
        done();
      };
      chrome.storage.onChanged.addListener(check);
      check();
    }), [site, level]);
    await cards.selectOption({ label: 'Ask first' });
    await stored('ask_first');
    assert.equal(await view.locator('#apart-error').textContent(), '');
    await cards.selectOption({ label: 'As its kinds' });
    await stored(undefined);
    await view.locator('.area-row', { has: cards }).locator('.apart').waitFor({ state: 'hidden' });
    assert.equal(await view.locator('#apart-error').textContent(), '');
    await view.close();
  });
});
