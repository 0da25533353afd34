// The audit (docs/rules.md, "Audit"): every change of the site rules, every
// answer to a card and every decision an agent was told, kept in
// chrome.storage.local for the settings page to show and export as JSON.
// Entries are gathered for a moment and written together, so that an
// agent's call never waits on a write of its own.
//
// Two logs, kept apart, each with its own room (ARCHITECTURE.md, "Budgets"):
// - the person's: rule changes, answers, the administrator's policy. Only a
//   person makes these, so page traffic can never evict one;
// - the agents': what each agent was told. Pages and agents drive these, as
//   many as they like, with texts as long as they like (a forged call's tool
//   name of 8 MB): each text is cut, and the log is held to a count and a
//   size, so that it can never fill the storage the rules, the settings and
//   the allowed extensions share.
import { keepError } from './errors.js';
import { sendAudit } from './otlp.js';

const AUDIT_KEYS = { person: 'audit', agents: 'audit:agents' };
const KEEP = 1000;
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

export function record(entry) {
  // A tool flagged for what a page did during a call is the page's doing too.
  // An answer carries the card's tool and chat names (already cut by the
  // core); every text is held to TEXT_KEPT as the entry is written.
  gather(entry.what === 'decision' || entry.what === 'flagged' ? 'agents' : 'person', () => entry);
}

// The decision an agent was told: `made()` gives its entry (or null, for
// none) when the batch is written. What it reads must not change meanwhile.
export function recordDecision(made) {
  gather('agents', made);
}

function gather(log, made) {
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

const bytes = new TextEncoder();
// Each entry's size as UTF-8 JSON, measured once: the log is measured again
// at every write (ARCHITECTURE.md, "An agent call's path").
const sizes = new WeakMap();
function sizeOf(entry) {
  let size = sizes.get(entry);
  if (size === undefined) {
    size = bytes.encode(JSON.stringify(entry) ?? 'null').length + 1;
    // What storage held may be anything: only an object can be a key.
    if (entry !== null && typeof entry === 'object') sizes.set(entry, size);
  }
  return size;
}
// The newest of `entries` that fit `limit` bytes of JSON.
function fitting(entries, limit) {
  let total = 2;
  let from = entries.length;
  while (from > 0) {
    const size = sizeOf(entries[from - 1]);
    if (total + size > limit) break;
    total += size;
    from -= 1;
  }
  return from === 0 ? entries : entries.slice(from);
}

// Each log as this worker last wrote it: only the worker writes the logs, so
// each is read from storage once a start, at its first write.
const written = { person: null, agents: null };

function write() {
  timer = null;
  const batch = { person: made(gathered.person), agents: made(gathered.agents) };
  gathered = { person: [], agents: [] };
  writing = writing.then(async () => {
    // Only the logs this batch adds to are read and written.
    const logs = Object.keys(batch).filter((log) => batch[log].length);
    await withSites(batch.agents);
    sendAudit(batch);
    const unread = logs.filter((log) => written[log] === null);
    const stored = unread.length ? await chrome.storage.local.get(unread.map((log) => AUDIT_KEYS[log])) : {};
    for (const log of unread) written[log] = Array.isArray(stored[AUDIT_KEYS[log]]) ? stored[AUDIT_KEYS[log]] : [];
    const changes = {};
    for (const log of logs) {
      const entries = [...written[log], ...batch[log]].slice(-KEEP);
      written[log] = log === 'agents' ? fitting(entries, AGENTS_BYTES) : entries;
      changes[AUDIT_KEYS[log]] = written[log];
    }
    await chrome.storage.local.set(changes);
  }).catch(() => {}); // A lost batch of the audit must not stop what it records.
}

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
