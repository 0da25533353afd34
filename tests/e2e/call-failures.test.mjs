// Every way an agent's call can fail, end to end (docs/agents.md): a tool
// that throws, never answers or answers too much, results that cannot be
// serialised or are forged, timeouts, bad settings, the tab closed or
// navigated mid-call, unknown tabs and tools. One browser with a short call
// timeout; every test uses chats of its own.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { entries } from '../support/browser.mjs';
import { choose } from '../support/cards.mjs';
import { inRelayWorld } from '../support/relay-world.mjs';
import { assertRan, harness, callsOf } from '../support/fixture.mjs';

describe('when a call fails', () => {
  // A short timeout, so a tool that never answers fails fast.
  const h = harness({ configure: { callTimeoutMs: 1500 } });

  // Each failure gives the agent a clear error; the page keeps working.
  async function stillWorks(chat, tabId, page) {
    const reply = await h.runs(chat, tabId, 'list_notes');
    assert.match(reply.result.content[0].text, /"notes"/);
    if (page) assert.equal(await page.evaluate(() => document.title), 'Notes');
  }

  test('a tool that throws, never answers, or answers too much', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    const chat = await h.chat();

    let reply = (await h.start(chat, h.request(tabId, 'explode'))).reply;
    assert.equal(reply.result.isError, true);
    assert.equal(reply.result.content[0].text, 'explode threw RangeError: the notes exploded');
    await stillWorks(chat, tabId, page);

    const started = Date.now();
    reply = (await h.start(chat, h.request(tabId, 'hang'))).reply;
    assert.equal(reply.result.isError, true);
    assert.equal(reply.result.content[0].text, 'hang did not answer within 1.5 s');
    assert.ok(Date.now() - started < 5000, 'the timeout came on time');
    await stillWorks(chat, tabId, page);

    // A tool slower than the timeout fails too, and its late answer changes nothing.
    reply = (await h.start(chat, h.request(tabId, 'slow', { ms: 1800 }))).reply;
    assert.equal(reply.result.content[0].text, 'slow did not answer within 1.5 s');
    await page.waitForFunction(() => window.answered.slow === 1); // the page answered, late
    await stillWorks(chat, tabId, page);

    reply = (await h.start(chat, h.request(tabId, 'huge'))).reply;
    assert.equal(reply.result.isError, true);
    assert.match(reply.result.content[0].text, /^the tool's result is 1200002 bytes, over Toolgate's cap of 1048576 bytes$/);
    await stillWorks(chat, tabId, page);
    assert.equal(await callsOf(page, 'huge'), 1);
    await page.close();
  });

  test('an agent call fires toolactivated in the page, as executeTool does', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    // At document.modelContext, where the draft and every browser fire it
    // (ARCHITECTURE.md, "Where the native API and the draft differ").
    await page.evaluate(() => {
      window.activated = [];
      document.modelContext.addEventListener('toolactivated', (event) => window.activated.push(event.toolName));
    });
    const chat = await h.chat();
    await h.runs(chat, tabId, 'list_notes');
    await h.start(chat, h.request(tabId, 'explode'));
    assert.deepEqual(await page.evaluate(() => window.activated), ['list_notes', 'explode']);
    await page.close();
  });

  test('the relay lets go of a call its page never answers, once the worker stopped waiting', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    const sw = await h.browser.worker();
    // Call messages as the worker sends them: the page's tool never answers,
    // so only the relay can. One timer watches every call's deadline, so a
    // call with a long timeout, then calls with shorter ones, must each be let
    // go at its own deadline, not at the long one's.
    const answers = await sw.evaluate(async (tab) => {
      const frames = await chrome.webNavigation.getAllFrames({ tabId: tab });
      const { documentId } = frames.find((f) => f.frameId === 0);
      const send = (timeout) => chrome.tabs.sendMessage(tab,
        { type: 'call', source: 'document', name: 'hang', arguments_json: '{}', timeout_ms: timeout }, { frameId: 0, documentId });
      const held = (ms) => new Promise((resolve) => setTimeout(() => resolve(`still held after ${ms / 1000} s`), ms));
      let longAnswer = 'still held';
      send(60_000).then((answer) => { longAnswer = answer; }, (error) => { longAnswer = `rejected: ${error}`; });
      const short = await Promise.all([send(1_000), send(100)].map((sent) => Promise.race([sent, held(5000)])));
      // The relay's one timer let both short calls go; the long one's
      // deadline is a minute away. Had a sweep let it go too, its answer was
      // sent then, before the answer to this ping, which comes after them.
      await chrome.tabs.sendMessage(tab, { type: 'ping' }, { frameId: 0, documentId });
      return [...short, longAnswer];
    }, tabId);
    const letGo = { ok: false, error: 'the tool did not answer within the call timeout' };
    assert.deepEqual(answers, [letGo, letGo, 'still held']);
    assert.equal(await callsOf(page, 'hang'), 3);
    await page.close();
  });

  test('a result is serialised once, in the page; one that cannot be, or a forged one, gets a clear error', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    await page.evaluate(() => {
      window.getterRuns = 0;
      const readOnly = { readOnlyHint: true };
      document.modelContext.registerTool({
        name: 'counted', description: 'A result with a getter.', annotations: readOnly,
        execute: () => ({ get n() { window.getterRuns += 1; return window.getterRuns; } }),
      });
      document.modelContext.registerTool({
        name: 'cyclic', description: 'A result with a cycle.', annotations: readOnly,
        execute: () => { const o = {}; o.self = o; return o; },
      });
      // A tool that never answers, whose call the frame answers for it
      // (below), with text that is not JSON.
      document.modelContext.registerTool({
        name: 'forged', description: 'Answered by the frame itself.', annotations: readOnly,
        execute: () => new Promise(() => {}),
      });
    });
    // A frame whose channel to the worker is not Toolgate's (relay-world.mjs)
    // answers the call before the relay does.
    await inRelayWorld(page, () => {
      chrome.runtime.onMessage.addListener((message, sender, respond) => {
        if (message?.type === 'call' && message.name === 'forged') respond({ ok: true, json: '{"broken' });
        return false;
      });
    });
    await h.browser.waitForPalette(page, (p) => entries(p).length === 14, 'the three tools more');
    const chat = await h.chat();

    const reply = await h.allowUnseen(chat, tabId, 'counted');
    assertRan(reply, 'counted');
    assert.equal(reply.result.content[0].text, '{"n":1}');
    assert.equal(await page.evaluate(() => window.getterRuns), 1, 'the result\'s getter ran once');

    let got = (await h.start(chat, h.request(tabId, 'cyclic'))).reply;
    assert.equal(got.result.isError, true);
    assert.match(got.result.content[0].text, /^cyclic returned a result that cannot be serialised \(TypeError: /);

    got = (await h.start(chat, h.request(tabId, 'forged'))).reply;
    assert.equal(got.result.isError, true);
    assert.match(got.result.content[0].text, /^the page answered with a result that is not JSON: /);
    await stillWorks(chat, tabId, page);
    await page.close();
  });

  // The page answers a plain result at once and awaits anything else: the
  // agent must not be able to tell which way a result came.
  test('a plain result answered at once reads as the same result awaited; a hostile thenable fails cleanly', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    const plain = { text: 'ok', number: 2.5, nan: NaN, yes: true, nothing: null, absent: undefined, empty: '' };
    await page.evaluate((names) => {
      const readOnly = { readOnlyHint: true };
      const values = { text: 'ok', number: 2.5, nan: NaN, yes: true, nothing: null, absent: undefined, empty: '' };
      for (const name of names) {
        document.modelContext.registerTool({ name: `now_${name}`, description: 'A plain result.', annotations: readOnly, execute: () => values[name] });
        document.modelContext.registerTool({ name: `later_${name}`, description: 'The same, awaited.', annotations: readOnly, execute: async () => values[name] });
      }
      // A promise whose constructor getter throws (read when it is awaited),
      // and a thenable whose then throws.
      const hostile = Promise.resolve('never seen');
      Object.defineProperty(hostile, 'constructor', { get() { throw new Error('constructor getter'); } });
      document.modelContext.registerTool({ name: 'hostile_promise', description: 'Hostile.', annotations: readOnly, execute: () => hostile });
      document.modelContext.registerTool({
        name: 'hostile_thenable', description: 'Hostile.', annotations: readOnly,
        execute: () => ({ then() { throw new Error('then threw'); } }),
      });
    }, Object.keys(plain));
    const count = 11 + 2 * Object.keys(plain).length + 2;
    await h.browser.waitForPalette(page, (p) => entries(p).length === count, 'the tools added');
    const chat = await h.chat();
    await h.allowUnseen(chat, tabId, 'now_text');
    const text = async (name) => (await h.runs(chat, tabId, name)).result.content[0].text;
    for (const name of Object.keys(plain)) {
      const now = await text(`now_${name}`);
      assert.equal(now, await text(`later_${name}`), `now_${name} and later_${name}`);
      assert.equal(now, name === 'absent' || name === 'nan' || name === 'nothing' ? 'null' : String(plain[name]), name);
    }
    for (const [name, why] of [['hostile_promise', 'constructor getter'], ['hostile_thenable', 'then threw']]) {
      const { reply } = await h.start(chat, h.request(tabId, name));
      assert.equal(reply.result.isError, true, name);
      assert.equal(reply.result.content[0].text, `${name} threw Error: ${why}`);
    }
    await stillWorks(chat, tabId, page);
    await page.close();
  });

  // One timer watches every running call's deadline: a call under a shorter
  // timeout, started while a longer one runs, must not wait for the longer.
  test('a timeout shortened while a longer call runs fires on its own time', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    const chat = await h.chat();
    const sw = await h.browser.worker();
    await sw.evaluate(() => self.toolgate.configure({ callTimeoutMs: 60_000 }));
    const long = h.send(chat, h.request(tabId, 'hang'));
    let longSettled = false;
    long.then(() => { longSettled = true; }, () => { longSettled = true; });
    await page.waitForFunction(() => window.calls.hang === 1);
    await sw.evaluate(() => self.toolgate.configure({ callTimeoutMs: 600 }));
    const started = Date.now();
    const reply = (await h.start(chat, h.request(tabId, 'hang'))).reply;
    assert.equal(reply.result.content[0].text, 'hang did not answer within 0.6 s');
    assert.ok(Date.now() - started < 4000, `the shorter timeout came on time (${Date.now() - started} ms)`);
    // The longer call still waits: it is not cut short by the other's timer.
    // The worker's one timer fired for the shorter call; had that sweep let
    // the longer one go too, its reply (its deadline is the older one) would
    // have left the worker, and reached this test, before the shorter's.
    const first = longSettled ? 'answered' : 'waiting';
    assert.equal(first, 'waiting');
    await sw.evaluate(() => self.toolgate.configure({ callTimeoutMs: 1500 }));
    // Closing its tab ends it.
    await page.close();
    assert.match((await long).result.content[0].text, /^the page that published hang went away/);
  });

  // Timers take at most 2^31 − 1 ms; a longer delay fires at once. A call
  // timeout past that (a CI run that never wants one) must still let a
  // tool take its time, in the worker and in the page's relay.
  test('a call timeout longer than a timer can wait still waits', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    const chat = await h.chat();
    const sw = await h.browser.worker();
    await sw.evaluate(() => self.toolgate.configure({ callTimeoutMs: 30 * 24 * 3600 * 1000 }));
    const { reply } = await h.start(chat, h.request(tabId, 'slow', { ms: 300 }));
    assert.equal(reply.result.isError, false, JSON.stringify(reply));
    await sw.evaluate(() => self.toolgate.configure({ callTimeoutMs: 1500 }));
    await page.close();
  });

  test('bad settings are refused with the reason, and change nothing', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    const chat = await h.chat();
    const sw = await h.browser.worker();
    const refused = (changes) => sw.evaluate((c) => self.toolgate.configure(c).then(() => 'taken', (e) => e.message), changes);
    assert.equal(await refused({ callTimeoutMs: 'abc' }), 'settings: callTimeoutMs must be a whole number of at least 1, not the string "abc"');
    assert.equal(await refused({ callTimeoutMs: 0 }), 'settings: callTimeoutMs must be a whole number of at least 1, not 0');
    assert.equal(await refused({ resultCapBytes: 1.5 }), 'settings: resultCapBytes must be a whole number of at least 1, not 1.5');
    assert.equal(await refused({ timeout: 5 }), 'settings: there is no setting timeout (there are callTimeoutMs, resultCapBytes)');
    assert.equal(await refused(null), 'settings: give an object, as {callTimeoutMs, resultCapBytes}');
    // Nothing changed: the harness's 1.5 s timeout still holds.
    assert.equal((await h.start(chat, h.request(tabId, 'hang'))).reply.result.content[0].text, 'hang did not answer within 1.5 s');
    // A value written to storage by hand that is not a setting gives the default.
    // (A timeout of -5 ms would fail the call at once; the default lets it answer.)
    await sw.evaluate(() => chrome.storage.local.set({ settings: { callTimeoutMs: -5, resultCapBytes: 10 } }));
    const reply = (await h.start(chat, h.request(tabId, 'slow', { ms: 300 }))).reply;
    assert.match(reply.result.content[0].text, /^the tool's result is \d+ bytes, over Toolgate's cap of 10 bytes$/);
    assert.equal(await sw.evaluate(() => self.toolgate.configure({ callTimeoutMs: 1500, resultCapBytes: 1024 * 1024 }).then(() => 'taken')), 'taken');
    await page.close();
  });

  test('the tab closes or navigates mid-call', async () => {
    const chat = await h.chat();
    const closing = await h.open('notes.localhost');
    const pending = h.start(chat, h.request(closing.tabId, 'slow', { ms: 1000 }));
    await closing.page.waitForFunction(() => window.calls.slow === 1);
    await closing.page.close();
    let reply = (await pending).reply;
    assert.equal(reply.result.isError, true);
    assert.equal(reply.result.content[0].text,
      'the page that published slow went away (its tab closed or navigated) before the tool answered');
    const closed = await h.start(chat, h.request(closing.tabId, 'list_notes'));
    assert.equal(closed.reply.error?.message, `there is no tab ${closing.tabId}`);

    const leaving = await h.open('notes.localhost');
    reply = (await h.start(chat, h.request(leaving.tabId, 'leave'))).reply;
    assert.equal(reply.result.isError, true);
    assert.equal(reply.result.content[0].text,
      'the page that published leave went away (its tab closed or navigated) before the tool answered');
    await leaving.page.waitForURL(/other\.html/);
    const gone = await h.start(chat, h.request(leaving.tabId, 'list_notes'));
    assert.equal(gone.reply.error?.message, `tab ${leaving.tabId} publishes no tools`);
    // Back on the page: it works again.
    await leaving.page.goBack({ waitUntil: 'commit' });
    await h.browser.waitForPalette(leaving.page, (p) => entries(p).length === 11, 'the tools again');
    await stillWorks(chat, leaving.tabId, leaving.page);
    await leaving.page.close();
  });

  test('the tab closes while its card is open: the answer gives the agent a clear error', async () => {
    const { page, tabId } = await h.open();
    const chat = await h.chat();
    const asked = await h.asks(chat, tabId, 'delete_note', { title: 'A' }, 'site');
    await page.close();
    await choose(asked.card, 'Allow all tools on this website');
    const reply = await asked.reply;
    assert.equal(reply.error?.message, `delete_note is no longer published by tab ${tabId}`);
    // The answer itself was recorded for the site: another tab of it runs at once.
    const again = await h.open();
    await h.runs(chat, again.tabId, 'delete_note', { title: 'A' });
    await again.page.close();
  });

  test('unknown tabs and unknown tools', async () => {
    const { page, tabId } = await h.open('notes.localhost');
    const chat = await h.chat();
    let got = await h.start(chat, h.request(987654, 'list_notes'));
    assert.equal(got.reply.error?.message, 'there is no tab 987654');
    got = await h.start(chat, h.request(tabId, 'no_such_tool'));
    assert.equal(got.reply.error?.message, `tab ${tabId} publishes no tool named "no_such_tool"`);
    got = await h.start(chat, h.request(tabId, 'house_style'));
    assert.equal(got.reply.error?.message, 'house_style is a skill: skills are read, never called');
    got = await h.start(chat, h.listRequest(987654));
    assert.equal(got.reply.error?.message, 'there is no tab 987654');
    await stillWorks(chat, tabId, page);
    // The same on a real host name: no card before the error.
    const real = await h.open();
    got = await h.start(chat, h.request(real.tabId, 'no_such_tool'));
    assert.ok(!got.card);
    assert.equal(got.reply.error?.message, `tab ${real.tabId} publishes no tool named "no_such_tool"`);
    await real.page.close();
    await page.close();
  });
});
