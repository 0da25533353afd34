import { askWorker } from '../shared/chromium-errors.js';

// One change of a site's rules, from Toolgate's settings pages: the
// worker's core checks it (the limits, the tools seen on the site) and
// stores it whole or not at all (docs/rules.md). Resolves to the reason it
// was refused, or null once it is saved. A worker that stopped before it
// answered may or may not have stored it: the person is told so, and the
// page shows what is stored.
export async function changeRules(site, changes) {
  try {
    const answer = await askWorker({ type: 'change_rules', site, changes });
    return answer?.error ?? null;
  } catch (error) {
    return String(error?.message ?? error);
  }
}

// Why `level` cannot be chosen where an administrator's policy set `bound`
// for the same kind, area or tool (docs/rules.md, "Who can change the
// rules"): their words (`words.wider_than_admin`, from the core), or null.
// `words.levels` runs from the widest level to the narrowest.
export function widerThanAdmin(words, bound, level) {
  const order = words.levels.map(({ key }) => key);
  if (!order.includes(bound) || order.indexOf(level) >= order.indexOf(bound)) return null;
  return words.wider_than_admin.find(([value]) => value === bound)[1];
}
