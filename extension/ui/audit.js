// The audit on the settings page (docs/rules.md, "Audit"): both logs
// (background/audit.js: the person's, and what agents were told), newest
// first, each entry's time, site, who asked, tool, what happened and what
// decided it, filtered by site and by kind of entry, and exported whole as
// JSON. Tool and chat names are the page's or the agent's text: shown apart.
import { $, el, lineNodes, pageText, siteLabel } from './dom.js';
import { kindLabel, levelLabel } from './site-rules.js';
import { exportOtlp } from './audit-otlp.js';

const AUDIT_KEYS = ['audit', 'audit:agents']; // background/audit.js
const whatIs = (...whats) => (entry) => whats.includes(entry.what);
// After untrusted content (docs/cards.md): a result that made its chat
// untrusted, and an answer on a card asked because of it.
const readUntrusted = (entry) => entry.what === 'decision' && typeof entry.result_untrusted === 'object' && entry.result_untrusted !== null;
const afterUntrusted = (entry) => entry.what === 'answer' && entry.after_untrusted === true;
const KINDS_OF_ENTRY = {
  rules: whatIs('rule', 'rules', 'kept', 'areas', 'tools', 'unattended', 'policy'),
  answers: whatIs('answer'),
  decisions: whatIs('decision'),
  untrusted: (entry) => readUntrusted(entry) || afterUntrusted(entry),
  hints: whatIs('flagged', 'cleared'),
};

async function entries() {
  const stored = await chrome.storage.local.get(AUDIT_KEYS);
  return AUDIT_KEYS.flatMap((key) => (Array.isArray(stored[key]) ? stored[key] : [])).sort((a, b) => a.at - b.at);
}

const text = (value) => (typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value));

// A rule set's levels, kind by kind ("Read Allowed, Write Ask first, …").
const levels = (rules) => ['read', 'write', 'delete', 'outside']
  .filter((kind) => rules?.[kind]).map((kind) => `${kindLabel(kind)} ${levelLabel(rules[kind])}`).join(', ');

// An answer on a card: its label, and whether it confirmed a call after its
// chat read untrusted content.
function answered(entry) {
  if (entry.answer === 'closed the card') return afterUntrusted(entry) ? 'Closed the card after untrusted content' : 'Closed the card';
  const label = `“${entry.label ?? text(entry.answer)}”`;
  if (!afterUntrusted(entry)) return `Answered ${label}`;
  return entry.allowed ? `Confirmed after untrusted content: ${label}` : `Answered ${label} after untrusted content`;
}

// A call whose result made its chat untrusted: why, in the cards' words, and
// what it read, as page text (background/replies.js keeps both; an entry
// without them shows what the reply said).
function untrustedRead(entry) {
  const found = entry.result_untrusted;
  const why = typeof entry.untrusted_why === 'string' ? entry.untrusted_why : text(found.because);
  const excerpt = typeof entry.untrusted_excerpt === 'string' ? entry.untrusted_excerpt : text(found.excerpt);
  return [`Read untrusted content: ${why}. What it read: “`, pageText(excerpt), '”'];
}

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
    case 'conditions':
      return { by: you, what: 'Conditions on arguments changed', decided: 'your change on the set-apart page' };
    case 'limits':
      return { by: you, what: 'Limits on how often changed', decided: 'your change on the set-apart page' };
    case 'unattended':
      return { by: you, what: `Unattended ${entry.to ? 'on' : 'off'}`, decided: 'your change on the settings page' };
    case 'policy':
      return { by: 'Your administrator', what: "The administrator's policy changed", decided: 'your administrator' };
    case 'answer':
      return {
        by: entry.by ?? entry.chat,
        tool: entry.tool,
        what: answered(entry),
        decided: entry.card ? `your answer on the ${entry.card} card` : 'your answer on a card',
      };
    case 'decision':
      return {
        by: entry.by ?? entry.chat,
        tool: entry.tool,
        what: readUntrusted(entry) ? untrustedRead(entry)
          : entry.decision === 'run' ? 'Ran' : entry.decision === 'refuse' ? 'Refused' : entry.error ? 'Failed' : text(entry.decision),
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
    .filter((entry) => !kind || kind(entry))
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
  // OpenTelemetry's OTLP JSON (docs/rules.md, "The audit as OpenTelemetry").
  $('audit-export-spans').addEventListener('click', async () => exportOtlp(await entries(), 'spans'));
  $('audit-export-logs').addEventListener('click', async () => exportOtlp(await entries(), 'logs'));
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && AUDIT_KEYS.some((key) => key in changes)) render();
  });
}
