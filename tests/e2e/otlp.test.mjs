// The audit as OpenTelemetry (docs/rules.md, "The audit as OpenTelemetry",
// "Sending the audit where your team collects it"): an administrator's
// policy names an OTLP/HTTP endpoint, and the worker sends what agents were
// told there as spans, the person's changes and answers as log records. The
// receiver (tests/support/otlp-receiver.py) decodes each request with
// OpenTelemetry's own protobuf definitions and holds each span to the GenAI
// semantic conventions; it goes down for a while, and what the queue held is
// sent once it is back, what it could not hold counted. The settings page
// says where the audit goes, and its OTLP export decodes the same way.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { BROWSER_ROOT, TOOLGATE_ID } from '../support/browser.mjs';
import { NON_CONSEQUENTIAL, chatWith, harness } from '../support/fixture.mjs';
import { choose } from '../support/cards.mjs';

// The venv build.sh makes (ensure_otlp_receiver).
const PYTHON = process.env.TOOLGATE_OTLP_PYTHON || 'target/otlp-venv/bin/python';
// Machine policy goes where the browser reads it (BROWSER_ROOT), as in
// tests/e2e/policy.test.mjs.
const POLICY_DIR = `${BROWSER_ROOT}/etc/chromium/policies/managed`;
const POLICY_FILE = `${POLICY_DIR}/toolgate-e2e-otlp.json`;
const SKIP = process.getuid?.() !== 0 ? `installing a machine policy (${POLICY_DIR}) needs root` : false;

// The receiver, and every line it printed, each heard by the waiters.
function startReceiver() {
  assert.ok(existsSync(PYTHON), `${PYTHON}: run ./build.sh test's installs (ensure_otlp_receiver) first`);
  const child = spawn(PYTHON, ['tests/support/otlp-receiver.py'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = [];
  let waiters = [];
  createInterface({ input: child.stdout }).on('line', (text) => {
    lines.push(JSON.parse(text));
    const still = [];
    for (const waiter of waiters) (waiter.done(lines) ? waiter.resolve() : still.push(waiter));
    waiters = still;
  });
  // Resolves once the lines so far satisfy `done`.
  const until = (done) => new Promise((resolve) => {
    if (done(lines)) resolve();
    else waiters.push({ done, resolve });
  });
  const say = async (command, answer) => {
    const count = lines.length;
    child.stdin.write(`${command}\n`);
    await until((all) => all.slice(count).some(answer));
    return lines.slice(count).find(answer);
  };
  return { child, lines, until, say };
}

const receiver = SKIP ? null : startReceiver();
let endpoint = null;
if (receiver) {
  await receiver.until((lines) => lines.some((line) => line.port));
  endpoint = `http://127.0.0.1:${receiver.lines.find((line) => line.port).port}/collector`;
  await mkdir(POLICY_DIR, { recursive: true });
  await writeFile(POLICY_FILE, JSON.stringify({
    '3rdparty': { extensions: { [TOOLGATE_ID]: {
      auditEndpoint: endpoint,
      auditHeaders: { 'X-Toolgate-Test': 'team-a', 'Bad Name': 'left out' },
    } } },
  }));
}
const h = harness();
after(async () => {
  await rm(POLICY_FILE, { force: true });
  receiver?.child.kill();
});

const spansIn = (lines) => lines.filter((line) => line.path === '/collector/v1/traces').flatMap((line) => line.spans ?? []);
const recordsIn = (lines) => lines.filter((line) => line.path === '/collector/v1/logs').flatMap((line) => line.records ?? []);
const sending = async () => (await h.browser.worker()).evaluate(() => self.toolgate.auditSending());

let tab;
let chat;

test('each agent request reaches the administrator\'s collector as a GenAI execute_tool span, the person\'s changes as log records', { skip: SKIP, timeout: 120_000 }, async () => {
  tab = await h.open('notes.test');
  const site = `http://${h.site()}`;
  chat = await chatWith(h, tab.tabId, NON_CONSEQUENTIAL, 'OTLP agent');
  await h.runs(chat, tab.tabId, 'list_notes');
  const denied = await h.asks(chat, tab.tabId, 'delete_note', { title: 'Groceries' }, 'call');
  await choose(denied.card, 'Deny this call');
  await denied.reply;
  const settings = await h.browser.newPage(`chrome-extension://${TOOLGATE_ID}/extension/ui/options.html`);
  const changed = await settings.evaluate((s) => chrome.runtime.sendMessage({
    type: 'change_rules', site: s, changes: [{ target: 'kind', kind: 'write', level: 'off' }] }), site);
  assert.equal(changed?.error, undefined);

  const { lines, until } = receiver;
  await until((all) => spansIn(all).some((span) => span.name === 'execute_tool delete_note')
    && recordsIn(all).some((record) => record.attributes['event.name'] === 'toolgate.rules'));
  for (const line of lines.filter((l) => l.path)) {
    assert.deepEqual(line.problems, [], `${line.path}: decoded and held to the conventions`);
    assert.equal(line.contentType, 'application/json');
    assert.deepEqual(line.headers, { 'x-toolgate-test': 'team-a' }, "the policy's headers, a malformed one left out");
  }
  const spans = spansIn(lines);
  const ran = spans.filter((span) => span.name === 'execute_tool list_notes');
  assert.equal(ran.length, 2, 'the first call (after the site card) and the second');
  for (const span of ran) {
    assert.equal(span.attributes['gen_ai.operation.name'], 'execute_tool');
    assert.equal(span.attributes['gen_ai.tool.name'], 'list_notes');
    assert.equal(span.attributes['gen_ai.agent.name'], 'OTLP agent');
    assert.equal(span.attributes['gen_ai.conversation.id'], chat);
    assert.match(span.attributes['gen_ai.tool.call.id'], /^\d+$/);
    assert.equal(span.attributes['toolgate.site'], site);
    assert.equal(span.attributes['toolgate.decision'], 'run');
    assert.equal(span.attributes['toolgate.class'], 'Read only');
    assert.ok(span.attributes['toolgate.why'].length > 0);
    assert.equal(span.status, 0);
    assert.equal(span.resource['service.name'], 'toolgate');
    assert.equal(span.traceId, ran[0].traceId, 'one chat, one trace');
  }
  assert.notEqual(ran[0].attributes['gen_ai.tool.call.id'], ran[1].attributes['gen_ai.tool.call.id']);
  const refused = spans.find((span) => span.name === 'execute_tool delete_note');
  assert.equal(refused.status, 2, 'a refusal is an error status');
  assert.equal(refused.attributes['error.type'], 'toolgate.refused');
  assert.equal(refused.attributes['toolgate.class'], 'Consequential');
  assert.equal(refused.attributes['toolgate.card'], 'call', 'the card that refused it, on its span');
  assert.equal(refused.attributes['toolgate.answer.label'], 'Deny this call');

  const records = recordsIn(lines);
  const answer = records.find((record) => record.attributes['toolgate.label'] === 'Deny this call');
  assert.equal(answer.attributes['event.name'], 'toolgate.answer');
  assert.equal(answer.traceId, refused.traceId, "an answer is in its chat's trace");
  assert.equal(answer.spanId, refused.spanId, 'and names the call it answered');
  // The site's first rule change starts its rules (docs/rules.md).
  const rule = records.find((record) => record.attributes['event.name'] === 'toolgate.rules');
  assert.equal(rule.body, `Rules started on ${site}`);
  assert.equal(JSON.parse(rule.attributes['toolgate.to']).write, 'off');
  assert.equal(rule.traceId, '', "a person's change is in no agent's trace");

  // The settings page tells the person, with the policy's endpoint.
  await settings.locator('#audit-sending', { hasText: endpoint }).waitFor();
  assert.match(await settings.locator('#audit-sending').textContent(), /^Your administrator's policy sends this audit, as it happens, to /);

  // The export as OTLP JSON: the same spans, decoded the same way.
  for (const [button, kind] of [['Export requests as OTLP spans', 'spans'], ['Export other entries as OTLP logs', 'records']]) {
    const download = settings.waitForEvent('download');
    await settings.getByRole('button', { name: button }).click();
    const file = await (await download).path();
    const decoded = await receiver.say(`decode ${file}`, (line) => line.decoded);
    assert.deepEqual(decoded.problems, []);
    if (kind === 'spans') {
      // What was stored, as what was sent: the same ids (the export has no class).
      for (const span of spans) {
        const same = decoded.spans.find((exported) => exported.spanId === span.spanId);
        assert.ok(same, `${span.name} ${span.spanId} exported`);
        assert.equal(same.traceId, span.traceId);
        assert.equal(same.name, span.name);
      }
    } else {
      assert.ok(decoded.records.some((record) => record.attributes['event.name'] === 'toolgate.rules'));
      assert.ok(decoded.records.some((record) => record.spanId === refused.spanId));
    }
  }
  await settings.close();
});

test('the collector down for a while, then up: what the queue held arrives, what it could not hold is counted as dropped', { skip: SKIP, timeout: 120_000 }, async () => {
  const worker = await h.browser.worker();
  // Everything before is sent; then a small queue, and no collector.
  await until(async () => {
    const now = await sending();
    return now.queued === 0 && now.sending === 0;
  });
  const before = await sending();
  const BOUND = 5;
  await worker.evaluate((most) => self.toolgate.auditQueueBound(most), BOUND);
  const received = spansIn(receiver.lines).length;
  await receiver.say('down', (line) => line.down);

  const CALLS = 20;
  const ids = [];
  for (let i = 0; i < CALLS; i++) {
    const reply = await h.runs(chat, tab.tabId, 'list_notes');
    ids.push(String(reply.id));
  }
  // Every entry is in the queue, on its way, or dropped; and a send failed.
  await until(async () => {
    const now = await sending();
    return now.failures > before.failures
      && now.queued + now.sending + now.dropped - before.dropped === CALLS;
  });
  const down = await sending();
  assert.ok(down.queued <= BOUND && down.sending <= BOUND, `the queue holds its bound: ${JSON.stringify(down)}`);
  assert.ok(down.dropped - before.dropped >= CALLS - 2 * BOUND, 'the oldest waiting were dropped, and counted');
  assert.equal(down.endpoint, endpoint);

  await receiver.say('up', (line) => line.up);
  const kept = CALLS - (down.dropped - before.dropped);
  await receiver.until((all) => spansIn(all).length - received >= kept);
  const after = spansIn(receiver.lines).slice(received);
  const got = after.map((span) => span.attributes['gen_ai.tool.call.id']);
  assert.equal(new Set(got).size, kept, `each kept entry once: ${got}`);
  assert.ok(got.every((id) => ids.includes(id)));
  assert.deepEqual(ids.slice(-BOUND).filter((id) => got.includes(id)), ids.slice(-BOUND), 'the newest are never the dropped');
  assert.deepEqual(receiver.lines.filter((line) => line.path).flatMap((line) => line.problems), []);
  // The worker counts a request sent once the collector's answer reaches it, after the collector has it.
  await until(async () => (await sending()).sent - before.sent >= kept);
  const now = await sending();
  assert.equal(now.dropped, down.dropped, 'nothing more dropped once the collector is back');
  assert.equal(now.sent - before.sent, kept);
  await worker.evaluate(() => self.toolgate.auditQueueBound(1000));
});

// Resolves once `check` (async) holds, asking again after each of the
// worker's answers.
async function until(check) {
  while (!(await check())) await new Promise((done) => setTimeout(done, 50));
}
