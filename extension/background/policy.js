// An administrator's policy (docs/rules.md, "Who can change the rules"), as
// chrome.storage.managed holds it under manifest.json's managed_schema
// (managed-schema.json): unattended mode, rules per site, and the agent
// extensions that may connect. Unmanaged, there is none, and the person is
// the owner.
const LEVELS = ['allowed', 'ask_first', 'off'];
const KINDS = ['read', 'write', 'delete', 'outside'];
// Conditions and limits (docs/rules.md, "Conditions on a tool's arguments",
// "Limits on how often"), as the core reads them; an entry of another shape
// is left out, so that one mistake never drops the rest of the policy.
const OPS = ['is', 'is_one_of', 'at_most', 'at_least', 'starts_with', 'ends_with', 'matches'];
const MOST_CONDITIONS = 5;
const MOST_TESTS = 5;
const WINDOWS = [1, 10, 60];

// Chrome's policy schemas have no "any" type, so a test's value is in one
// of five typed keys (docs/rules.md, "Who can change the rules").
const VALUE_KEYS = ['text', 'number', 'flag', 'texts', 'numbers'];
const valueOf = (test) => test[VALUE_KEYS.find((key) => key in test) ?? 'value'];
const isTest = (test) => test && typeof test === 'object' && typeof test.path === 'string'
  && OPS.includes(test.op) && valueOf(test) !== undefined;
const isCondition = (condition) => condition && typeof condition === 'object'
  && ['allowed', 'ask_first'].includes(condition.level) && Array.isArray(condition.when)
  && condition.when.length >= 1 && condition.when.length <= MOST_TESTS && condition.when.every(isTest);

function conditionsOf(map) {
  const out = {};
  for (const [name, list] of Object.entries(map && typeof map === 'object' ? map : {})) {
    if (!Array.isArray(list)) continue;
    const kept = list.filter(isCondition).slice(0, MOST_CONDITIONS)
      .map(({ when, level }) => ({ when: when.map((test) => ({ path: test.path, op: test.op, value: valueOf(test) })), level }));
    if (kept.length) out[name] = kept;
  }
  return out;
}

function limitsOf(list) {
  const targets = { kind: (l) => KINDS.includes(l.kind), area: (l) => typeof l.area === 'string', tool: (l) => typeof l.name === 'string' };
  return (Array.isArray(list) ? list : [])
    .filter((l) => l && typeof l === 'object' && targets[l.target]?.(l)
      && Number.isInteger(l.calls) && l.calls >= 1 && l.calls <= 1000 && WINDOWS.includes(l.minutes))
    .map((l) => ({ target: l.target, ...(l.target === 'kind' ? { kind: l.kind } : l.target === 'area' ? { area: l.area } : { name: l.name }), calls: l.calls, minutes: l.minutes }));
}

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
  if (!managed || (managed.unattended === undefined && managed.sites === undefined && managed.otherSitesScripts === undefined)) return null;
  const sites = {};
  for (const [site, rules] of Object.entries(managed.sites && typeof managed.sites === 'object' ? managed.sites : {})) {
    if (!rules || typeof rules !== 'object') continue;
    const levels = (map) => Object.fromEntries(Object.entries(map && typeof map === 'object' ? map : {})
      .filter(([, level]) => LEVELS.includes(level)));
    sites[site] = {
      ...Object.fromEntries(KINDS.map((kind) => [kind, LEVELS.includes(rules[kind]) ? rules[kind] : 'allowed'])),
      areas: levels(rules.areas),
      tools: levels(rules.tools),
      conditions: conditionsOf(rules.conditions),
      limits: limitsOf(rules.limits),
      ...(LEVELS.includes(rules.otherSitesScripts) ? { scripts: rules.otherSitesScripts } : {}),
    };
  }
  return {
    unattended: managed.unattended === true,
    sites,
    ...(LEVELS.includes(managed.otherSitesScripts) ? { scripts: managed.otherSitesScripts } : {}),
  };
}

// The agent extensions the policy lets connect, as {id: {label}}.
export function policyExtensions(managed) {
  const list = Array.isArray(managed?.agentExtensions) ? managed.agentExtensions : [];
  return Object.fromEntries(list
    .filter((entry) => typeof entry?.id === 'string' && /^[a-p]{32}$/.test(entry.id))
    .map((entry) => [entry.id, { label: typeof entry.label === 'string' ? entry.label : '' }]));
}
