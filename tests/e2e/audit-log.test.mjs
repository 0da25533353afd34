// The audit's log (docs/rules.md, "Every site, side by side, and the
// audit"): appended as it happens to a database in the extension's own
// origin, each entry linked to the one before it by SHA-256. What an earlier
// release kept in chrome.storage.local is carried over once, nothing lost; a
// thousand agent calls are all shown, newest first, and the chain says the
// log is whole; an entry removed behind Toolgate's back shows as a break,
// where it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from '../support/fixture.mjs';
import { choose } from '../support/cards.mjs';
import { auditOnce } from '../support/audit.mjs';

const h = harness({ pages: 'tests/pages/answers', tools: 11 });

const settingsUrl = async () => (await h.browser.worker()).evaluate(() => chrome.runtime.getURL('extension/ui/options.html'));

// Runs first, in a fresh profile: nothing has opened the audit's database yet.
test("the audit an earlier release kept in local storage is carried over once, in order, nothing lost, and the chain is whole", async () => {
  const sw = await h.browser.worker();
  // Today's release's format: two arrays of entries, oldest first.
  const person = [
    { at: 1000, what: 'rule', site: 'https://old.test', kind: 'write', from: 'ask_first', to: 'off' },
    { at: 3000, what: 'unattended', to: true },
  ];
  const agents = [
    { at: 2000, what: 'decision', chat: 'c1', request_id: 1, by: 'Old agent', tool: 'list', decision: 'run', why: 'you allowed this call only' },
  ];
  await sw.evaluate(([p, a]) => chrome.storage.local.set({ audit: p, 'audit:agents': a }), [person, agents]);
  // A new entry: the first write opens the database and carries the old logs over first.
  await sw.evaluate(() => chrome.storage.local.set({ rules: { sites: { 'https://new.test': { read: 'allowed', write: 'off', delete: 'off', outside: 'ask_first' } } } }));
  const rules = await auditOnce(sw, { what: 'rules', site: 'https://new.test' });
  assert.equal(rules.length, 1);
  const entries = await sw.evaluate(() => self.toolgate.auditEntries());
  const strip = ({ chain, ...entry }) => entry;
  assert.deepEqual(entries.slice(0, 3).map(strip), [person[0], agents[0], person[1]], 'the old entries, whole and in order');
  assert.deepEqual(entries.filter((e) => e.chain.log === 'person').map((e) => e.chain.seq), [1, 2, 3]);
  assert.deepEqual(await sw.evaluate(() => chrome.storage.local.get(['audit', 'audit:agents'])), {}, 'the old keys are gone');
  const chain = await sw.evaluate(() => self.toolgate.auditChain());
  assert.deepEqual(chain, { person: { kept: 3, breaks: [] }, agents: { kept: 1, breaks: [] } });
});

test('a thousand agent calls are all in the audit, newest first, and the chain says it is whole; a removed entry shows where', { timeout: 180_000 }, async () => {
  const { page, tabId } = await h.open('notes.test');
  const chat = await h.chat('Busy agent');
  const first = await h.asks(chat, tabId, 'list_notes', {}, 'site');
  await choose(first.card, 'Allow non-consequential read/write tools on this website');
  await first.reply;
  const sw = await h.browser.worker();
  // 999 more, one after another, as an agent makes them.
  const ran = await sw.evaluate(async ([c, tab]) => {
    let count = 0;
    for (let i = 0; i < 999; i++) {
      const reply = await self.toolgate.agent(c, {
        jsonrpc: '2.0', id: `many-${i}`, method: 'tools/call',
        params: { name: 'browser_call_webmcp_tool', arguments: { tabId: tab, name: 'list_notes', arguments: {} } },
      });
      if (reply?.result?.isError === false) count += 1;
    }
    return count;
  }, [chat, tabId]);
  assert.equal(ran, 999);
  // The last call's entry is written a moment after its reply.
  await auditOnce(sw, { what: 'decision', id: 'many-998' });
  const all = await sw.evaluate(() => self.toolgate.auditEntries());
  const busy = all.filter((e) => e.what === 'decision' && e.by === 'Busy agent' && e.tool === 'list_notes');
  assert.equal(busy.length, 1000, 'every call is kept');
  const stored = await sw.evaluate(() => self.toolgate.auditStored());
  assert.ok(stored.bytes / 1000 < 2048, `each call cost the audit ${Math.round(stored.bytes / 1000)} bytes of storage`);

  const settings = await h.browser.newPage(await settingsUrl());
  const rows = settings.locator('#audit-rows tr');
  await settings.getByLabel('From site').selectOption({ label: h.site() });
  await settings.getByLabel('Kind of entry').selectOption({ label: 'Decisions' });
  await rows.nth(999).waitFor();
  assert.equal(await rows.count(), 1000);
  const times = await settings.locator('#audit-rows tr td:first-child').allTextContents();
  assert.equal(times.length, 1000);
  await settings.locator('#audit-chain', { hasText: /^The audit is whole/ }).waitFor();
  // The table newest first: its first row the last call's time, its last the first's.
  const shownAs = (at) => settings.evaluate((t) => new Date(t).toLocaleString(), at);
  assert.equal(times[0], await shownAs(busy.at(-1).at));
  assert.equal(times[999], await shownAs(busy[0].at));
  // The export, oldest first, numbers each log's entries in order.
  const exported = await sw.evaluate(() => self.toolgate.auditEntries());
  const seqs = exported.filter((e) => e.by === 'Busy agent' && e.what === 'decision').map((e) => e.chain.seq);
  assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b), 'oldest first in the export');

  // One entry in the middle removed behind Toolgate's back.
  const gone = seqs[500];
  await sw.evaluate((seq) => new Promise((resolve, reject) => {
    const open = indexedDB.open('toolgate-audit');
    open.onsuccess = () => {
      // Entries are kept a moment's at a time, one record each (shared/audit-db.js).
      const transaction = open.result.transaction('agents', 'readwrite');
      const store = transaction.objectStore('agents');
      store.getAll().onsuccess = ({ target }) => {
        const record = target.result.find((r) => r.entries.some((e) => e.seq === seq));
        record.entries = record.entries.filter((e) => e.seq !== seq);
        store.put(record);
      };
      transaction.oncomplete = () => { open.result.close(); resolve(); };
      transaction.onerror = () => reject(transaction.error);
    };
    open.onerror = () => reject(open.error);
  }), gone);
  await settings.reload();
  const said = await settings.locator('#audit-chain', { hasText: /^The audit is not whole/ }).textContent();
  assert.match(said, new RegExp(`entries are missing before entry ${gone + 1} of the agents' log \\(`));
  await settings.close();
  await page.close();
});
