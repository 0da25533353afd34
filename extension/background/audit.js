// The audit (docs/rules.md, "Audit"): every change of the site rules, every
// answer to a card and every decision an agent was told, kept in
// chrome.storage.local, the last KEEP of them, for the settings page to
// export as JSON. Entries are gathered for a moment and written together,
// so that an agent's call never waits on a write of its own.
const AUDIT_KEY = 'audit';
const KEEP = 1000;
const GATHER_MS = 250;

let gathered = [];
let timer = null;
let writing = Promise.resolve();

export function record(entry) {
  gathered.push({ at: Date.now(), ...entry });
  if (timer === null) timer = setTimeout(write, GATHER_MS);
}

function write() {
  timer = null;
  const batch = gathered;
  gathered = [];
  writing = writing.then(async () => {
    const { [AUDIT_KEY]: kept } = await chrome.storage.local.get(AUDIT_KEY);
    const entries = [...(Array.isArray(kept) ? kept : []), ...batch].slice(-KEEP);
    await chrome.storage.local.set({ [AUDIT_KEY]: entries });
  }).catch(() => {}); // A lost batch of the audit must not stop what it records.
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
    for (const part of ['areas', 'tools']) {
      if (JSON.stringify(was[part] ?? {}) !== JSON.stringify(is[part] ?? {})) {
        changes.push({ what: part, site, from: was[part] ?? {}, to: is[part] ?? {} });
      }
    }
  }
  return changes;
}
