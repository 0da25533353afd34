// Sending the audit where a team collects it (docs/rules.md, "Sending the
// audit where your team collects it"): when the administrator's policy names
// an OTLP/HTTP endpoint (extension/shared/audit-target.js), each batch of
// audit entries the audit writes (background/audit.js hands it here) is
// queued, turned into OTLP JSON by the core (src/audit/otlp.rs: spans of the
// agents' requests, log records of the rest) and POSTed to
// {endpoint}/v1/traces and {endpoint}/v1/logs.
//
// Never on a call's path: `sendAudit` only queues, and the sending runs on
// timers. The queue is bounded: past QUEUE_MOST entries the oldest waiting
// go, counted as dropped. A send that fails (no answer, or 408, 429, 502,
// 503, 504) is tried again, 1 s later, then 2, 4, … up to a minute apart; one
// the receiver refuses otherwise (a 400) is not, and its entries are counted
// as rejected. Kept in this worker's memory only: a worker that stops (30 s
// after its last event) loses what it had not sent and its counts; those
// entries are still in the stored audit, which the settings page exports
// (docs/rules.md, "Sending the audit where your team collects it").
import { otlpAudit } from '../../pkg/toolgate.js';
import { INSTANCE_KEY, auditTarget } from '../shared/audit-target.js';
import { fromJson, loaded, ready } from './core.js';
import { keepError } from './errors.js';
import { LAST_POLICY_KEY, policy } from './policy.js';

const QUEUE_MOST = 1000;
const BATCH_MOST = 200;
const FIRST_RETRY_MS = 1000;
const LONGEST_RETRY_MS = 60_000;
const SEND_TIMEOUT_MS = 10_000;
const RETRIED = new Set([408, 429, 502, 503, 504]);

let queueMost = QUEUE_MOST;
let queue = [];
// The batch being sent: how many entries, and the requests still to send.
let sendingBatch = null;
// Where to send: undefined until read at this start, null for nowhere.
let target;
let reading = null;
let timer = null;
let running = false;
let retries = 0;
const counts = { sent: 0, dropped: 0, rejected: 0, failures: 0 };
let problem = null;

// A batch of the audit's entries ({person: [...], agents: [...]}), as the
// audit writes it. Returns at once.
export function sendAudit(batch) {
  if (target === null) return;
  const entries = [...(batch?.person ?? []), ...(batch?.agents ?? [])];
  if (!entries.length) return;
  queue.push(...entries);
  const over = queue.length - queueMost;
  if (over > 0) {
    queue.splice(0, over);
    counts.dropped += over;
  }
  if (!running && timer === null) later(0);
}

function later(ms) {
  timer = setTimeout(() => {
    timer = null;
    send().catch((error) => keepError('sending the audit', error));
  }, ms);
}

// The policy's endpoint, read once a start and again when the policy changes
// (`onPolicyChanged`).
// A read that began before the policy last changed is used once, not kept.
let policyGeneration = 0;
async function currentTarget() {
  if (target !== undefined) return target;
  const asked = policyGeneration;
  reading ??= policy().then((managed) => {
    const read = auditTarget(managed);
    if (asked === policyGeneration) target = read;
    reading = null;
    return read;
  });
  return reading;
}

// chrome.storage.onChanged: a new policy may name another endpoint, or none.
export function onPolicyChanged(changes, area) {
  if (area !== 'managed' && !(area === 'local' && LAST_POLICY_KEY in changes)) return;
  target = undefined;
  reading = null;
  policyGeneration += 1;
  if (queue.length && !running && timer === null) later(0);
}

async function send() {
  if (running) return;
  running = true;
  try {
    const to = await currentTarget();
    if (!to) {
      queue = [];
      sendingBatch = null;
      return;
    }
    for (;;) {
      if (!sendingBatch) {
        if (!queue.length) return;
        const entries = queue.splice(0, Math.min(BATCH_MOST, queueMost));
        sendingBatch = { entries: entries.length, requests: await requestsOf(entries) };
      }
      const outcome = await post(to, sendingBatch);
      if (outcome === 'again') {
        counts.failures += 1;
        retries += 1;
        later(Math.min(FIRST_RETRY_MS * 2 ** (retries - 1), LONGEST_RETRY_MS));
        return;
      }
      counts[outcome] += sendingBatch.entries;
      sendingBatch = null;
      retries = 0;
    }
  } finally {
    running = false;
  }
}

// The batch's requests, each sent once and never again once answered 2xx:
// spans to /v1/traces, log records to /v1/logs.
async function requestsOf(entries) {
  const core = loaded ?? await ready;
  const [traces, logs] = otlpAudit(JSON.stringify(withClasses(core, entries)), await instance());
  return [traces && { path: '/v1/traces', body: traces }, logs && { path: '/v1/logs', body: logs }].filter(Boolean);
}

// 'sent', 'rejected', or 'again'.
async function post(to, batch) {
  while (batch.requests.length) {
    const { path, body } = batch.requests[0];
    let response;
    try {
      response = await fetch(`${to.endpoint}${path}`, {
        method: 'POST',
        headers: { ...to.headers, 'content-type': 'application/json' },
        body,
        credentials: 'omit',
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
    } catch (error) {
      problem = `${path}: ${error?.message ?? error}`;
      return 'again';
    }
    if (!response.ok) {
      problem = `${path}: HTTP ${response.status}`;
      if (RETRIED.has(response.status)) return 'again';
      return 'rejected';
    }
    batch.requests.shift();
  }
  problem = null;
  return 'sent';
}

// An agent's request with the class of its tool (docs/classes.md), where its
// tab still publishes the tool under that name with one class: the stored
// entry does not say it.
function withClasses(core, entries) {
  const palettes = new Map();
  return entries.map((entry) => {
    if (entry?.what !== 'decision' || entry.class !== undefined || !Number.isInteger(entry.tab) || typeof entry.tool !== 'string') return entry;
    if (!palettes.has(entry.tab)) {
      try {
        palettes.set(entry.tab, fromJson(core.palette(entry.tab)));
      } catch {
        palettes.set(entry.tab, null);
      }
    }
    const classes = new Set((palettes.get(entry.tab) ?? []).flatMap((group) => group.entries ?? [])
      .filter((tool) => tool.name === entry.tool && tool.class).map((tool) => tool.class));
    return classes.size === 1 ? { ...entry, class: [...classes][0] } : entry;
  });
}

let instanceId = null;
async function instance() {
  if (instanceId) return instanceId;
  const stored = (await chrome.storage.local.get(INSTANCE_KEY))[INSTANCE_KEY];
  instanceId = typeof stored === 'string' ? stored : crypto.randomUUID();
  if (stored !== instanceId) await chrome.storage.local.set({ [INSTANCE_KEY]: instanceId });
  return instanceId;
}

// For tests (background/ci.js): where the audit goes and how its sending
// stands; the queue's bound, which a test makes small.
export async function auditSending() {
  const to = await currentTarget();
  return {
    endpoint: to?.endpoint ?? null,
    queued: queue.length,
    sending: sendingBatch?.entries ?? 0,
    ...counts,
    retrying: timer !== null && retries > 0,
    problem,
  };
}
export function auditQueueBound(most) {
  if (!Number.isInteger(most) || most < 1) throw new Error('the bound is a whole number of at least 1');
  queueMost = most;
}
