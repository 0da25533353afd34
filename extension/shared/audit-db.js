// The audit's database (docs/rules.md, "Every site, side by side, and the
// audit"; ARCHITECTURE.md, "The audit"): IndexedDB in the extension's own
// origin, which only Toolgate's worker writes and its settings page reads.
// Two logs, each a store of its own so that each keeps its own room:
// `person` (rule changes, answers, the administrator's policy) and `agents`
// (what agents were told, flags). Each record is the entries one moment
// appended, as written: `{seq, entries: [{seq, prev, hash, text}], bytes}`,
// the record's `seq` its first entry's number, `text` an entry's JSON, `hash`
// its link in the log's chain (src/audit/chain.rs). `meta` holds each log's state:
// `{log, next, last, before, count, bytes}`: the next entry's number, the
// last entry's hash, the hash of the last entry the log let go, and how many
// entries and bytes it keeps.

export const AUDIT_DB = 'toolgate-audit';
export const LOGS = ['person', 'agents'];
// Told on this channel after each batch is written, so an open settings page shows it.
export const AUDIT_CHANNEL = 'toolgate-audit';

// `request`'s result, as a promise.
export const done = (request) => new Promise((resolve, reject) => {
  request.onsuccess = () => resolve(request.result);
  request.onerror = () => reject(request.error);
});

// Resolves once `transaction` committed.
export const committed = (transaction) => new Promise((resolve, reject) => {
  transaction.oncomplete = () => resolve();
  transaction.onerror = () => reject(transaction.error);
  transaction.onabort = () => reject(transaction.error ?? new Error('the audit\u2019s write was aborted'));
});

export function openAudit() {
  const request = indexedDB.open(AUDIT_DB, 1);
  request.onupgradeneeded = () => {
    const db = request.result;
    for (const log of LOGS) db.createObjectStore(log, { keyPath: 'seq' });
    db.createObjectStore('meta', { keyPath: 'log' });
  };
  return done(request);
}

// A log's state as `meta` holds it, or a new log's.
export const metaOf = (stored, log) => ({
  log, next: 1, last: '', before: '', count: 0, bytes: 0, ...(stored ?? {}),
});

// A log's records as its entries, oldest first: `{seq, prev, hash, text}`.
const linked = (records) => records.flatMap((record) => (Array.isArray(record.entries) ? record.entries : []));

// Every entry of both logs, oldest first in each, and each log's state.
export async function readLogs(db) {
  const transaction = db.transaction([...LOGS, 'meta'], 'readonly');
  const [person, agents, meta] = await Promise.all([
    done(transaction.objectStore('person').getAll()),
    done(transaction.objectStore('agents').getAll()),
    done(transaction.objectStore('meta').getAll()),
  ]);
  const state = Object.fromEntries(LOGS.map((log) => [log, metaOf(meta.find((m) => m.log === log), log)]));
  return { person: linked(person), agents: linked(agents), meta: state };
}

// Every entry of both logs (as `readLogs` gives them), oldest first, each
// with its link in the chain (`chain`: its log, number, the hash before it
// and its own), as the settings page shows and exports them.
export function entriesOf(logs) {
  return LOGS.flatMap((log) => logs[log].map(({ seq, prev, hash, text }) => ({ ...JSON.parse(text), chain: { log, seq, prev, hash } })))
    .sort((a, b) => a.at - b.at);
}
