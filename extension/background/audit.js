// The audit (docs/rules.md, "Every site, side by side, and the audit"):
// every change of the site rules, every answer to a card and every decision
// an agent was told, appended as it happens to the audit's database
// (shared/audit-db.js), each entry linked to the one before it by SHA-256
// (the core's `auditLink`, src/audit.rs), for the settings page to show,
// check and export. Entries are gathered for a moment and appended together,
// in one transaction, so that an agent's call never waits on a write of its
// own; nothing already written is written again.
//
// Two logs, kept apart, each with its own room (ARCHITECTURE.md, "Budgets"):
// - the person's: rule changes, answers, the administrator's policy. Only a
//   person makes these, so page traffic can never evict one;
// - the agents': what each agent was told. Pages and agents drive these, as
//   many as they like, with texts as long as they like (a forged call's tool
//   name of 8 MB): each text is cut, and the log is held to a count and a
//   size, its oldest entries let go first.
import { auditBreaks, auditLink } from '../../pkg/toolgate.js';
import {
  AUDIT_CHANNEL, committed, done, entriesOf, LOGS, metaOf, openAudit, readLogs,
} from '../shared/audit-db.js';
import { ready } from './core.js';
import { keepError } from './errors.js';
import { sendAudit } from './otlp.js';

// Where an earlier release kept the logs, whole, in chrome.storage.local:
// carried over once into the database (`carryOver`).
const STORED_KEYS = { person: 'audit', agents: 'audit:agents' };
const KEEP = 1000;
// How many more than KEEP a log holds before its oldest go, together.
const LET_GO = 100;
// The agents' log's most bytes (as UTF-8 JSON), and the most characters of
// any one text in it.
const AGENTS_BYTES = 512 * 1024;
const TEXT_KEPT = 1000;
const GATHER_MS = 250;

// What an entry about an agent's request says beyond its reply: the chat's
// name (as it opened), the tool and its tab, noted as the request comes in
// (agents.js) and taken when its reply goes out (replies.js). The tab's site
// is looked up as the entry is written. Bounded: a request never answered
// ages out.
const chatNames = new Map(); // chat id -> its name on cards
const requests = new Map(); // "chat\0id" -> { tool, tab }
const NOTED = 1000;
const requestKey = (chat, id) => `${chat}\u0000${JSON.stringify(id)}`;
export function chatNamed(chat, label) {
  chatNames.delete(chat);
  chatNames.set(chat, bounded(String(label)));
  if (chatNames.size > NOTED) chatNames.delete(chatNames.keys().next().value);
}
export function requestCame(chat, request) {
  const args = request?.params?.arguments;
  if (request?.method !== 'tools/call' || typeof args !== 'object' || args === null) return;
  const tool = typeof args.name === 'string' ? bounded(args.name) : undefined;
  const tab = Number.isInteger(args.tabId) ? args.tabId : undefined;
  requests.set(requestKey(chat, request.id ?? null), { tool, tab });
  if (requests.size > NOTED) requests.delete(requests.keys().next().value);
}
// What is known of request `id` of `chat`, taken once.
export function aboutRequest(chat, id) {
  const key = requestKey(chat, id);
  const about = requests.get(key) ?? {};
  requests.delete(key);
  return { by: chatNames.get(chat), ...about };
}

// Each log's entries as they came: when, and what makes the entry. An entry
// is made whole (read, each text cut) as its batch is written, not as it
// comes, so that an agent's reply never waits on its audit (ARCHITECTURE.md,
// "An agent call's path").
let gathered = { person: [], agents: [] };
let timer = null;
let writing = Promise.resolve();

// The audit on or off: only the benchmark of what it costs a call turns it
// off (benches/README.md, figure 15); a worker always starts with it on.
let auditing = true;
export function auditCalls(on) {
  auditing = on === true;
}

export function record(entry) {
  // A tool flagged for what a page did during a call is the page's doing too,
  // and so is a change of a page's tools during a chat (pages.js). An answer
  // carries the card's tool and chat names (already cut by the core); every
  // text is held to TEXT_KEPT as the entry is written.
  const pages = entry.what === 'decision' || entry.what === 'flagged' || entry.what === 'tool_change';
  gather(pages ? 'agents' : 'person', () => entry);
}

// The decision an agent was told: `made()` gives its entry (or null, for
// none) when the batch is written. What it reads must not change meanwhile.
export function recordDecision(made) {
  gather('agents', made);
}

function gather(log, made) {
  if (!auditing) return;
  gathered[log].push({ at: Date.now(), made });
  if (timer === null) timer = setTimeout(write, GATHER_MS);
}

// The entries of a batch, made whole; one that cannot be made is left out.
function made(items) {
  const entries = [];
  for (const { at, made: make } of items) {
    try {
      const entry = make();
      if (entry) entries.push(bounded({ at, ...entry }));
    } catch (error) {
      keepError('writing an audit entry', error);
    }
  }
  return entries;
}

// `value` with every text cut to TEXT_KEPT characters ("…" marks a cut).
function bounded(value) {
  if (typeof value === 'string') return value.length > TEXT_KEPT ? `${value.slice(0, TEXT_KEPT)}…` : value;
  if (Array.isArray(value)) return value.map(bounded);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [bounded(key), bounded(item)]));
  }
  return value;
}

const encoder = new TextEncoder();
// What each stored entry costs the log's room: its text as UTF-8, its two
// hashes and its number.
const entryBytes = (text) => encoder.encode(text).length + 2 * 64 + 16;
// Bytes handed to the database since this worker started: entries and each
// log's state (the benchmark of what an agent's call costs storage reads it).
let storedBytes = 0;

// The database, opened once a worker start, what an earlier release kept
// carried over first.
let database = null;
function audit() {
  database ??= openAudit().then(async (db) => {
    await carryOver(db);
    return db;
  });
  database.catch(() => { database = null; });
  return database;
}

const channel = new BroadcastChannel(AUDIT_CHANNEL);

function write() {
  timer = null;
  const batch = { person: made(gathered.person), agents: made(gathered.agents) };
  gathered = { person: [], agents: [] };
  writing = writing.then(async () => {
    await withSites(batch.agents);
    sendAudit(batch);
    await ready;
    await append(await audit(), batch);
    channel.postMessage('appended');
  }).catch((error) => keepError('writing the audit', error)); // A lost batch must not stop what it records.
}

// Appends `batch` ({person, agents}: entries, oldest first) to the logs in
// one transaction, each entry linked to the one before it, a log's entries of
// the moment in one record (one put a log: a put an entry cost a call 6 %,
// benches/JOURNAL.md), and lets the oldest go past each log's bounds;
// `extra` records are put in `meta` with it.
async function append(db, batch, extra = []) {
  const logs = LOGS.filter((log) => batch[log].length);
  if (!logs.length && !extra.length) return;
  const transaction = db.transaction([...logs, 'meta'], 'readwrite');
  const meta = transaction.objectStore('meta');
  for (const log of logs) {
    const state = metaOf(await done(meta.get(log)), log);
    const store = transaction.objectStore(log);
    const record = { seq: state.next, entries: [], bytes: 0 };
    for (const entry of batch[log]) {
      const text = JSON.stringify(entry);
      const hash = auditLink(state.last, text);
      record.entries.push({ seq: state.next, prev: state.last, hash, text });
      record.bytes += entryBytes(text);
      state.next += 1;
      state.last = hash;
    }
    store.put(record);
    state.count += record.entries.length;
    state.bytes += record.bytes;
    storedBytes += record.bytes;
    // Past its bounds by LET_GO entries, or by its bytes, a log lets go
    // of its oldest down to KEEP and a tenth of its bytes below the bound.
    const agents = log === 'agents';
    if (state.count > KEEP + LET_GO || (agents && state.bytes > AGENTS_BYTES)) {
      await letGo(store, state, () => state.count <= KEEP && (!agents || state.bytes <= AGENTS_BYTES * 0.9));
    }
    meta.put(state);
    storedBytes += encoder.encode(JSON.stringify(state)).length;
  }
  for (const record of extra) meta.put(record);
  await committed(transaction);
}

// Lets the log's oldest records go, until it is `within` its bounds (each
// step two requests: read the oldest, delete up to the last of them); the
// hash of the last entry let go is kept, which the first kept entry follows.
async function letGo(store, state, within) {
  while (!within()) {
    const oldest = await done(store.getAll(null, 16));
    let last = null;
    for (const record of oldest) {
      if (within()) break;
      const entries = Array.isArray(record.entries) ? record.entries : [];
      state.count -= entries.length;
      state.bytes -= record.bytes ?? 0;
      if (entries.length) state.before = entries[entries.length - 1].hash;
      last = record.seq;
    }
    if (last === null) return;
    store.delete(IDBKeyRange.upperBound(last));
  }
}

// The logs an earlier release kept in chrome.storage.local, appended once,
// oldest first, with a mark in the same transaction; then removed.
async function carryOver(db) {
  const carried = await done(db.transaction('meta').objectStore('meta').get('carried'));
  const keys = Object.values(STORED_KEYS);
  if (!carried) {
    const stored = await chrome.storage.local.get(keys);
    const batch = {};
    for (const log of LOGS) {
      const entries = Array.isArray(stored[STORED_KEYS[log]]) ? stored[STORED_KEYS[log]] : [];
      batch[log] = entries.filter((entry) => entry !== null && typeof entry === 'object').map(bounded);
    }
    await ready;
    await append(db, batch, [{ log: 'carried', at: Date.now() }]);
    channel.postMessage('appended');
  }
  await chrome.storage.local.remove(keys);
}

// Each log's entries and whether it is whole (src/audit.rs, `breaks`): for
// the settings page, which shows the entries itself.
export async function auditChain() {
  await ready;
  const { meta, ...logs } = await readLogs(await audit());
  const chain = {};
  for (const log of LOGS) {
    const { before, last } = meta[log];
    chain[log] = { kept: logs[log].length, breaks: JSON.parse(auditBreaks(before, last, JSON.stringify(logs[log]))) };
  }
  return chain;
}

// Every entry of both logs, oldest first, with its link (`entriesOf`), once
// the batches on their way are written: for tests and web developers' CI.
export async function auditEntries() {
  await flushAudit();
  return entriesOf(await readLogs(await audit()));
}

// Appends what is gathered now rather than in a moment; resolves once every
// batch so far is written.
export async function flushAudit() {
  if (timer !== null) {
    clearTimeout(timer);
    write();
  }
  await writing;
}

// What appending the audit has cost storage since this worker started, for
// the benchmark (benches/README.md).
export const auditStored = () => ({ bytes: storedBytes });

// Each entry's `site` from its `tab`, where the tab is still open.
async function withSites(entries) {
  const sites = new Map();
  for (const entry of entries) {
    if (entry.tab === undefined || entry.site !== undefined) continue;
    if (!sites.has(entry.tab)) {
      const tab = await chrome.tabs.get(entry.tab).catch(() => null);
      let site;
      try {
        site = tab?.url ? new URL(tab.url).origin : undefined;
      } catch {
        site = undefined;
      }
      sites.set(entry.tab, site);
    }
    if (sites.get(entry.tab)) entry.site = sites.get(entry.tab);
  }
}

// The changes between two rule books, one entry each.
export function ruleChanges(before, after) {
  const changes = [];
  if (Boolean(before?.unattended) !== Boolean(after?.unattended)) {
    changes.push({ what: 'unattended', to: Boolean(after?.unattended) });
  }
  const sites = new Set([...Object.keys(before?.sites ?? {}), ...Object.keys(after?.sites ?? {})]);
  for (const site of sites) {
    const was = before?.sites?.[site];
    const is = after?.sites?.[site];
    if (!was || !is) {
      changes.push({ what: 'rules', site, from: was ?? null, to: is ?? null });
      continue;
    }
    for (const kind of ['read', 'write', 'delete', 'outside']) {
      if (was[kind] !== is[kind]) changes.push({ what: 'rule', site, kind, from: was[kind], to: is[kind] });
    }
    // Tools registered by other sites' scripts: Ask first where unset.
    if ((was.scripts ?? 'ask_first') !== (is.scripts ?? 'ask_first')) {
      changes.push({ what: 'rule', site, kind: 'scripts', from: was.scripts ?? 'ask_first', to: is.scripts ?? 'ask_first' });
    }
    // Conditions on tools' arguments and limits on how often (docs/rules.md).
    for (const part of ['areas', 'tools', 'conditions', 'limits']) {
      if (JSON.stringify(was[part] ?? {}) !== JSON.stringify(is[part] ?? {})) {
        const none = part === 'limits' ? [] : {};
        changes.push({ what: part, site, from: was[part] ?? none, to: is[part] ?? none });
      }
    }
  }
  return changes;
}
