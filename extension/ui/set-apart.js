// "Set areas and tools apart" (docs/rules.md): every area of one site with
// what its tools may do, each area's tools, and a level menu for each. The
// list is built once; finding and filtering only hide rows, so a site with
// hundreds of tools stays responsive as you type. Each change goes to the
// worker, whose core checks it (the limits, the tools seen) and stores it
// whole or not at all. Names the page chose are shown as text, never as HTML.
import { $, el, pageText } from './dom.js';
import { changeRules, widerThanAdmin } from './rule-changes.js';
import { conditionsEditor } from './conditions-editor.js';
import { limitControl, limitOf } from './limit-control.js';
import { askWorker } from '../shared/chromium-errors.js';

const site = new URLSearchParams(location.search).get('site') ?? '';
// The rules' words, from the core (src/views/rule_words.rs) through the worker.
const WORDS = await askWorker({ type: 'rule_words' });
const KIND_LABELS = Object.fromEntries(WORDS.kinds.map(({ key, label }) => [key, label]));
const LEVELS = WORDS.levels.map(({ key, label }) => [key, label]);
const NEW_RULES = WORDS.new_rules;
const ADMINS_ONLY = WORDS.owners_only;
const LEVEL_LABELS = Object.fromEntries(LEVELS);

// Why a tool's own or its area's level no longer holds for it (docs/rules.md,
// "A rule holds for what you saw"): the page changed the tool since you set
// it, or it joined its area with a kind the area did not hold. Else null.
function lapsed(tool, rules) {
  const setFor = rules.tool_definitions?.[tool.name];
  if (rules.tools[tool.name] !== undefined && setFor && tool.definition && setFor !== tool.definition) {
    return `Changed since you set it: your “${LEVEL_LABELS[rules.tools[tool.name]]}” no longer holds; it follows its area and kind until you set it again.`;
  }
  const kinds = rules.area_kinds?.[tool.area];
  if (rules.tools[tool.name] === undefined && rules.areas[tool.area] !== undefined && kinds && !kinds.includes(tool.kind)) {
    return `New in this area: the area's “${LEVEL_LABELS[rules.areas[tool.area]]}” does not cover it; it follows its kind until you set the area again.`;
  }
  return null;
}

// Why a person under an administrator's policy cannot choose `level` for an
// area or a tool (docs/rules.md, "Who can change the rules"), or null:
// Allowed where it is the administrator's alone (`allowedIsAdmins`), or a
// level wider than the one the policy set for it (`bound`).
const refusedBy = (allowedIsAdmins, bound) => (level) => (allowedIsAdmins && level === 'allowed' ? ADMINS_ONLY : null)
  ?? widerThanAdmin(WORDS, bound, level);

// A level menu: "As its kinds" (or "As its area and kind") then the three
// levels; under an administrator's policy, each level a person may not
// choose greyed out, with why (`refused`, from `refusedBy`).
// On a site without rules, each level says in its own words that choosing
// it starts the site's rules from the defaults (`starts`).
function levelMenu(label, backText, current, onChange, refused, starts) {
  const why = LEVELS.map(([value]) => refused(value)).filter(Boolean);
  const select = el('select', { class: 'level-menu', 'aria-label': label, title: why.length ? why.join(' ') : null }, [
    el('option', { value: '', text: backText, selected: current === undefined }),
    ...LEVELS.map(([value, text]) => el('option', {
      value,
      text: starts ? `${text}, and start this site's rules from the defaults` : text,
      selected: current === value,
      disabled: refused(value) !== null,
    })),
  ]);
  let before = select.value;
  select.addEventListener('change', async () => {
    if (await onChange(select.value === '' ? null : select.value)) before = select.value;
    else select.value = before; // refused: nothing was saved
  });
  return select;
}

// What an area's tools may do, counted by level ("2 Allowed, 1 Off"), or
// that the site has no rules.
function summaryOf(tools) {
  if (tools.length === 0) return 'None of its tools seen now';
  if (tools.some((tool) => tool.standing.level === null)) return tools[0].standing.says;
  const counts = LEVELS.map(([value, text]) => [tools.filter((tool) => tool.standing.level === value).length, text]);
  return `What they may do: ${counts.filter(([n]) => n > 0).map(([n, text]) => `${n} ${text}`).join(', ')}`;
}

// Page-named `texts` as the worker's core shows them (`kind`: 'area' or
// 'argument'), by text; one message for them all.
async function shownAs(kind, texts) {
  if (texts.length === 0) return new Map();
  const shown = await askWorker({ type: 'shown_as', kind, texts });
  if (!Array.isArray(shown)) throw new Error(shown?.error ?? 'the worker did not answer');
  return new Map(texts.map((text, i) => [text, shown[i]]));
}

// Every property a site's stored conditions test (`rules.conditions`: tool
// name -> [{when: [{path}]}]), each once.
function conditionPaths(rules) {
  const paths = new Set();
  for (const conditions of Object.values(rules?.conditions ?? {})) {
    for (const condition of Array.isArray(conditions) ? conditions : []) {
      for (const test of Array.isArray(condition?.when) ? condition.when : []) if (typeof test?.path === 'string') paths.add(test.path);
    }
  }
  return [...paths];
}

async function main() {
  const host = site.replace(/^[a-z]+:\/\//, '');
  $('heading').textContent = `Set areas and tools apart on ${host}`;
  document.title = `Toolgate: set areas and tools apart on ${host}`;
  const [listed, { rules: book }, policy, offered] = await Promise.all([
    askWorker({ type: 'site_tools', site }),
    chrome.storage.local.get('rules'),
    chrome.storage.managed.get(null).catch(() => ({})),
    askWorker({ type: 'tool_properties', site }),
  ]);
  // What each tool's conditions can look at, by name (only tools open now).
  let properties = offered && typeof offered === 'object' && !('error' in offered) ? offered : {};
  const managed = policy.unattended !== undefined || policy.sites !== undefined;
  // The levels the administrator set for this site's areas and tools.
  const bounds = (managed && policy.sites?.[site]) || {};
  const tools = Array.isArray(listed) ? listed : [];
  let starts = !book?.sites?.[site];
  const rules = book?.sites?.[site] ?? { ...NEW_RULES, areas: {}, tools: {} };
  // An area with a rule is listed, and can be changed or put back, with none
  // of its tools seen now (docs/rules.md, "Set areas and tools apart").
  const ruledAreas = Object.keys(rules.areas ?? {});
  if (tools.length === 0 && ruledAreas.length === 0) {
    $('shown').textContent = `No tools have been seen on ${host}: only a site's tools seen can be set apart.`;
    return;
  }
  // By the area's own name: two whose names differ only in characters
  // people do not see are two areas, each shown as the core escapes it.
  const areas = new Map();
  const areaShown = new Map();
  for (const tool of tools) {
    if (!areas.has(tool.area)) areas.set(tool.area, []);
    areas.get(tool.area).push(tool);
    areaShown.set(tool.area, tool.standing.area_shown);
  }
  for (const area of ruledAreas) if (!areas.has(area)) areas.set(area, []);
  // An area with a rule and no tool seen now: its name as the core shows it.
  for (const [area, shown] of await shownAs('area', ruledAreas.filter((area) => !areaShown.has(area)))) areaShown.set(area, shown);
  // The properties stored conditions test, likewise (a tool set apart while
  // no open tab publishes it has no schema to name them).
  const pathsShown = new Map();
  const learnPaths = async (book) => {
    for (const [path, shown] of await shownAs('argument', conditionPaths(book).filter((path) => !pathsShown.has(path)))) pathsShown.set(path, shown);
  };
  await learnPaths(rules);
  const apart = { areas: { ...rules.areas }, tools: { ...rules.tools } };
  // Once the site has rules, its levels say only themselves.
  const started = () => {
    if (!starts) return;
    starts = false;
    for (const option of $('areas').querySelectorAll('.level-menu option')) {
      const plain = LEVELS.find(([value]) => value === option.value)?.[1];
      if (plain) option.text = plain;
    }
  };
  const send = (target, level) => changeRules(site, [{ ...target, level }]).then(async (refused) => {
    $('apart-error').textContent = refused ?? '';
    const saved = refused === null;
    if (saved) {
      started();
      const [map, key] = target.target === 'area' ? [apart.areas, target.area] : [apart.tools, target.name];
      if (level === null) delete map[key];
      else map[key] = level;
      filter();
      await refresh();
    }
    return saved;
  });
  // A change of conditions or a limit (docs/rules.md, "Setting conditions
  // and limits"): its refusal is shown by its own control.
  const sendMore = async (entry) => {
    const refused = await changeRules(site, [entry]);
    if (refused === null) await refresh();
    return refused;
  };
  const limitFor = (target, key, what) => limitControl({
    what, limit: limitOf(rules, target, key), words: WORDS,
    save: (limit) => sendMore({ target, [target === 'tool' ? 'name' : 'area']: key, limit }),
  });
  // A tool's conditions, built the first time it is set apart.
  const conditionsOf = (entry) => {
    if (!entry.conditions) {
      entry.conditions = conditionsEditor({
        nameShown: entry.tool.standing.name_shown,
        properties: properties[entry.tool.name] ?? null,
        conditions: rules.conditions?.[entry.tool.name] ?? [],
        words: WORDS,
        allowedIsAdmins: managed && (entry.tool.kind === 'delete' || entry.tool.kind === 'outside'),
        save: (conditions) => sendMore({ target: 'tool', name: entry.tool.name, conditions }),
        pathsShown,
      });
      entry.extras.append(entry.conditions.node);
    }
    return entry.conditions;
  };

  const rows = [];
  $('areas').replaceChildren(...[...areas].map(([area, members], index) => {
    const listId = `area-${index}`;
    const open = el('button', { type: 'button', 'aria-expanded': 'false', 'aria-controls': listId }, [pageText(areaShown.get(area))]);
    const list = el('ul', { id: listId, class: 'tools', hidden: true }, members.map((tool) => {
      const holds = el('span', { class: 'holds', text: tool.standing.says });
      const nameShown = tool.standing.name_shown;
      const limit = limitFor('tool', tool.name, `the tool ${nameShown}`);
      const extras = el('div', { class: 'rule-extras' }, [limit.node]);
      const row = el('li', { class: 'tool' }, [
        pageText(nameShown, 'code'),
        // Where it comes from, where not the site's own (docs/classes.md).
        ...(tool.registered_by ? [el('span', { class: 'registered-by', text: ` ${tool.registered_by}` })] : []),
        el('span', { class: 'kind', text: ` ${KIND_LABELS[tool.kind]} ` }),
        el('span', { class: 'apart', text: 'Set apart', hidden: !(tool.name in apart.tools) }),
        holds,
        ' ',
        levelMenu(`What agents may do with ${nameShown}`, 'As its area and kind', rules.tools[tool.name],
          (level) => send({ target: 'tool', name: tool.name }, level),
          refusedBy(managed && (tool.kind === 'delete' || tool.kind === 'outside'), bounds.tools?.[tool.name]), starts),
        ...[lapsed(tool, rules)].filter(Boolean).map((why) => el('p', { class: 'lapsed', text: why })),
        extras,
      ]);
      const entry = { row, tool, area, holds, limit, extras, conditions: null };
      if (tool.name in apart.tools) conditionsOf(entry);
      rows.push(entry);
      return row;
    }));
    open.addEventListener('click', () => {
      const expanded = open.getAttribute('aria-expanded') === 'true';
      open.setAttribute('aria-expanded', String(!expanded));
      list.hidden = expanded;
    });
    const kinds = [...new Set(members.map((t) => KIND_LABELS[t.kind]))].join(', ');
    const summary = el('span', { class: 'holds', text: summaryOf(members) });
    const limit = limitFor('area', area, `the area ${areaShown.get(area)}`);
    const item = el('li', { class: 'area' }, [
      el('div', { class: 'area-row' }, [
        open,
        el('span', { class: 'count', text: members.length ? ` ${members.length} ${members.length === 1 ? 'tool' : 'tools'} (${kinds}) ` : ' ' }),
        el('span', { class: 'apart', text: 'Set apart', hidden: !(area in apart.areas) }),
        summary,
        ' ',
        levelMenu(`What the tools of ${areaShown.get(area)} may do`, 'As its kinds', rules.areas[area],
          (level) => send({ target: 'area', area }, level), refusedBy(managed, bounds.areas?.[area]), starts),
      ]),
      el('div', { class: 'rule-extras area-extras' }, [limit.node]),
      list,
    ]);
    rows.push({ row: item, area, members, list, open, holds: summary, limit });
    return item;
  }));

  // What every tool may do now, as the worker's core says once a change is
  // saved; and which areas and tools are set apart.
  // Their conditions and limits, as the rules store them now.
  async function refresh() {
    const [now, { rules: bookNow }, offeredNow] = await Promise.all([
      askWorker({ type: 'site_tools', site }),
      chrome.storage.local.get('rules'),
      askWorker({ type: 'tool_properties', site }),
    ]);
    if (offeredNow && typeof offeredNow === 'object' && !('error' in offeredNow)) properties = offeredNow;
    const stored = bookNow?.sites?.[site] ?? {};
    await learnPaths(stored);
    if (bookNow?.sites?.[site]) started();
    const byName = new Map((Array.isArray(now) ? now : []).map((tool) => [tool.name, tool]));
    for (const entry of rows) {
      if (entry.tool) {
        entry.tool.standing = byName.get(entry.tool.name)?.standing ?? entry.tool.standing;
        entry.holds.textContent = entry.tool.standing.says;
        const isApart = entry.tool.name in apart.tools;
        entry.row.querySelector('.apart').hidden = !isApart;
        entry.limit.update(limitOf(stored, 'tool', entry.tool.name));
        if (isApart) conditionsOf(entry).update(stored.conditions?.[entry.tool.name] ?? [], properties[entry.tool.name]);
        if (entry.conditions) entry.conditions.node.hidden = !isApart;
      } else {
        entry.holds.textContent = summaryOf(entry.members);
        entry.row.querySelector('.area-row > .apart').hidden = !(entry.area in apart.areas);
        entry.limit.update(limitOf(stored, 'area', entry.area));
      }
    }
  }

  // Hides what does not match, without building anything again.
  function filter() {
    const text = $('find').value.trim().toLowerCase();
    const kind = $('kind-filter').value;
    const onlyApart = $('only-apart').checked;
    const toolShown = (tool, area) => (!text || tool.name.toLowerCase().includes(text) || area.toLowerCase().includes(text))
      && (!kind || tool.kind === kind)
      && (!onlyApart || tool.name in apart.tools || area in apart.areas);
    let shown = 0;
    for (const entry of rows) {
      if (entry.tool) {
        entry.row.hidden = !toolShown(entry.tool, entry.area);
        if (!entry.row.hidden) shown += 1;
      }
    }
    for (const entry of rows) {
      if (!entry.members) continue;
      // An area with a rule and no tool seen now shows as long as its name may.
      const any = entry.members.length === 0
        ? (!text || entry.area.toLowerCase().includes(text)) && !kind && (!onlyApart || entry.area in apart.areas)
        : entry.members.some((tool) => toolShown(tool, entry.area));
      entry.row.hidden = !any;
      // While finding, the areas with a match show their tools.
      if (text && any && entry.list.hidden) entry.open.click();
    }
    $('shown').textContent = `${shown} of ${tools.length} tools shown.`;
  }
  let pending = false;
  const soon = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; filter(); });
  };
  $('find').addEventListener('input', soon);
  $('kind-filter').addEventListener('change', filter);
  $('only-apart').addEventListener('change', filter);
  filter();
}

main().catch((error) => { $('apart-error').textContent = `Toolgate could not list this site's tools: ${error.message}`; });
