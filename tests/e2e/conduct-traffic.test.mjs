// Hints held to their word (docs/classes.md, "What a call is judged on"): a
// call is judged on what it caused, and on nothing it did not. The page's own
// heartbeat, a request of another site's frame in the tab, do not flag an
// honest Read only tool; a liar on the same pages that POSTs elsewhere is
// flagged, also when its request goes through the page's service worker.
// Pages in tests/pages/conduct (heartbeat.html, embed.html, sw.html).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { entries } from '../support/browser.mjs';
import { harness } from '../support/fixture.mjs';

const h = harness({ pages: 'tests/pages/conduct', tools: 6 });

// The palette's entry for `name`, once it is flagged.
async function flagged(page, name) {
  const palette = await h.browser.waitForPalette(page, (p) => entries(p).some((e) => e.name === name && e.broke !== undefined), `${name} flagged`);
  return entries(palette).find((e) => e.name === name);
}

// Resolves once the page has had two more heartbeats answered: its own
// traffic, sent with no call running, which Toolgate sees as such.
async function beating(page) {
  const from = await page.evaluate(() => window.beats);
  await page.waitForFunction((n) => window.beats >= n + 2, from);
}

// What a reply says its call was seen doing, and the hint it broke.
const conduct = (reply) => reply.result._meta.toolgate;

test("an honest Read only tool is not flagged for the page's heartbeat; a liar that POSTs elsewhere is", async () => {
  const { page, tabId } = await h.open('beats.localhost', '/heartbeat.html');
  await beating(page);
  const chat = await h.chat();
  for (let i = 0; i < 2; i++) {
    const seen = conduct(await h.runs(chat, tabId, 'lookup'));
    assert.equal(seen.broke, undefined, JSON.stringify(seen));
    // Its heartbeat is told, as the page's own: Toolgate cannot pin it on the call.
    const beat = seen.seen?.find((s) => s.to === '/api/heartbeat.json');
    assert.ok(beat?.cannot_tell, `the heartbeat is told as the page's own: ${JSON.stringify(seen)}`);
  }
  const liar = conduct(await h.runs(chat, tabId, 'lookup_and_delete'));
  assert.equal(liar.broke?.said, 'Read only', JSON.stringify(liar));
  assert.match((await flagged(page, 'lookup_and_delete')).broke, /^said Read only; during a call it sent POST \/api\/notes\/delete\.json/);
  assert.equal(entries(await h.browser.palette(page)).find((e) => e.name === 'lookup').broke, undefined, 'the honest tool is not flagged');
  await page.close();
});

test("a POST to the heartbeat's own address during a call cannot be told from the page's own: told, not flagged", async () => {
  const { page, tabId } = await h.open('beats-again.localhost', '/heartbeat.html');
  await beating(page);
  const seen = conduct(await h.runs(await h.chat(), tabId, 'lookup_and_beat'));
  assert.equal(seen.broke, undefined, JSON.stringify(seen));
  const told = seen.seen.filter((s) => s.to === '/api/heartbeat.json');
  assert.ok(told.length >= 2 && told.every((s) => s.cannot_tell && s.done === 'sent POST'), JSON.stringify(seen));
  assert.match(told[0].why, /the page sends it on its own too/);
  await page.close();
});

test("a new worker knows the page's heartbeat as the page's own", { timeout: 60_000 }, async () => {
  const { page, tabId } = await h.open('beats-restart.localhost', '/heartbeat.html');
  await beating(page);
  // The worker keeps what the page sends on its own with the session
  // (written at most once a second): stopped once it has.
  const worker = await h.browser.worker();
  await worker.evaluate((tabId) => new Promise((resolve) => {
    const check = (kept) => {
      if (!(kept?.tabs?.[tabId] ?? []).some((key) => key.endsWith('/api/heartbeat.json'))) return false;
      chrome.storage.onChanged.removeListener(heard);
      resolve();
      return true;
    };
    const heard = (changes, area) => { if (area === 'session' && changes.watch_usual) check(changes.watch_usual.newValue); };
    chrome.storage.onChanged.addListener(heard);
    chrome.storage.session.get('watch_usual').then((stored) => check(stored.watch_usual));
  }), tabId);
  await h.restartWorker();
  const seen = conduct(await h.runs(await h.chat(), tabId, 'lookup'));
  assert.equal(seen.broke, undefined, JSON.stringify(seen));
  assert.ok(seen.seen?.find((s) => s.to === '/api/heartbeat.json')?.cannot_tell, JSON.stringify(seen));
  await page.close();
});

test("a worker woken by something else hears what a page sends on its own from its start, before any call", { timeout: 60_000 }, async () => {
  // The page reports its tools to one worker and starts its heartbeat only
  // once the next has started (woken by a card's page, not by a call): that
  // worker knows the heartbeat as the page's own only if it listened to the
  // tab from its start.
  const { page, tabId } = await h.open('beats-woken.localhost', '/heartbeat.html?later');
  await h.restartWorker();
  await page.evaluate(() => window.startBeating());
  await beating(page);
  const seen = conduct(await h.runs(await h.chat(), tabId, 'lookup'));
  assert.equal(seen.broke, undefined, JSON.stringify(seen));
  assert.ok(seen.seen?.find((s) => s.to === '/api/heartbeat.json')?.cannot_tell, JSON.stringify(seen));
  await page.close();
});

test("a request of the page that embeds a widget does not flag the widget's honest tool; the widget's own POST does", async () => {
  const { page, tabId } = await h.open('shop.localhost', '/embed.html', 2);
  const chat = await h.chat();
  const honest = conduct(await h.runs(chat, tabId, 'stock'));
  assert.equal(honest.broke, undefined, JSON.stringify(honest));
  assert.ok(!(honest.seen ?? []).some((s) => s.to.includes('/api/track.json')), `another site's request is not the call's: ${JSON.stringify(honest)}`);
  const liar = conduct(await h.runs(chat, tabId, 'stock_and_delete'));
  assert.equal(liar.broke?.said, 'Read only', JSON.stringify(liar));
  const entry = await flagged(page, 'stock_and_delete');
  assert.match(entry.broke, /^said Read only; during a call it sent POST \/api\/notes\/delete\.json/);
  assert.equal(entries(await h.browser.palette(page)).find((e) => e.name === 'stock').broke, undefined, 'the honest tool is not flagged');
  await page.close();
});

test("a page's service worker that sends its requests on hides nothing: the liar is flagged, the honest tool and the heartbeat are not", async () => {
  const { page, tabId } = await h.open('worker.localhost', '/sw.html');
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  await beating(page);
  const chat = await h.chat();
  const honest = conduct(await h.runs(chat, tabId, 'lookup'));
  assert.equal(honest.broke, undefined, JSON.stringify(honest));
  const liar = conduct(await h.runs(chat, tabId, 'lookup_and_delete'));
  assert.equal(liar.broke?.said, 'Read only', JSON.stringify(liar));
  const entry = await flagged(page, 'lookup_and_delete');
  assert.match(entry.broke, /^said Read only; during a call it sent POST \/api\/notes\/delete\.json/);
  assert.equal(entries(await h.browser.palette(page)).find((e) => e.name === 'lookup').broke, undefined, 'the honest tool is not flagged');
  await page.close();
});

// Two tabs of a site behind its service worker (docs/classes.md, "What a call
// is judged on"): the browser shows either tab's request only as the
// worker's. What the call's own document sent is matched to it.
async function twoTabs(host) {
  const { page, tabId } = await h.open(host, '/sw.html?1');
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  const other = await h.open(host, '/sw.html?2');
  await other.page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  // Both tabs' heartbeats, sent with no call running, are known as the site's own.
  await beating(page);
  await beating(other.page);
  return { page, tabId, other: other.page };
}

// By fetch, by XMLHttpRequest, and by a fetch of an address Toolgate does
// not read (which matches whatever the worker sends: closed, not open).
test('with the site open in another tab, a liar whose service worker sends its POST on is still flagged, however it sent it', async () => {
  const { page, tabId, other } = await twoTabs('worker-twice.localhost');
  const chat = await h.chat();
  for (const liar of ['lookup_and_delete', 'lookup_and_xhr_delete', 'lookup_and_hidden_delete']) {
    const seen = conduct(await h.runs(chat, tabId, liar));
    assert.equal(seen.broke?.said, 'Read only', `${liar}: ${JSON.stringify(seen)}`);
    const entry = await flagged(page, liar);
    assert.match(entry.broke, /^said Read only; during a call it sent POST \/api\/notes\/delete\.json/, liar);
  }
  await other.close();
  await page.close();
});

test("with the site open in another tab, what that tab sends through the service worker during an honest call is told as another tab's, not flagged", async () => {
  const { page, tabId, other } = await twoTabs('worker-both.localhost');
  const chat = await h.chat();
  const call = h.start(chat, h.request(tabId, 'lookup_until_told'));
  await page.waitForFunction(() => typeof window.told === 'function');
  // The other tab's person deletes a note while the call runs.
  assert.equal(await other.evaluate(() => fetch('/api/notes/delete.json', { method: 'POST', body: 'id=2' }).then((r) => r.status)), 200);
  await page.evaluate(() => window.told());
  const { reply, card } = await call;
  assert.ok(!card, 'the honest call runs without a card');
  const seen = conduct(reply);
  assert.equal(seen.broke, undefined, JSON.stringify(seen));
  const told = seen.seen.find((s) => s.to === '/api/notes/delete.json');
  assert.equal(told?.why, "the site's service worker sent it while the site was open in another tab too", JSON.stringify(seen));
  assert.equal(entries(await h.browser.palette(page)).find((e) => e.name === 'lookup_until_told').broke, undefined, 'the honest tool is not flagged');
  await other.close();
  await page.close();
});
