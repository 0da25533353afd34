// An administrator's policy (docs/rules.md, "Who can change the rules"), as
// chrome.storage.managed holds it under manifest.json's managed_schema
// (managed-schema.json): unattended mode, rules per site, and the agent
// extensions that may connect. Unmanaged, there is none, and the person is
// the owner.
const LEVELS = ['allowed', 'ask_first', 'off'];
const KINDS = ['read', 'write', 'delete', 'outside'];

// The policy as it was last read, kept in chrome.storage.local: what the
// worker starts from, since Chromium gives the managed storage only some 3 s
// after the browser starts (ARCHITECTURE.md, "The policy at a start").
export const LAST_POLICY_KEY = 'policy_last_read';

// Two policies are the same when their JSON is, whatever the keys' order.
export function samePolicy(a, b) {
  const sorted = (value) => {
    if (Array.isArray(value)) return value.map(sorted);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sorted(value[key])]));
  };
  return JSON.stringify(sorted(a ?? {})) === JSON.stringify(sorted(b ?? {}));
}

// The policy as the managed storage gives it, or {} where the browser has none.
export async function policy() {
  try {
    return await chrome.storage.managed.get(null);
  } catch {
    return {};
  }
}

// The administrator's rule book, for the core, or null when the policy sets
// no rules and no unattended mode. A kind the policy leaves out is not
// bounded (Allowed); a level that is not one is left out.
export function adminBook(managed) {
  if (!managed || (managed.unattended === undefined && managed.sites === undefined)) return null;
  const sites = {};
  for (const [site, rules] of Object.entries(managed.sites && typeof managed.sites === 'object' ? managed.sites : {})) {
    if (!rules || typeof rules !== 'object') continue;
    const levels = (map) => Object.fromEntries(Object.entries(map && typeof map === 'object' ? map : {})
      .filter(([, level]) => LEVELS.includes(level)));
    sites[site] = {
      ...Object.fromEntries(KINDS.map((kind) => [kind, LEVELS.includes(rules[kind]) ? rules[kind] : 'allowed'])),
      areas: levels(rules.areas),
      tools: levels(rules.tools),
    };
  }
  return { unattended: managed.unattended === true, sites };
}

// The agent extensions the policy lets connect, as {id: {label}}.
export function policyExtensions(managed) {
  const list = Array.isArray(managed?.agentExtensions) ? managed.agentExtensions : [];
  return Object.fromEntries(list
    .filter((entry) => typeof entry?.id === 'string' && /^[a-p]{32}$/.test(entry.id))
    .map((entry) => [entry.id, { label: typeof entry.label === 'string' ? entry.label : '' }]));
}
