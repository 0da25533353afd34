// The site rules (docs/rules.md): kept in chrome.storage.local under
// RULES_KEY, written only by Toolgate's own settings page (no agent channel
// reaches them), and handed to the core whole whenever they change, in the
// session's turn, so that they apply from every agent's next request.
// Also the sites whose tools have been seen, which the settings page lists.
import { changeRules as changeRulesIn } from '../../pkg/toolgate.js';
import { applyPolicy, fromJson, loadRules, ready, RULES_KEY, serially } from './core.js';
import { record, ruleChanges } from './audit.js';
import { keepError } from './errors.js';
import { adminBook, policy } from './policy.js';

export const SEEN_KEY = 'sites_seen';
// The sites kept as they were, without rules (the settings page's "Keep it as it is").
const KEPT_KEY = 'rules_kept';
// The tools seen on each site ({site: [{name, area, kind}]}), which "Set areas
// and tools apart" lists: only they can be set apart (docs/rules.md).
const TOOLS_SEEN_KEY = 'tools_seen';
const MOST_TOOLS_KEPT = 2000;
// Pages drive both records, so both are bounded (ARCHITECTURE.md, "Budgets"):
// the sites seen, the first seen going first; and the tools seen on them all,
// within TOOLS_SEEN_BYTES of JSON, the site remembered longest ago going first.
// A site with rules is listed by the settings page whether seen or not, and
// its tools and areas with a rule by the set-apart page (the rules keep what
// they need: src/decisions/rules.rs, `tools_as_set`).
const MOST_SITES_SEEN = 200;
const TOOLS_SEEN_BYTES = 1024 * 1024;

// chrome.storage.onChanged: the settings page changed the rules, or the
// administrator's policy changed.
export function onRulesChanged(changes, area) {
  // "Keep it as it is" on a site without rules: the page remembers it; the
  // audit records each answer (docs/rules.md, "Audit").
  if (area === 'local' && KEPT_KEY in changes) {
    const list = (value) => new Set(Array.isArray(value) ? value : []);
    const [was, is] = [list(changes[KEPT_KEY].oldValue), list(changes[KEPT_KEY].newValue)];
    for (const site of is) if (!was.has(site)) record({ what: 'kept', site, to: true });
    for (const site of was) if (!is.has(site)) record({ what: 'kept', site, to: false });
  }
  const own = area === 'local' && RULES_KEY in changes;
  if (!own && area !== 'managed') return;
  if (own) for (const change of ruleChanges(changes[RULES_KEY].oldValue, changes[RULES_KEY].newValue ?? {})) record(change);
  if (area === 'managed') record({ what: 'policy', changed: Object.keys(changes) });
  const load = own ? async () => loadRules(await ready) : async () => applyPolicy(await ready, await policy());
  serially(load).catch((error) => keepError('applying the changed site rules', error));
}

// The sites seen publishing tools, as their origins; read once per worker.
let seen = null;
let writing = Promise.resolve();
export function siteSeen(origin) {
  if (typeof origin !== 'string' || origin === 'null' || !/^https?:\/\//.test(origin)) return;
  rememberToolsSoon(origin);
  writing = writing.then(async () => {
    if (!seen) {
      const { [SEEN_KEY]: stored } = await chrome.storage.local.get(SEEN_KEY);
      seen = new Set(Array.isArray(stored) ? stored.filter((s) => typeof s === 'string') : []);
    }
    if (seen.has(origin)) return;
    seen.add(origin);
    // In the order first seen (a Set keeps it): past the bound, the oldest go.
    for (const site of seen) {
      if (seen.size <= MOST_SITES_SEEN) break;
      seen.delete(site);
    }
    await chrome.storage.local.set({ [SEEN_KEY]: [...seen] });
  }).catch((error) => keepError(`recording that ${origin} publishes tools`, error));
}

// The tools a site publishes are remembered a moment after its reports, at
// most once a second per site: a page that re-registers in a loop costs
// one write a second, not one per report.
const remembering = new Map(); // site -> timer
function rememberToolsSoon(site) {
  if (remembering.has(site)) return;
  remembering.set(site, setTimeout(() => {
    remembering.delete(site);
    siteTools(site).catch((error) => keepError(`remembering ${site}'s tools`, error));
  }, 1000));
}

// The tools seen on `site`: those its open tabs publish now, and those seen
// before (kept in chrome.storage.local), each once, by name.
export async function siteTools(site) {
  const live = fromJson((await ready).siteTools(site));
  const { [TOOLS_SEEN_KEY]: stored } = await chrome.storage.local.get(TOOLS_SEEN_KEY);
  const all = stored && typeof stored === 'object' ? stored : {};
  const byName = new Map((Array.isArray(all[site]) ? all[site] : []).map((tool) => [tool.name, tool]));
  for (const tool of live) byName.set(tool.name, tool);
  const tools = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1)).slice(0, MOST_TOOLS_KEPT);
  if (live.length) await chrome.storage.local.set({ [TOOLS_SEEN_KEY]: withinBudget(all, site, tools) });
  return tools;
}

// The tools seen, with `site`'s as the newest: its key goes last, and the
// sites remembered longest ago (the first keys) go while the whole is over
// TOOLS_SEEN_BYTES. One site's own list (MOST_TOOLS_KEPT names) always fits.
function withinBudget(all, site, tools) {
  const kept = { ...all };
  delete kept[site];
  kept[site] = tools;
  let size = JSON.stringify(kept).length;
  for (const other of Object.keys(kept)) {
    if (size <= TOOLS_SEEN_BYTES || other === site) break;
    size -= JSON.stringify({ [other]: kept[other] }).length - 1;
    delete kept[other];
  }
  return kept;
}

// The tools of `site` as the set-apart page lists them: those seen, and
// those the person set apart, which the rules keep as they were set (the
// tools seen are pages' doing, and may have forgotten them); each with what
// agents may do with it now and which rule says so, in the core's words.
export async function siteToolsShown(site) {
  const core = await ready;
  const tools = fromJson(core.toolsListed(site, JSON.stringify(await siteTools(site))));
  const standings = fromJson(core.toolStandings(site, JSON.stringify(tools)));
  return tools.map((tool, i) => ({ ...tool, standing: standings[i] }));
}

// The properties a condition can look at, of each tool `site`'s open tabs
// publish, by name ({name: [{path, types}]}): what the set-apart page offers
// (docs/rules.md, "Setting conditions and limits").
export async function siteProperties(site) {
  return fromJson((await ready).siteProperties(site));
}

// One change of `site`'s rules from the settings page: the core checks it
// against the stored rules and the tools seen (its limits, whole or not at
// all), then the new rules are stored, and reach the core through
// onRulesChanged. Refused, it throws the reason, and nothing is stored.
// Changes are made one at a time, each from what the one before stored.
let changing = Promise.resolve();
export function changeRules(site, changes) {
  const change = changing.then(async () => {
    const seenTools = await siteTools(site);
    const [{ [RULES_KEY]: stored }, managed] = await Promise.all([chrome.storage.local.get(RULES_KEY), policy()]);
    // A tool's conditions are checked against its schema as its tabs
    // publish it now (docs/rules.md, "Conditions on a tool's arguments").
    const schemas = (Array.isArray(changes) && changes.some((c) => c?.conditions)) ? (await ready).siteSchemas(site) : '{}';
    const book = fromJson(changeRulesIn(
      JSON.stringify(stored ?? {}), site, JSON.stringify(changes), JSON.stringify(seenTools), JSON.stringify(adminBook(managed)), schemas,
    ));
    await chrome.storage.local.set({ [RULES_KEY]: book });
    return { saved: true };
  });
  changing = change.catch(() => {});
  return change;
}
