// Hints held to their word (docs/classes.md): a tool that says it only reads
// and then changes something during an agent's call is flagged in the
// palette, recorded in the audit, and from then on confirmed per call, on
// every chat, until the person clears it; re-registering it does not clear
// it. tests/pages/conduct has one such tool for each way a page writes, an
// honest one, and writes the page makes on its own, outside any call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TOOLGATE_ID, entries } from '../support/browser.mjs';
import { assertRan, harness } from '../support/fixture.mjs';
import { auditOnce } from '../support/audit.mjs';
import { choose, readCard } from '../support/cards.mjs';
import { answersOf, labelsOf } from '../../lib/cards.mjs';

const h = harness({ pages: 'tests/pages/conduct', tools: 12 });
const HOST = 'notes.localhost';

// The palette's entry for `name`, once `test` holds for it.
async function entryOnceIt(page, name, test, what) {
  const palette = await h.browser.waitForPalette(page, (p) => {
    const entry = entries(p).find((e) => e.name === name);
    return entry !== undefined && test(entry);
  }, `${name} ${what}`);
  return entries(palette).find((e) => e.name === name);
}
const flagged = (page, name) => entryOnceIt(page, name, (e) => e.broke !== undefined, 'flagged');

// The audit's entries of `kind` in `log` ('person' or 'agents'), once one
// is about `tool`: the audit gathers entries a moment before it writes them,
// so the test waits for the write.
const audited = async (log, kind, tool) => auditOnce(await h.browser.worker(), { what: kind, tool, log });

// The next call of `name` asks on a call card that says why; allowed once, it runs.
async function confirmedPerCall(chat, tabId, name) {
  const { card, reply } = await h.asks(chat, tabId, name, {}, 'call');
  const shown = await readCard(card);
  assert.equal(shown.class, 'Consequential', `${name} is treated as Consequential`);
  assert.match(shown.lines.join(' '), new RegExp(`Toolgate asks about every call of “${name}” and treats it as Consequential: it said (Read only|openWorldHint: false); during a call it `));
  const labels = labelsOf(await answersOf(card));
  assert.ok(!labels.some((label) => label.startsWith('Always allow') || label.startsWith('Allow all')), `only this call: ${labels}`);
  await choose(card, 'Allow this call only');
  assertRan(await reply, name);
}

const LIARS = [
  ['post_fetch', 'POSTs with fetch', /^said Read only; during a call it sent POST \/api\/notes\/delete\.json/],
  ['beacon', 'sends a beacon', /^said Read only; during a call it sent a beacon, POST \/api\/log\.json/],
  ['write_local', 'writes localStorage', /^said Read only; during a call it wrote localStorage last_read/],
  ['delete_record', 'deletes an IndexedDB record', /^said Read only; during a call it deleted from IndexedDB notes\/items/],
  ['set_cookie', 'sets a cookie', /^said Read only; during a call it set the cookie seen/],
  ['set_cookie_hidden', 'sets a cookie with String.prototype rewritten to hide its name', /^said Read only; during a call it set the cookie hidden/],
  ['submit_form', 'submits a form', /^said Read only; during a call it navigated a frame with POST \/api\/notes\/purge\.html/],
];

for (const [name, does, words] of LIARS) {
  test(`a Read only tool that ${does} is flagged, audited, and then confirmed per call`, async () => {
    const { page, tabId } = await h.open(HOST, `/?${name}`);
    const chat = await h.chat();
    // On localhost no site question: it runs at once, as a Read only tool.
    const first = await h.runs(chat, tabId, name);
    const entry = await flagged(page, name);
    assert.match(entry.broke, words);
    assert.equal(entry.badge, 'Read only', 'the class its hints give is still shown');
    // What the browser or the page saw before the answer is in the reply.
    if (name !== 'beacon' && name !== 'submit_form') {
      assert.equal(first.result._meta.toolgate.broke?.said, 'Read only', JSON.stringify(first.result._meta));
      assert.match(first.result._meta.toolgate.broke.text, words);
    }
    const audit = await audited('agents', 'flagged', name);
    assert.ok(audit.some((e) => e.tool === name && words.test(e.text)), `audited: ${JSON.stringify(audit)}`);
    await confirmedPerCall(chat, tabId, name);
    // Every chat: another one is asked too.
    await confirmedPerCall(await h.chat(), tabId, name);
    await page.close();
  });
}

test('a Read only tool that navigates the tab is flagged, and asked about when the page is back', async () => {
  const { page, tabId } = await h.open('away.localhost', '/?navigate');
  const chat = await h.chat();
  const navigated = page.waitForURL('**/next.html');
  await h.start(chat, h.request(tabId, 'navigate'));
  await navigated;
  await page.goto(h.server.url('away.localhost', '/?navigate-again'));
  const entry = await flagged(page, 'navigate');
  assert.match(entry.broke, /^said Read only; during a call it navigated the tab to \/next\.html/);
  await confirmedPerCall(chat, tabId, 'navigate');
  await page.close();
});

test("an honest Read only tool is never flagged, nor one the page's own writes outside a call could be pinned on", async () => {
  const { page, tabId } = await h.open('honest.localhost', '/?honest');
  // The page writes everything it can, on its own, before any call.
  assert.equal(await page.evaluate(() => window.background()), 'done');
  const chat = await h.chat();
  const reply = await h.runs(chat, tabId, 'honest');
  assert.equal(reply.result._meta.toolgate.broke, undefined);
  assert.deepEqual(reply.result._meta.toolgate.seen?.map((s) => s.done), ['sent GET'], 'its GET is told, and judged harmless');
  // A second call, after the page's writes and the first call's: still nothing.
  await h.runs(chat, tabId, 'honest');
  const palette = await h.browser.palette(page);
  assert.ok(entries(palette).every((e) => e.broke === undefined), 'nothing flagged');
  await page.close();
});

test('a re-registered tool keeps its flag, changed or not, until the person clears it in the palette', async () => {
  const { page, tabId } = await h.open('again.localhost', '/?again');
  const chat = await h.chat();
  await h.runs(chat, tabId, 'write_local');
  await flagged(page, 'write_local');
  // The same definition, then a changed one, registered again in the document.
  assert.equal(await page.evaluate(() => window.again('write_local')), 'registered again');
  assert.match((await flagged(page, 'write_local')).broke, /^said Read only/);
  assert.equal(await page.evaluate(() => window.again('write_local', 'Reads the last note, honestly')), 'registered again');
  await entryOnceIt(page, 'write_local', (e) => e.description === 'Reads the last note, honestly' && e.broke !== undefined, 'changed, still flagged');
  // A new document registers it again, and a new worker starts from what
  // was stored: still flagged.
  await page.goto(h.server.url('again.localhost', '/?changed'));
  await h.restartWorker();
  await flagged(page, 'write_local');
  await confirmedPerCall(chat, tabId, 'write_local');

  // The person clears it in the palette: it runs without a card again, and
  // is flagged again only if it writes again (it does: that call is watched).
  const popup = await h.browser.context.newPage();
  await popup.goto(`chrome-extension://${TOOLGATE_ID}/extension/ui/palette.html?tab=${tabId}`);
  await popup.getByRole('button', { name: /write_local/ }).click();
  await popup.getByText(/Toolgate asks about every call of it: it said Read only/).waitFor();
  await popup.getByRole('button', { name: 'Clear: trust its hints again' }).click();
  await entryOnceIt(page, 'write_local', (e) => e.broke === undefined, 'cleared');
  await popup.close();
  // The person clearing it is in their own audit (it resolves once it is).
  await audited('person', 'cleared', 'write_local');
  await h.runs(chat, tabId, 'write_local');
  await flagged(page, 'write_local');
  await page.close();
});

test('the settings page lists a flagged tool, and clearing it there trusts its hints again', async () => {
  const { page, tabId } = await h.open('settings.localhost', '/?settings');
  const chat = await h.chat();
  await h.runs(chat, tabId, 'set_cookie');
  await flagged(page, 'set_cookie');
  const settings = await h.browser.context.newPage();
  await settings.goto(`chrome-extension://${TOOLGATE_ID}/extension/ui/options.html`);
  const item = settings.locator('#broken li', { hasText: `${h.site('settings.localhost')}: set_cookie` });
  await item.getByText('said Read only; during a call it set the cookie seen').waitFor();
  await item.getByRole('button', { name: `Clear set_cookie on ${h.site('settings.localhost')}` }).click();
  await item.waitFor({ state: 'detached' });
  await settings.close();
  await entryOnceIt(page, 'set_cookie', (e) => e.broke === undefined, 'cleared');
  await page.close();
});

test('two calls that overlap in a tab are each told so, and what is seen meanwhile is told as cannot tell, not flagged', async () => {
  const { page, tabId } = await h.open('overlap.localhost', '/?overlap');
  const chat = await h.chat();
  const holding = h.start(chat, h.request(tabId, 'held'));
  await page.waitForFunction(() => typeof window.release === 'function');
  const posted = await h.start(chat, h.request(tabId, 'post_fetch'));
  assertRan(posted.reply, 'post_fetch');
  await page.evaluate(() => window.release());
  const held = await holding;
  assertRan(held.reply, 'held');
  assert.equal(posted.reply.result._meta.toolgate.overlapped, true, 'the second call is told of the first');
  assert.equal(held.reply.result._meta.toolgate.overlapped, true, 'the first call is told of the second');
  // docs/classes.md, "Two calls at once": Toolgate cannot tell which call
  // sent the POST, so both replies say so, and neither tool is flagged.
  for (const { reply } of [posted, held]) {
    const told = reply.result._meta.toolgate;
    const post = told.seen?.find((s) => s.done === 'sent POST' && s.to === '/api/notes/delete.json');
    assert.equal(post?.cannot_tell, true, JSON.stringify(told));
    assert.equal(post.why, 'another call ran in the tab at the same time');
    assert.equal(told.broke, undefined, JSON.stringify(told));
  }
  const after = entries(await h.browser.palette(page));
  for (const name of ['post_fetch', 'held']) {
    assert.equal(after.find((e) => e.name === name).broke, undefined, `${name} is not flagged`);
  }
  await page.close();
});

test('a call whose tool never answers is given up on: its signal aborts, and a later call in the tab is judged, not told as cannot tell', async () => {
  const { page, tabId } = await h.open('stuck.localhost', '/?stuck');
  const sw = await h.browser.worker();
  await sw.evaluate(() => self.toolgate.configure({ callTimeoutMs: 300 }));
  try {
    const chat = await h.chat();
    const stuck = await h.start(chat, h.request(tabId, 'held'));
    assert.match(h.text(stuck.reply), /held did not answer within/);
    // A second after the timeout, the page's side gives up too.
    assert.equal(await page.evaluate(() => window.heldAborted), true, 'the tool\'s signal aborted');
    await sw.evaluate(() => self.toolgate.configure({ callTimeoutMs: 60_000 }));
    const written = await h.runs(chat, tabId, 'write_local');
    const told = written.result._meta.toolgate;
    assert.equal(told.overlapped, undefined, JSON.stringify(told));
    assert.match(told.broke?.text ?? '', /^said Read only; during a call it wrote localStorage last_read/, JSON.stringify(told));
    await flagged(page, 'write_local');
  } finally {
    await sw.evaluate(() => self.toolgate.configure({ callTimeoutMs: 60_000 }));
    await page.close();
  }
});

test('a Mutating tool that says it stays on its site and reaches another is flagged, with the off-site badge', async () => {
  const { page, tabId } = await h.open('pins.localhost', '/?pins');
  const before = entries(await h.browser.palette(page)).find((e) => e.name === 'pin_note');
  assert.equal(before.badge, 'Mutating');
  assert.ok(!before.badges.includes('off-site'), 'it declared openWorldHint: false');
  const chat = await h.chat();
  // A Mutating tool is asked about on localhost; allowed once, it runs.
  const { card, reply } = await h.asks(chat, tabId, 'pin_note', {}, 'call');
  await choose(card, 'Allow this call only');
  assert.equal((await reply).result._meta.toolgate.broke.said, 'openWorldHint: false');
  const entry = await flagged(page, 'pin_note');
  assert.equal(entry.broke, `said openWorldHint: false; during a call it sent POST http://tracker.localhost:${h.server.port}/api/log.json`);
  assert.ok(entry.badges.includes('off-site'), 'the off-site badge appears, with the reason');
  await confirmedPerCall(chat, tabId, 'pin_note');
  await page.close();
});

test('a tool that declares untrustedContentHint shows its badge, and its reply says so for the agent', async () => {
  const { page, tabId } = await h.open('reviews.localhost', '/?reviews');
  const entry = entries(await h.browser.palette(page)).find((e) => e.name === 'search_reviews');
  assert.ok(entry.badges.includes('untrusted content'), `badges: ${entry.badges}`);
  const reply = await h.runs(await h.chat(), tabId, 'search_reviews');
  assert.equal(reply.result._meta.toolgate.untrusted_content, true);
  const other = await h.runs(await h.chat(), tabId, 'honest');
  assert.equal(other.result._meta.toolgate.untrusted_content, undefined, 'only where the tool declared it');
  await page.close();
});
