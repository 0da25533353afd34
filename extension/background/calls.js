// Running a tool for an agent: in the frame and document that registered it,
// within the call timeout, its result capped by the core.
import { nativeCallOf } from './browser-agent.js';
import { saysDocumentGone } from '../shared/chromium-errors.js';
import { fromJson, loaded, policyHolds, ready } from './core.js';
import { runArguments } from '../../pkg/toolgate.js';
import { withTimeout } from '../shared/deadlines.js';
import { deliver, isWaitedFor } from './replies.js';
import { changeSession, recordBeforeRun } from './session.js';
import { settings, settingsNow } from './settings.js';
import { ended, watchCall } from './watch.js';

// Runs a tool in the frame and document that registered it, for request
// `id` of `chat`.
export async function run(chat, id, spec) {
  // Long arguments come apart from the step (src/wasm/checked.rs), taken
  // before anything else can ask the core for another step.
  const args = spec.arguments ?? runArguments(spec.call_id);
  // Asked first, in the turn the call was decided in.
  const policyChanged = await policyHolds();
  const { callTimeoutMs, resultCapBytes } = settingsNow() ?? await settings();
  // A call is recorded before it starts, unless running it twice is harmless.
  if (!spec.repeatable && !policyChanged) recordBeforeRun(loaded ?? await ready);
  const { result, failure } = policyChanged ? { failure: policyChanged } : await watched(chat, id, spec, args, callTimeoutMs);
  // An agent waiting here takes the reply now: it need not be kept.
  const taken = isWaitedFor(chat, id);
  const reply = await changeSession((core) => fromJson(core.finish(spec.call_id, result, failure, resultCapBytes, taken, Date.now())));
  if (reply) await deliver(chat, id, reply, !taken);
}

// The call run in its page, and what its tab was seen doing meanwhile
// (watch.js); judged before the reply is written, which then says so.
async function watched(chat, id, spec, args, callTimeoutMs) {
  const watch = watchCall(spec);
  const { result, failure, seen } = await runInPage(chat, id, spec, args, callTimeoutMs, watch.on);
  await ended(watch, seen, spec.call_id);
  return { result, failure };
}

// The call sent to its frame: `{ result }`, the result's JSON text as the
// page wrote it, or `{ failure }`, why there is none; `seen`, the storage
// writes the page saw meanwhile, for a watched call.
async function runInPage(chat, id, spec, args, callTimeoutMs, watched) {
  try {
    const answer = await withTimeout(
      chrome.tabs.sendMessage(
        spec.tab_id,
        // The core hands the arguments over as JSON text (see `Run`), and the
        // frame's relay reads them: not this thread, which every tab shares.
        {
          type: 'call', source: spec.source, name: spec.name, arguments_json: args, timeout_ms: callTimeoutMs,
          // For the browser's own agent, the page hands it the tool's own value.
          native_call: nativeCallOf(chat, id, spec.document_id),
          watch: watched,
        },
        { frameId: spec.frame_id, documentId: spec.document_id },
      ),
      callTimeoutMs,
      `${spec.name} did not answer within ${seconds(callTimeoutMs)} s`,
    );
    const seen = answer?.seen;
    if (answer?.ok === true && typeof answer.json === 'string') return { result: answer.json, seen };
    return { failure: String(answer?.error ?? 'the page gave no answer'), seen };
  } catch (error) {
    return { failure: callFailure(spec, error) };
  }
}

// "60", "1.5": a timeout as a person reads it.
const seconds = (ms) => String(Math.round(ms / 100) / 10);

// Why a call failed, as its agent is told.
function callFailure(spec, error) {
  const text = String(error?.message ?? error);
  if (error?.timedOut) return text;
  if (saysDocumentGone(text)) {
    return `the page that published ${spec.name} went away (its tab closed or navigated) before the tool answered`;
  }
  return `${spec.name} could not be run: ${text}`;
}
