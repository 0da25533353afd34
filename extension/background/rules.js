// The site rules (docs/rules.md): kept in chrome.storage.local under
// RULES_KEY, written only by Toolgate's own settings page (no agent channel
// reaches them), and handed to the core whole whenever they change, in the
// session's turn, so that they apply from every agent's next request.
// Also the sites whose tools have been seen, which the settings page lists.
import { ready, RULES_KEY, serially } from './core.js';
import { record, ruleChanges } from './audit.js';
import { keepError } from './errors.js';

export const SEEN_KEY = 'sites_seen';

// chrome.storage.onChanged: the settings page changed the rules.
export function onRulesChanged(changes, area) {
  if (area !== 'local' || !(RULES_KEY in changes)) return;
  const rules = changes[RULES_KEY].newValue ?? {};
  for (const change of ruleChanges(changes[RULES_KEY].oldValue, rules)) record(change);
  serially(async () => {
    const core = await ready;
    core.setRules(JSON.stringify(rules));
  }).catch((error) => keepError('applying the changed site rules', error));
}

// The sites seen publishing tools, as their origins; read once per worker.
let seen = null;
let writing = Promise.resolve();
export function siteSeen(origin) {
  if (typeof origin !== 'string' || origin === 'null' || !/^https?:\/\//.test(origin)) return;
  writing = writing.then(async () => {
    if (!seen) {
      const { [SEEN_KEY]: stored } = await chrome.storage.local.get(SEEN_KEY);
      seen = new Set(Array.isArray(stored) ? stored.filter((s) => typeof s === 'string') : []);
    }
    if (seen.has(origin)) return;
    seen.add(origin);
    await chrome.storage.local.set({ [SEEN_KEY]: [...seen].sort() });
  }).catch((error) => keepError(`recording that ${origin} publishes tools`, error));
}
