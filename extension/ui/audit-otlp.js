// The audit as OpenTelemetry on the settings page (docs/rules.md, "The audit
// as OpenTelemetry"): the export as OTLP JSON, made by the core
// (src/audit/otlp.rs) loaded here only when asked for, and where the
// administrator's policy sends the audit, if it does.
import { $, saveJson } from './dom.js';
import { INSTANCE_KEY, auditTarget } from '../shared/audit-target.js';

let core = null;
function loadCore() {
  core ??= import('../../pkg/toolgate.js').then(async (module) => {
    await module.default();
    return module;
  });
  return core;
}

// `entries` (the audit, oldest first) as one file of OTLP JSON: the agents'
// requests as spans (`kind` 'spans'), or every other entry as log records
// ('logs'). One line of JSON each, as OpenTelemetry's file exporter writes
// one kind of data a file; a collector reads it, or it can be POSTed as it is.
export async function exportOtlp(entries, kind) {
  const { otlpAudit } = await loadCore();
  const stored = (await chrome.storage.local.get(INSTANCE_KEY))[INSTANCE_KEY];
  const [traces, logs] = otlpAudit(JSON.stringify(entries), typeof stored === 'string' ? stored : '');
  const text = kind === 'spans' ? traces || '{"resourceSpans":[]}' : logs || '{"resourceLogs":[]}';
  saveJson(`${text}\n`, `toolgate-audit-${kind}.jsonl`);
}

// Tells the person that their audit is sent, and where.
async function showSending() {
  const managed = await chrome.storage.managed.get(null).catch(() => ({}));
  const target = auditTarget(managed);
  const note = $('audit-sending');
  note.hidden = !target;
  note.textContent = target
    ? `Your administrator's policy sends this audit, as it happens, to ${target.endpoint}: each agent's request as an OpenTelemetry span, your changes and answers and the flags as log records.`
    : '';
}

export function renderAuditSending() {
  showSending();
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === 'managed') showSending();
  });
}
