// The settings page's "What agents may do": a card per site whose tools
// have been seen, a row per kind with its level, and unattended mode
// (docs/rules.md, word for word). It writes the rules to
// chrome.storage.local; the worker hands them to the core whenever they
// change, so they reach agents from their next call (background/rules.js).
// Site names are shown as text, never as HTML.
import { $, el, pageText } from './dom.js';
import { changeRules as change, widerThanAdmin } from './rule-changes.js';
import { limitControl, limitOf } from './limit-control.js';
import { askWorker } from '../shared/chromium-errors.js';

const RULES_KEY = 'rules';
const SEEN_KEY = 'sites_seen';
// The sites the person answered "Keep it as it is" for (no rules, on purpose).
export const KEPT_KEY = 'rules_kept';
// The rules' words (the kinds, the levels, a new rule set, "Read freely",
// why a level cannot be chosen) come from the core, in one place
// (src/views/rule_words.rs), through the worker.
export const WORDS = await askWorker({ type: 'rule_words' });
const KINDS = WORDS.kinds.map(({ key, label, meaning }) => [key, label, meaning]);
const LEVELS = WORDS.levels.map(({ key, label }) => [key, label]);
const NEW_RULES = WORDS.new_rules;
const READ_FREELY = WORDS.read_freely.levels;

const host = (site) => site.replace(/^[a-z]+:\/\//, '');
export const levelLabel = (value) => LEVELS.find(([v]) => v === value)?.[1] ?? value;
export const kindLabel = (value) => KINDS.find(([v]) => v === value)?.[1] ?? value;

// An administrator's policy (chrome.storage.managed), or null unmanaged.
async function managed() {
  const got = await chrome.storage.managed.get(null).catch(() => ({}));
  return got.unattended === undefined && got.sites === undefined && got.otherSitesScripts === undefined ? null : got;
}

// Why a level cannot be chosen for a kind under the policy, or null.
export function refusedLevel(admin, site, kind, level) {
  if (!admin) return null;
  if (level === 'allowed' && (kind === 'delete' || kind === 'outside')) return WORDS.owners_only;
  return widerThanAdmin(WORDS, admin.sites?.[site]?.[kind], level);
}

async function stored() {
  const { [RULES_KEY]: rules, [SEEN_KEY]: seen, [KEPT_KEY]: kept } = await chrome.storage.local.get([RULES_KEY, SEEN_KEY, KEPT_KEY]);
  const book = rules && typeof rules === 'object' ? rules : {};
  return {
    book: { sites: {}, unattended: false, ...book },
    seen: Array.isArray(seen) ? seen : [],
    kept: Array.isArray(kept) ? kept : [],
  };
}

// One change of a site's rules; refused, the reason is said.
async function changeRules(site, changes) {
  const refused = await change(site, changes);
  $('rules-error').textContent = refused ?? '';
  return refused === null;
}

// Changes the stored rules with `change(book)`, from what is stored now.
async function update(change) {
  const { book } = await stored();
  change(book);
  await chrome.storage.local.set({ [RULES_KEY]: book });
}

function kindRows(site, rules, admin) {
  return el('table', { class: 'kinds' }, [el('tbody', {}, KINDS.map(([key, label, meaning]) => {
    const id = `level-${site}-${key}`;
    const why = LEVELS.map(([value]) => refusedLevel(admin, site, key, value)).find(Boolean);
    const select = el('select', { id, 'aria-describedby': `${id}-meaning${why ? ` ${id}-why` : ''}` }, LEVELS.map(([value, text]) => el('option', {
      value, text, selected: rules[key] === value, disabled: refusedLevel(admin, site, key, value) !== null,
    })));
    select.addEventListener('change', async () => {
      if (await changeRules(site, [{ target: 'kind', kind: key, level: select.value }])) {
        say(`${label} on ${host(site)} is now ${select.selectedOptions[0].text}. Changes reach agents from their next call.`);
      }
    });
    // Its limit on how often (docs/rules.md, "Limits on how often"), with
    // the level; its button keeps its id when the card is built again.
    const limit = limitControl({
      what: `${label} tools on ${host(site)}`,
      limit: limitOf(rules, 'kind', key),
      words: WORDS,
      idBase: `limit-${site}-${key}`,
      save: (every) => change(site, [{ target: 'kind', kind: key, limit: every }]),
      said: say,
    });
    return el('tr', {}, [
      el('th', { scope: 'row' }, [el('label', { for: id, text: label })]),
      el('td', { id: `${id}-meaning`, class: 'meaning', text: meaning }),
      el('td', {}, [select, ...(why ? [el('span', { id: `${id}-why`, class: 'why', text: ` ${why}` })] : []), el('div', { class: 'rule-extras' }, [limit.node])]),
    ]);
  }).concat([scriptsRow(site, rules, admin)]))]);
}

// The row for tools registered by other sites' scripts (docs/rules.md):
// Ask first where no one set it, and no wider than the administrator's for
// the site or for every site (their policy's otherSitesScripts). Where the
// person set nothing it shows the level that holds: the narrowest of those.
function scriptsRow(site, rules, admin) {
  const { label, meaning, unset } = WORDS.scripts;
  const id = `level-${site}-scripts`;
  const bounds = [admin?.sites?.[site]?.otherSitesScripts, admin?.otherSitesScripts];
  const bound = (value) => bounds.map((b) => widerThanAdmin(WORDS, b, value)).find(Boolean) ?? null;
  const order = LEVELS.map(([value]) => value);
  const narrowest = [unset, ...bounds].filter((l) => order.includes(l))
    .reduce((a, b) => (order.indexOf(b) > order.indexOf(a) ? b : a));
  const level = rules.scripts ?? narrowest;
  const why = LEVELS.map(([value]) => bound(value)).find(Boolean);
  const select = el('select', { id, 'aria-describedby': `${id}-meaning${why ? ` ${id}-why` : ''}` }, LEVELS.map(([value, text]) => el('option', {
    value, text, selected: level === value, disabled: bound(value) !== null,
  })));
  select.addEventListener('change', async () => {
    if (await changeRules(site, [{ target: 'scripts', level: select.value }])) {
      say(`${label} on ${host(site)} is now ${select.selectedOptions[0].text}. Changes reach agents from their next call.`);
    }
  });
  return el('tr', {}, [
    el('th', { scope: 'row' }, [el('label', { for: id, text: label })]),
    el('td', { id: `${id}-meaning`, class: 'meaning', text: meaning }),
    el('td', {}, [select, ...(why ? [el('span', { id: `${id}-why`, class: 'why', text: ` ${why}` })] : [])]),
  ]);
}

// Tabs loaded before Toolgate was installed or updated: no rule holds in
// them until they are reloaded, which the card offers.
function unheldTabs(tabs) {
  const reload = el('button', { type: 'button', text: tabs.length === 1 ? 'Reload this tab' : 'Reload these tabs' });
  reload.addEventListener('click', async () => {
    await Promise.all(tabs.map((tab) => chrome.tabs.reload(tab.tab_id)));
    say(`Reloaded ${tabs.length === 1 ? 'the tab' : `${tabs.length} tabs`}: the rules hold there now.`);
    setTimeout(renderRules, 500);
  });
  return el('div', { class: 'unheld' }, [
    el('p', { class: 'note', text: 'Loaded before Toolgate was installed or updated, so no rule holds there until reloaded:' }),
    el('ul', {}, tabs.map((tab) => el('li', {}, [pageText(tab.title || tab.url)]))),
    reload,
  ]);
}

function siteCard(site, book, unshimmed, admin, kept) {
  const rules = book.sites[site];
  const headingId = `rules-${site}`;
  const children = [el('h3', { id: headingId, text: host(site) }), el('h4', { text: 'What agents may do' })];
  children.push(el('p', {}, [el('a', { href: `set-apart.html?site=${encodeURIComponent(site)}`, text: 'Set areas and tools apart' })]));
  const tabs = unshimmed.filter((tab) => tab.site === site);
  if (tabs.length) children.push(unheldTabs(tabs));
  if (rules) {
    children.push(kindRows(site, rules, admin));
    if (book.unattended) {
      children.push(el('p', { class: 'note', text: 'Unattended: nobody is here to ask, so Ask first acts as Off on this site.' }));
    }
  } else if (kept.includes(site)) {
    // "Keep it as it is", remembered: no level is shown, since none holds.
    const again = el('button', { type: 'button', text: 'Choose rules for this site' });
    again.addEventListener('click', () => keepAsItIs(site, false));
    children.push(
      el('p', { class: 'note', text: 'Kept as it was: no rules. Agents call every tool a chat allows, without asking first.' }),
      el('p', { class: 'actions' }, [again]),
    );
  } else {
    // A site made before you could choose (docs/rules.md): its card says so,
    // and offers the two answers; no level shows, since none holds yet.
    const freely = el('button', { type: 'button', text: WORDS.read_freely.label });
    freely.addEventListener('click', () => startRules(site, READ_FREELY));
    const keep = el('button', { type: 'button', text: 'Keep it as it is' });
    keep.addEventListener('click', () => keepAsItIs(site, true));
    const defaults = el('button', { type: 'button', text: `Start from the defaults: ${levelsText(NEW_RULES)}` });
    defaults.addEventListener('click', () => startRules(site, NEW_RULES));
    children.push(
      el('p', { class: 'note', text: 'This site has no rules: agents call every tool a chat allows, without asking first.' }),
      el('p', { class: 'actions' }, [freely, ' ', keep]),
      el('div', { class: 'start-defaults' }, [
        el('p', { class: 'hint', text: 'Or set each kind yourself, starting from the defaults:' }),
        defaults,
      ]),
    );
  }
  return el('article', { class: 'site-rules', 'aria-labelledby': headingId }, children);
}

const say = (text) => { $('rules-status').textContent = text; };

// "Read allowed, Write Ask first, …" for a whole rule set.
const levelsText = (rules) => KINDS.map(([key, label]) => `${label} ${levelLabel(rules[key])}`).join(', ');

// Starts a site's rules as a whole set, and forgets a "Keep it as it is".
async function startRules(site, rules) {
  if (await changeRules(site, Object.entries(rules).map(([kind, level]) => ({ target: 'kind', kind, level })))) {
    await keepAsItIs(site, false, false);
    say(`${host(site)} now has rules: ${levelsText(rules)}.`);
  }
}

// Remembers (or forgets) that the person kept a rule-less site as it is;
// the worker puts each such answer in the audit (background/rules.js).
async function keepAsItIs(site, keep, tell = true) {
  const { [KEPT_KEY]: stored } = await chrome.storage.local.get(KEPT_KEY);
  const kept = new Set(Array.isArray(stored) ? stored : []);
  if (kept.has(site) === keep) return;
  if (keep) kept.add(site);
  else kept.delete(site);
  await chrome.storage.local.set({ [KEPT_KEY]: [...kept].sort() });
  if (tell) say(keep ? `${host(site)} is kept as it was: no rules.` : `Choose the rules for ${host(site)}.`);
}

// The tabs no shim runs in, from the worker (only it can ask a tab's relay).
async function tabsWithoutToolgate() {
  const answer = await askWorker({ type: 'tabs_without_toolgate' });
  return Array.isArray(answer) ? answer : [];
}

// Every site's rules side by side: a row per site, a column per kind.
function overview(sites, book, kept) {
  const levelText = (value) => LEVELS.find(([v]) => v === value)?.[1] ?? value;
  return el('table', { class: 'overview', 'aria-labelledby': 'overview-heading' }, [
    el('thead', {}, [el('tr', {}, [el('th', { scope: 'col', text: 'Site' }), ...KINDS.map(([, label]) => el('th', { scope: 'col', text: label }))])]),
    el('tbody', {}, sites.map((site) => {
      const rules = book.sites[site];
      const cells = rules
        ? KINDS.map(([key]) => el('td', { text: levelText(rules[key]) }))
        : [el('td', { colspan: KINDS.length, text: kept.includes(site) ? 'Kept as it was: no rules' : 'No rules: the chat answers alone' })];
      return el('tr', {}, [el('th', { scope: 'row', text: host(site) }), ...cells]);
    })),
  ]);
}

export async function renderRules() {
  const [{ book, seen, kept }, unshimmed, admin] = await Promise.all([stored(), tabsWithoutToolgate(), managed()]);
  $('unattended').checked = book.unattended === true || admin?.unattended === true;
  $('unattended').disabled = admin?.unattended === true;
  $('managed').hidden = !admin;
  $('managed').textContent = admin
    ? `Your administrator manages Toolgate: you can choose less than their rules, never more.${admin.unattended === true ? ' They turned Unattended on.' : ''}`
    : '';
  // The administrator's rules are what holds where you set none.
  for (const [site, rules] of Object.entries(admin?.sites ?? {})) {
    if (!book.sites[site]) book.sites[site] = { ...NEW_RULES, ...rules };
  }
  const sites = [...new Set([...seen, ...Object.keys(book.sites)])].sort();
  // Built again whole: the control that had focus gets it back, by its id.
  const focused = document.activeElement?.id;
  $('sites').replaceChildren(...(sites.length
    ? sites.map((site) => siteCard(site, book, unshimmed, admin, kept))
    : [el('p', { class: 'hint', text: 'No site has published tools yet.' })]));
  $('overview').replaceChildren(...(sites.length ? [overview(sites, book, kept)] : []));
  $('overview-section').hidden = sites.length === 0;
  if (focused && !document.activeElement?.id) document.getElementById(focused)?.focus();
}

$('unattended').addEventListener('change', () => update((book) => {
  book.unattended = $('unattended').checked;
}));
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && (RULES_KEY in changes || SEEN_KEY in changes || KEPT_KEY in changes)) renderRules();
});
