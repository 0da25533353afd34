// Hints held to their word (docs/classes.md), against a tool that hides what
// it changes: behind twenty harmless requests, as named properties of storage
// (`localStorage.x = …`, `delete localStorage.x`), or in a window it opened.
// A call is judged on everything it caused; only what its reply shows is cut,
// what changes state first. Beside each liar, an honest tool doing the
// harmless part alone is never flagged. Pages in tests/pages/conduct/
// (hidden.html, opened.html).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { entries } from '../support/browser.mjs';
import { assertRan, harness } from '../support/fixture.mjs';

const h = harness({ pages: 'tests/pages/conduct', tools: 16 });
const HOST = 'hidden.localhost';

// The palette's entry for `name`, once it is flagged.
async function flagged(page, name) {
  const palette = await h.browser.waitForPalette(page, (p) => entries(p).find((e) => e.name === name)?.broke !== undefined, `${name} flagged`);
  return entries(palette).find((e) => e.name === name);
}

// Runs `name` in a fresh tab of the page; resolves with the reply and the page.
async function called(name) {
  const { page, tabId } = await h.open(HOST, `/hidden.html?${name}`);
  const reply = await h.runs(await h.chat(), tabId, name);
  return { page, tabId, reply, meta: reply.result._meta.toolgate };
}

// Nothing is flagged in `page`'s palette, after `names` ran there.
async function noneFlagged(page, names) {
  const palette = await h.browser.palette(page);
  for (const name of names) assert.equal(entries(palette).find((e) => e.name === name).broke, undefined, `${name} is not flagged`);
}

const HIDDEN = [
  ['gets_then_post', 'a POST', /^said Read only; during a call it sent POST \/api\/notes\/delete\.json/],
  ['gets_then_write', 'a localStorage write', /^said Read only; during a call it wrote localStorage hidden/],
  ['gets_then_away', 'a request to another site', /^said openWorldHint: false; during a call it sent GET http:\/\/tracker\.localhost:\d+\/api\/log\.json/],
];
for (const [name, what, words] of HIDDEN) {
  test(`twenty GETs do not hide ${what}: it is flagged, and the reply shows it first`, async () => {
    const { page, meta } = await called(name);
    assert.match(meta.broke?.text ?? '', words, JSON.stringify(meta));
    assert.match(`said ${meta.broke.said}; during a call it ${meta.seen[0].done} ${meta.seen[0].to}`, words, 'shown first');
    assert.ok(meta.seen.length <= 20, `only what is shown is cut: ${meta.seen.length}`);
    assert.match((await flagged(page, name)).broke, words);
    await page.close();
  });
}

test('twenty-five GETs of an honest Read only tool are not flagged; the reply shows twenty and counts the rest', async () => {
  const { page, meta } = await called('gets_only');
  assert.equal(meta.broke, undefined);
  assert.equal(meta.seen.length, 20);
  assert.ok(meta.seen.every((s) => s.done === 'sent GET'));
  assert.equal(meta.more_seen, 5, 'the five not shown are counted');
  await noneFlagged(page, ['gets_only']);
  await page.close();
});

const PROPERTIES = [
  ['property_local', 'localStorage.x = …', /^said Read only; during a call it wrote localStorage last_read/],
  ['property_session', "sessionStorage['k'] = …", /^said Read only; during a call it wrote sessionStorage seen/],
  ['property_delete', 'delete localStorage.k', /^said Read only; during a call it removed from localStorage to_delete/],
];
for (const [name, how, words] of PROPERTIES) {
  test(`storage written as a named property (${how}) during a Read only call is flagged`, async () => {
    const { page, meta } = await called(name);
    assert.match(meta.broke?.text ?? '', words, JSON.stringify(meta));
    assert.match((await flagged(page, name)).broke, words);
    await page.close();
  });
}

test("an honest tool that reads storage by property is never flagged, nor the page's own property writes outside a call", async () => {
  const { page, tabId } = await h.open(HOST, '/hidden.html?reads');
  assert.equal(await page.evaluate(() => window.background()), 'done');
  const chat = await h.chat();
  const first = await h.runs(chat, tabId, 'property_reads');
  assert.equal(first.result._meta.toolgate.broke, undefined, JSON.stringify(first.result._meta));
  assert.equal(await page.evaluate(() => window.background()), 'done');
  const second = await h.runs(chat, tabId, 'property_reads');
  assert.equal(second.result._meta.toolgate.broke, undefined, JSON.stringify(second.result._meta));
  await noneFlagged(page, ['property_reads']);
  await page.close();
});

test('another tab of the site writing localStorage during an honest call is told, never pinned on the call', async () => {
  const { page, tabId } = await h.open(HOST, '/hidden.html?held');
  const other = await h.open(HOST, '/hidden.html?other');
  const holding = h.start(await h.chat(), h.request(tabId, 'held_read'));
  await page.waitForFunction(() => typeof window.release === 'function');
  await page.evaluate(() => {
    window.heard = new Promise((resolve) => addEventListener('storage', (e) => { if (e.key === 'heartbeat') resolve(); }));
  });
  await other.page.evaluate(() => { localStorage.heartbeat = String(Date.now()); });
  await page.evaluate(() => window.heard);
  await page.evaluate(() => window.release());
  const { reply } = await holding;
  assertRan(reply, 'held_read');
  const meta = reply.result._meta.toolgate;
  assert.equal(meta.broke, undefined, JSON.stringify(meta));
  assert.deepEqual(meta.seen, [{ done: 'wrote, or another window of the site wrote, localStorage', to: 'heartbeat' }]);
  await noneFlagged(page, ['held_read']);
  await other.page.close();
  await page.close();
});

test('storage too large to compare is told as "cannot tell", never flagged; a key added to it is still seen', async () => {
  const { page, tabId } = await h.open(HOST, '/hidden.html?big');
  assert.equal(await page.evaluate(() => window.fill()), 'done');
  const chat = await h.chat();
  const rewrite = (await h.runs(chat, tabId, 'big_rewrite')).result._meta.toolgate;
  assert.equal(rewrite.broke, undefined, JSON.stringify(rewrite));
  assert.deepEqual(rewrite.seen, [{
    done: 'could not compare sessionStorage (too large to check): Toolgate cannot tell whether it was written', to: '',
  }]);
  const add = (await h.runs(chat, tabId, 'big_add')).result._meta.toolgate;
  assert.equal(add.broke?.text, 'said Read only; during a call it changed sessionStorage (too large to say which key)', JSON.stringify(add));
  await noneFlagged(page, ['big_rewrite']);
  await page.close();
});

test('a window a Read only tool opened is part of its call: a POST from it is flagged', async () => {
  const { page, meta } = await called('opens_poster');
  const words = /^said Read only; during a call it opened a window that sent POST \/api\/notes\/delete\.json/;
  assert.match(meta.broke?.text ?? '', words, JSON.stringify(meta));
  assert.match((await flagged(page, 'opens_poster')).broke, words);
  await page.close();
});

test("a window a Read only tool opened that writes localStorage is the call's writer, not another window", async () => {
  const { page, meta } = await called('opens_storer');
  const words = /^said Read only; during a call it wrote localStorage opened_wrote/;
  assert.match(meta.broke?.text ?? '', words, JSON.stringify(meta));
  assert.match((await flagged(page, 'opens_storer')).broke, words);
  await page.close();
});

test('a form a Read only tool posts into a new window is flagged', async () => {
  const { page } = await called('opens_posting');
  const entry = await flagged(page, 'opens_posting');
  assert.match(entry.broke, /^said Read only; during a call it opened a window with POST \/api\/notes\/purge\.html/);
  await page.close();
});

test('a form posted into a window the tool opened, a second after the call answered, is still its call\'s: flagged', async () => {
  const { page, meta } = await called('opens_posting_late');
  assert.equal(meta.broke, undefined, 'nothing was seen before the reply');
  const entry = await flagged(page, 'opens_posting_late');
  assert.match(entry.broke, /^said Read only; during a call it opened a window with POST \/api\/notes\/purge\.html/);
  await page.close();
});

test('a window an honest Read only tool opened, which only reads, is not flagged', async () => {
  const { page, meta } = await called('opens_reader');
  assert.equal(meta.broke, undefined, JSON.stringify(meta));
  assert.ok(meta.seen.some((s) => s.done === 'opened a window at' && s.to === '/opened.html?read'), JSON.stringify(meta.seen));
  await noneFlagged(page, ['opens_reader']);
  await page.close();
});
