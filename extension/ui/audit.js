// The audit on the settings page (docs/rules.md, "Audit"): both logs
// (background/audit.js: the person's, and what agents were told), newest
// first, each entry's time, site, who asked, tool, what happened and what
// decided it, filtered by site and by kind of entry, and exported whole as
// JSON. Tool and chat names are the page's or the agent's text: shown apart.
import { $, el, lineNodes, pageText, siteLabel } from './dom.js';
import { kindLabel, levelLabel } from './site-rules.js';

const AUDIT_KEYS = ['audit', 'audit:agents']; // background/audit.js
const KINDS_OF_ENTRY = {
  rules: ['rule', 'rules', 'kept', 'areas', 'tools', 'unattended', 'policy'],
  answers: ['answer'],
  decisions: ['decision'],
  hints: ['flagged', 'cleared'],
};

async function entries() {
  const stored = await chrome.storage.local.get(AUDIT_KEYS);
  return AUDIT_KEYS.flatMap((key) => (Array.isArray(stored[key]) ? stored[key] : [])).sort((a, b) => a.at - b.at);
}

const text = (value) => (typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value));

// A rule set's levels, kind by kind ("Read Allowed, Write Ask first, …").
const levels = (rules) => ['read', 'write', 'delete', 'outside']
  .filter((kind) => rules?.[kind]).map((kind) => `${kindLabel(kind)} ${levelLabel(rules[kind])}`).join(', ');

// One entry as the table shows it.
function described(entry) {
  const you = 'You';
  switch (entry.what) {
    case 'rule':
      return { by: you, what: `${kindLabel(entry.kind)} tools: ${levelLabel(entry.from)} → ${levelLabel(entry.to)}`, decided: 'your change on the settings page' };
    case 'rules':
      return {
        by: you,
        what: entry.to ? `Rules started: ${levels(entry.to)}` : 'Rules removed: as it was',
        decided: 'your change on the settings page',
      };
    case 'kept':
      return { by: you, what: entry.to ? 'Kept as it was: no rules' : 'Rules to be chosen again', decided: 'your answer on the settings page' };
    case 'areas':
      return { by: you, what: 'Areas set apart changed', decided: 'your change on the set-apart page' };
    case 'tools':
      return { by: you, what: 'Tools set apart changed', decided: 'your change on the set-apart page' };
    case 'unattended':
      return { by: you, what: `Unattended ${entry.to ? 'on' : 'off'}`, decided: 'your change on the settings page' };
    case 'policy':
      return { by: 'Your administrator', what: "The administrator's policy changed", decided: 'your administrator' };
    case 'answer':
      return {
        by: entry.by ?? entry.chat,
        tool: entry.tool,
        what: entry.answer === 'closed the card' ? 'Closed the card' : `Answered “${entry.label ?? text(entry.answer)}”`,
        decided: entry.card ? `your answer on the ${entry.card} card` : 'your answer on a card',
      };
    case 'decision':
      return {
        by: entry.by ?? entry.chat,
        tool: entry.tool,
        what: entry.decision === 'run' ? 'Ran' : entry.decision === 'refuse' ? 'Refused' : entry.error ? 'Failed' : text(entry.decision),
        decided: text(entry.why ?? entry.error),
      };
    case 'flagged':
      // The flag's line from the core (background/watch.js): what the page
      // chose in it escaped and apart. An entry from before it had one shows
      // its text apart.
      return {
        tool: entry.tool,
        what: ['Broke its hints: it ', ...(Array.isArray(entry.line) ? lineNodes(entry.line) : [pageText(text(entry.text))])],
        decided: 'what Toolgate saw during a call',
      };
    case 'cleared':
      return { by: you, tool: entry.tool, what: 'Flag cleared: its hints are trusted again', decided: 'your change' };
    default:
      return { what: text(entry.what) };
  }
}

function row(entry) {
  const { by, tool, what, decided } = described(entry);
  return el('tr', {}, [
    el('td', { text: new Date(entry.at).toLocaleString() }),
    el('td', { text: entry.site ? siteLabel(entry.site) : '' }),
    el('td', {}, by ? [pageText(text(by))] : []),
    el('td', {}, tool ? [pageText(text(tool), 'code')] : []),
    el('td', {}, Array.isArray(what) ? what : [what]),
    el('td', {}, decided ? [pageText(decided)] : []),
  ]);
}

async function render() {
  const all = await entries();
  $('audit-count').textContent = `${all.length} ${all.length === 1 ? 'entry' : 'entries'} kept.`;
  // The sites to filter by, kept as chosen.
  const sites = [...new Set(all.map((entry) => entry.site).filter(Boolean))].sort();
  const siteFilter = $('audit-site');
  const chosen = siteFilter.value;
  siteFilter.replaceChildren(el('option', { value: '', text: 'Every site' }),
    ...sites.map((site) => el('option', { value: site, text: siteLabel(site) })));
  siteFilter.value = sites.includes(chosen) ? chosen : '';
  const kind = KINDS_OF_ENTRY[$('audit-kind').value];
  const shown = all
    .filter((entry) => !siteFilter.value || entry.site === siteFilter.value)
    .filter((entry) => !kind || kind.includes(entry.what))
    .reverse();
  $('audit-rows').replaceChildren(...shown.map(row));
  $('audit-empty').hidden = shown.length > 0;
}

export function renderAudit() {
  render();
  $('audit-site').addEventListener('change', render);
  $('audit-kind').addEventListener('change', render);
  $('audit-export').addEventListener('click', async () => {
    const blob = new Blob([JSON.stringify(await entries(), null, 2)], { type: 'application/json' });
    const link = el('a', { href: URL.createObjectURL(blob), download: 'toolgate-audit.json' });
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  });
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && AUDIT_KEYS.some((key) => key in changes)) render();
  });
}
