// One change of a site's rules, from Toolgate's settings pages: the
// worker's core checks it (the limits, the tools seen on the site) and
// stores it whole or not at all (docs/rules.md). Resolves to the reason it
// was refused, or null once it is saved.
export async function changeRules(site, changes) {
  const answer = await chrome.runtime.sendMessage({ type: 'change_rules', site, changes });
  return answer?.error ?? null;
}
