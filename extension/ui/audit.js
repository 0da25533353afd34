// The audit on the settings page (docs/rules.md, "Every site, side by side,
// and the audit"): both logs (background/audit.js: the person's, and what
// agents were told), read from the audit's database, newest first, each
// entry's time, site, who asked, tool, what happened and what decided it,
// filtered by site and by kind of entry, and exported whole as JSON with its
// chain; whether each log is whole, as the worker checks it. Tool and chat
// names are the page's or the agent's text: shown apart.
import { askWorker } from '../shared/chromium-errors.js';
import { AUDIT_CHANNEL, entriesOf, openAudit, readLogs } from '../shared/audit-db.js';
import {
  $, el, lineNodes, localTime, pageText, saveJson, siteLabel,
} from './dom.js';
import { kindLabel, levelLabel } from './site-rules.js';
import { exportOtlp } from './audit-otlp.js';

const whatIs = (...whats) => (entry) => whats.includes(entry.what);
// After untrusted content (docs/cards.md): a result that made its chat
// untrusted, and an answer on a card asked because of it.
const readUntrusted = (entry) => entry.what === 'decision' && typeof entry.result_untrusted === 'object' && entry.result_untrusted !== null;
const afterUntrusted = (entry) => entry.what === 'answer' && entry.after_untrusted === true;
const KINDS_OF_ENTRY = {
  rules: whatIs('rule', 'rules', 'kept', 'areas', 'tools', 'conditions', 'limits', 'unattended', 'policy'),
  answers: whatIs('answer'),
  decisions: whatIs('decision'),
  untrusted: (entry) => readUntrusted(entry) || afterUntrusted(entry),
  hints: whatIs('flagged', 'cleared'),
  registrations: whatIs('tool_change'),
};

// Every entry, oldest first. (What an earlier release kept, the worker
// carries over as it first opens the database, and then says so on the
// audit's channel.)
let database = null;
async function entries() {
  database ??= openAudit();
  return entriesOf(await readLogs(await database));
}

// Whether each log is whole, as the worker checks it.
const checked = () => askWorker({ type: 'audit_chain' }).catch((error) => ({ error: String(error?.message ?? error) }));

const LOG_NAMES = { person: 'your log', agents: "the agents' log" };
// Whether each log is whole, and where it breaks, in words.
function chainWords(chain, all) {
  if (!chain || chain.error) return `Toolgate could not check the audit's chain (${chain?.error ?? 'no answer'}).`;
  const breaks = Object.entries(chain).flatMap(([log, { breaks: found }]) => found.map((b) => ({ log, ...b })));
  if (breaks.length === 0) return 'The audit is whole: each entry follows the one before it, and nothing was changed.';
  const when = (log, seq) => {
    const entry = all.find((e) => e.chain.log === log && e.chain.seq === seq);
    return entry ? ` (${localTime(entry.at)})` : '';
  };
  const said = breaks.slice(0, 3).map(({ log, why, seq }) => {
    if (why === 'missing') return `entries are missing before entry ${seq} of ${LOG_NAMES[log]}${when(log, seq)}`;
    if (why === 'rewritten') return `entry ${seq} of ${LOG_NAMES[log]}${when(log, seq)} is not what was written`;
    return `the newest entries of ${LOG_NAMES[log]}, after entry ${seq}, are missing`;
  });
  const more = breaks.length > 3 ? `, and ${breaks.length - 3} more` : '';
  return `The audit is not whole: ${said.join('; ')}${more}.`;
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

// A change of a page's tools, in words (docs/rules.md, "Every site, side by
// side, and the audit"); where the tool comes from is the page's text.
const CHANGES = {
  registered: 'Registered by ',
  changed: 'Registered again, with another definition, by ',
  unregistered: 'Unregistered; it was registered by ',
};
function toolChanged(entry) {
  if (entry.change === 'more') {
    return Number.isInteger(entry.count) && entry.count > 0
      ? `${entry.count} more changes of a frame's tools in that minute, counted, not logged one by one`
      : "A frame changed its tools more than 20 times in a minute: the rest of that minute's are counted";
  }
  const said = [Object.hasOwn(CHANGES, entry.change) ? CHANGES[entry.change] : `${text(entry.change)}: `, pageText(text(entry.provenance))];
  if (typeof entry.provenance_before === 'string') said.push(' (before: ', pageText(entry.provenance_before), ')');
  return said;
}

// One entry as the table shows it.
function described(entry) {
  const you = 'You';
  switch (entry.what) {
    case 'rule':
      return {
        by: you,
        what: `${entry.kind === 'scripts' ? "Tools registered by other sites' scripts" : `${kindLabel(entry.kind)} tools`}: ${levelLabel(entry.from)} → ${levelLabel(entry.to)}`,
        decided: 'your change on the settings page',
      };
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
        decided: `your answer on ${entry.card ? `the ${entry.card} card` : 'a card'}${typeof entry.asked_because === 'string' ? ` (${entry.asked_because})` : ''}`,
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
    case 'tool_change':
      // A page's tools changed during a chat's life on its site
      // (background/pages.js), with where each comes from.
      return { tool: entry.tool, what: toolChanged(entry), decided: 'the page, during a chat that listed its tools' };
    case 'cleared':
      return { by: you, tool: entry.tool, what: 'Flag cleared: its hints are trusted again', decided: 'your change' };
    default:
      return { what: text(entry.what) };
  }
}

// A row of the table, with its roles (options.html: the table is laid out as
// a grid).
const cell = (attributes, children) => el('td', { role: 'cell', ...attributes }, children);
function row(entry) {
  const { by, tool, what, decided } = described(entry);
  return el('tr', { role: 'row' }, [
    cell({ text: localTime(entry.at) }),
    cell({ text: entry.site ? siteLabel(entry.site) : '' }),
    cell({}, by ? [pageText(text(by))] : []),
    cell({}, tool ? [pageText(text(tool), 'code')] : []),
    cell({}, Array.isArray(what) ? what : [what]),
    cell({}, decided ? [pageText(decided)] : []),
  ]);
}

// The audit as last read: its entries, and whether they are whole (a promise:
// the worker's check, asked as the entries are read).
let read = null;

// Reads the entries and asks whether they are whole (both at once), then
// shows them: when the page opens, and after each batch the worker appends.
async function load() {
  const chain = checked();
  read = { all: await entries(), chain };
  await show();
}

// The entries as last read, through the filters; then whether they are whole.
let markedShown = false;
async function show() {
  if (read === null) return;
  const { all, chain } = read;
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
  $('audit-chain').textContent = chainWords(await chain, all);
  // When the audit was first painted, checked, from the page's start
  // (benches/README.md, figure 15c): the task after the frame that drew it.
  if (!markedShown) {
    markedShown = true;
    requestAnimationFrame(() => setTimeout(() => performance.mark('audit shown')));
  }
}

// Reads again, once the read under way ends: one read for however many
// batches came meanwhile.
let pending = false;
let running = false;
async function refresh() {
  pending = true;
  if (running) return;
  running = true;
  try {
    while (pending) {
      pending = false;
      await load();
    }
  } finally {
    running = false;
  }
}

export function renderAudit() {
  refresh();
  $('audit-site').addEventListener('change', show);
  $('audit-kind').addEventListener('change', show);
  $('audit-export').addEventListener('click', async () => {
    saveJson(JSON.stringify(await entries(), null, 2), 'toolgate-audit.json');
  });
  // OpenTelemetry's OTLP JSON (docs/rules.md, "The audit as OpenTelemetry"):
  // each entry as it was sent, without its link in the chain.
  const unchained = async () => (await entries()).map(({ chain, ...entry }) => entry);
  $('audit-export-spans').addEventListener('click', async () => exportOtlp(await unchained(), 'spans'));
  $('audit-export-logs').addEventListener('click', async () => exportOtlp(await unchained(), 'logs'));
  // The worker says when it appended a batch (background/audit.js).
  new BroadcastChannel(AUDIT_CHANNEL).onmessage = refresh;
}
