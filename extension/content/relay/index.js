// Toolgate's relay, in the content script's isolated world, in every frame,
// at document_start, just before the shim (extension/content/main-world/).
//
// The shim cannot reach chrome.runtime, so it hands its messages to this
// script as JSON text, dispatched on an EventTarget it gives this script
// before any page script runs (../handshake.js; ARCHITECTURE.md, "The shim–relay
// channel"); this script forwards them to the service worker and hands the
// answers back on the same target. Nothing the shim sends is trusted: the
// worker reads every message as page input (the core's `FromPage`) and
// takes the frame's identity from the browser's `sender`, never from the text.
//
// build.sh bundles this file and what it imports with esbuild into
// pkg/relay.js (an IIFE), which the manifest injects.
//
// Every document runs this before its first script, so it does almost nothing
// then: the handshake, and no more. The first touch of `chrome.runtime` costs every document time (it
// builds the API's bindings). It listens to the worker once the frame first
// reports (the worker calls only frames that have reported tools) or once the
// page has loaded (for the palette's ping), whichever comes first.
import { HELLO, TO_PAGE, TO_RELAY } from '../handshake.js';
import { withTimeout } from '../../shared/deadlines.js';
import { askWorker, untilAWorkerAnswers } from '../../shared/chromium-errors.js';
import { changes, storageNow, unwatch, watching } from './storage.js';
import { frameFacts } from './frame-facts.js';

// ---- The channel ------------------------------------------------------------
// The shim's channel comes in the document's first hello, which is the
// shim's: it comes before any page script. A later hello (the page's) is not
// heard. What the shim dispatches is read in a microtask, never inside the
// shim's dispatch.
let channel = null;
function handOver(event) {
  window.removeEventListener(HELLO, handOver, true);
  const target = event.relatedTarget; // a hello of the page's own, where it came first, may carry none
  if (!(target instanceof EventTarget)) return;
  channel = target;
  channel.addEventListener(TO_RELAY, (message) => {
    const text = message.detail;
    queueMicrotask(() => fromShim(text));
  });
}
window.addEventListener(HELLO, handOver, true);

function toPage(message) {
  channel?.dispatchEvent(new CustomEvent(TO_PAGE, { detail: JSON.stringify(message) }));
}

// What the shim sends, read only as far as this script must: the number it
// answers to. Reports and native calls go to the worker as the
// text they are; the worker reads them as `FromPage` (parsing a report of
// many tools here, to send it on as an object, would cost the page's main
// thread about as much as registering them). The shim writes `type` and the
// number first (main-world/channel.js).
const UPDATES = /^\{"type":"updates","batch":(\d{1,15}),"ops":/;
const NATIVE_CALL = /^\{"type":"native_call","call":(\d{1,15}),/;
const EXPOSED_CALL = /^\{"type":"exposed_call","call":(\d{1,15}),/;
const EXPOSED_TOOLS = /^\{"type":"exposed_tools","call":(\d{1,15}),/;
const EXPOSED_RUN = /^\{"type":"exposed_run","call":(\d{1,15}),/;

function fromShim(text) {
  if (typeof text !== 'string') return;
  let number;
  if ((number = UPDATES.exec(text))) {
    forward(Number(number[1]), text);
  } else if ((number = NATIVE_CALL.exec(text))) {
    nativeCall(Number(number[1]), text);
  } else if ((number = EXPOSED_CALL.exec(text))) {
    exposedCall(Number(number[1]), text);
  } else if ((number = EXPOSED_TOOLS.exec(text))) {
    // Where the browser has no WebMCP to carry them, other origins' frames'
    // tools are listed and run through the worker (main-world/exposed-frames.js).
    const call = Number(number[1]);
    listenToWorker();
    inTurn((done) => ask(text, (reply) => {
      toPage({ type: 'exposed_tools_result', call, tools: Array.isArray(reply?.tools) ? reply.tools : [] });
      done();
    }, () => {
      toPage({ type: 'exposed_tools_result', call, tools: [] });
      done();
    }));
  } else if ((number = EXPOSED_RUN.exec(text))) {
    // Asked once, not again: a worker that stopped meanwhile may have run it.
    const call = Number(number[1]);
    inTurn((done) => askWorker(text).then((reply) => toPage({
      type: 'exposed_run_result', call, ok: reply?.ok === true, json: reply?.json, error: reply?.error, thrown: reply?.thrown === true,
    }), (error) => toPage({ type: 'exposed_run_result', call, ok: false, error: String(error?.message ?? error) })).finally(done));
  } else {
    callResult(text);
  }
}

// Each request of other origins' exposed tools costs the worker a question
// to every frame of the tab (background/exposed.js): a frame has at most
// EXPOSED_AT_ONCE of them in flight, the rest wait their turn, so a page
// that floods is held to the worker's pace.
const EXPOSED_AT_ONCE = 4;
let exposedInFlight = 0;
const exposedWaiting = [];
function inTurn(start) {
  if (exposedInFlight >= EXPOSED_AT_ONCE) {
    exposedWaiting.push(start);
    return;
  }
  exposedInFlight += 1;
  start(() => {
    exposedInFlight -= 1;
    const next = exposedWaiting.shift();
    if (next) inTurn(next);
  });
}

// ---- Reports of the frame's tools ---------------------------------------
// What of the worker's refusal the page is told: why its report could not
// be read, which is about its own text, and otherwise only that Toolgate
// could not take it. Never a storage error's words: they would tell a page
// how full the storage every tab and the agent session share is. (What
// passes Toolgate's caps is refused per registration, in `results`, with
// the cap's own words: docs/classes.md, "What Toolgate keeps".)
const READ_ERROR = /^bad page message: /;
const refusal = (error) => (error == null ? null
  : READ_ERROR.test(String(error)) ? String(error) : 'Toolgate could not take this report');

// One report in flight per frame: those the page makes meanwhile are held,
// and go together in one message (an array of their texts) once the
// worker answers. A page that floods is throttled to the worker's pace,
// and costs the browser one message per round trip, not one per report
// (README, figure 10). Answers go back per report, in order.
let inFlight = false;
let reported = false;
let held = []; // [batch, text] of reports made while one is in flight
function forward(batch, report) {
  listenToWorker();
  reported = true;
  if (inFlight) {
    held.push([batch, report]);
    return;
  }
  send([[batch, report]]);
}
function send(reports) {
  inFlight = true;
  const one = reports.length === 1;
  const done = () => {
    inFlight = false;
    if (held.length === 0) return;
    const next = held;
    held = [];
    send(next);
  };
  // Through `ask`: a report sent while the worker stops is sent again to the
  // next one, not lost (the page would keep tools the worker never heard of).
  ask(
    one ? reports[0][1] : reports.map(([, text]) => text),
    (answer) => {
      const answers = one ? [answer] : answer?.answers ?? [];
      reports.forEach(([batch], i) => {
        const said = answers[i];
        toPage({ type: 'results', batch, results: said?.results ?? [], error: refusal(said?.error ?? answer?.error) });
      });
      done();
    },
    // The extension was reloaded or updated under this page: its tools stay
    // usable by the page, and the palette tells the person to reload the tab.
    (why) => {
      for (const [batch] of reports) toPage({ type: 'results', batch, results: [], error: why });
      done();
    },
  );
}

// A document going away for good (an iframe removed, a page left without
// the back/forward cache) takes its tools with it: this says so as it goes,
// so the icon's count is right without waiting for the palette to look.
// Here, not in the shim, which would need this script to pass it on as the
// document goes. Reports held meanwhile need not go.
const LEAVING = JSON.stringify({ type: 'updates', batch: 0, ops: [{ op: 'reset' }] });
window.addEventListener('pagehide', function leaving(event) {
  if (event.persisted || !reported) return;
  try {
    chrome.runtime.sendMessage(LEAVING).catch(() => {});
  } catch {
    // The extension was reloaded: the worker forgot this frame already.
  }
});

// ---- Asking the worker, again if it was stopped ------------------------------
// A message the worker must answer even if it stopped meanwhile (MV3 stops
// idle workers): sent again while Chromium says no worker took it or none
// answered it (shared/chromium-errors.js). `settle(reply)` gets the worker's
// answer; `fail(why)` the reason it could not be asked (at once where the
// extension was reloaded: this frame's relay is cut off).
function ask(text, settle, fail) {
  untilAWorkerAnswers(() => askWorker(text)).then(settle, (error) => fail(String(error?.message ?? error)));
}

// A call that reached the page's copy of a tool in the browser's own
// WebMCP (main-world/native.js, gatedExecute): the worker decides it, and may
// first ask the person, which can take minutes. Only where the browser has
// a WebMCP of its own: elsewhere no browser agent exists, and nothing may
// speak for one (ARCHITECTURE.md, "Who is gated"). This world's prototypes
// are the browser's, which the page cannot change.
let browserWebMCP;
const hasBrowserWebMCP = () => (browserWebMCP ??= 'modelContext' in Document.prototype || 'modelContext' in Navigator.prototype);
function nativeCall(call, text) {
  const failed = (why) => toPage({ type: 'native_result', call, failed: why });
  if (!hasBrowserWebMCP()) {
    failed('this browser has no WebMCP of its own, so no browser agent calls here');
    return;
  }
  listenToWorker();
  ask(text, (reply) => toPage({ type: 'native_result', call, reply }), failed);
}

// The page saying it is about to call, through the browser's own WebMCP, a
// tool another origin's frame exposed to it (main-world/cross-origin.js): the
// worker keeps a pass for that call, or not, and answers at once. Only where
// the browser has a WebMCP: elsewhere no such call is made.
function exposedCall(call, text) {
  const answer = (granted) => toPage({ type: 'exposed_result', call, granted });
  if (!hasBrowserWebMCP()) {
    answer(false);
    return;
  }
  ask(text, (reply) => answer(reply?.granted === true), () => answer(false));
}

// ---- Agents' calls, run by the shim -----------------------------------------
// Calls the worker asked this frame to run: this relay's own call id ->
// the function that answers the worker. Not the worker's id: a worker that
// stopped and started again counts some ids anew, and a late answer to the
// old worker's call must never answer the new worker's.
const calls = new Map();
let lastCall = 0;
// The watched ones: call id -> { before: the storage as it started,
// together: another call ran in this frame meanwhile } (storage.js).
const watched = new Map();

function callResult(text) {
  let result;
  try {
    result = JSON.parse(text);
  } catch {
    return;
  }
  if (result?.type !== 'call_result' || !calls.has(result.call_id)) return;
  const answer = calls.get(result.call_id);
  calls.delete(result.call_id);
  const watch = watched.get(result.call_id);
  watched.delete(result.call_id);
  const seen = watch && { ...storageWrites(result.seen, watch), ...requestsSent(result.seen) };
  answer(result.ok === true ? { ok: true, json: result.json, seen } : { ok: false, error: String(result.error), seen });
}

// The storage writes seen during a watched call (docs/classes.md, "Hints
// held to their word"): those the shim saw, in the shape the core reads,
// bounded (the page could have written anything there), and those comparing
// the storage found that the shim did not see (storage.js). `more`: writes
// seen past the bound.
const KEPT = 20;
function storageWrites(seen, { before, together }) {
  const text = (value) => (typeof value === 'string' ? value.slice(0, 200) : '');
  const fromShim = Array.isArray(seen?.writes) ? seen.writes : [];
  const more = Number.isSafeInteger(seen?.more) && seen.more > 0 ? seen.more : 0;
  const writes = fromShim.slice(0, KEPT).map((item) => ({
    storage: {
      area: text(item?.storage?.area), op: text(item?.storage?.op), key: text(item?.storage?.key),
      together: item?.storage?.together === true,
    },
  }));
  // Told already: the same key, or the area cleared; for an area too large
  // to say which key (`changed`, `unchecked`), any write to it.
  const told = ({ area, op, key }) => writes.some(({ storage }) => storage.area === area
    && (storage.key === text(key) || storage.op === 'clear' || op === 'changed' || op === 'unchecked'));
  let found = [];
  try {
    found = changes(before).filter((change) => !told(change));
  } catch {
    // Never in the way of the call's answer: what the shim saw still goes.
  }
  const kept = found.slice(0, Math.max(0, KEPT * 2 - writes.length));
  for (const { area, op, key, by } of kept) {
    writes.push({ storage: { area, op, key: text(key), together, ...(by === undefined ? {} : { by }) } });
  }
  return { writes, more: more + fromShim.length - Math.min(fromShim.length, KEPT) + found.length - kept.length };
}

// The requests the shim saw the call's document send (main-world/requests.js),
// bounded: a method and an address, each a string or null (unread); `sent_more`
// past the bound.
const SENT_KEPT = 64;
function requestsSent(seen) {
  const read = (value) => (typeof value === 'string' ? value.slice(0, 4096) : null);
  const fromShim = Array.isArray(seen?.sent) ? seen.sent : [];
  const sent = fromShim.slice(0, SENT_KEPT).map((item) => ({ method: read(item?.method), url: read(item?.url) }));
  return { sent, sent_more: seen?.sent_more === true || fromShim.length > SENT_KEPT };
}

let listening = false;
function listenToWorker() {
  if (listening) return;
  listening = true;
  chrome.runtime.onMessage.addListener(fromWorker);
}
// Content scripts at document_start come before `load`. (Not `document`:
// its first touch in this world costs the document more than `window`'s.)
window.addEventListener('load', () => setTimeout(listenToWorker), { once: true });

// Only Toolgate's service worker talks to this script this way.
function fromWorker(message, sender, respond) {
  if (sender.id !== chrome.runtime.id || sender.tab) return false;
  if (message?.type === 'ping') {
    respond({ type: 'pong' });
    return false;
  }
  // Where this frame is, for the worker's view of the tab's frames
  // (frame-facts.js), and a change in what other origins' frames expose to
  // this one, for the page's toolchange (background/exposed.js).
  if (message?.type === 'frame_facts') {
    respond(frameFacts());
    return false;
  }
  if (message?.type === 'exposed_changed') {
    toPage({ type: 'exposed_changed' });
    return false;
  }
  if (message?.type === 'call') {
    // The arguments come as the JSON text the core checked, read here, in
    // the page's process, not in the worker every tab shares.
    let args;
    try {
      args = JSON.parse(message.arguments_json);
    } catch {
      respond({ ok: false, error: 'the call came without readable arguments' });
      return false;
    }
    const callId = ++lastCall;
    const answered = new Promise((resolve) => calls.set(callId, resolve));
    // The worker stops waiting after its call timeout; a second later this
    // relay lets go too, so that a tool that never answers holds nothing
    // (here, or the worker's message) for the document's life.
    const timeout = Number(message.timeout_ms);
    const bounded = Number.isFinite(timeout) && timeout >= 0
      ? withTimeout(answered, timeout + 1000, 'the tool did not answer within the call timeout')
      : answered;
    if (message.watch === true) {
      // Another call running here, or to come before this one answers:
      // what the storage shows cannot be told apart.
      const together = calls.size > 1;
      for (const other of watched.values()) if (together) other.together = true;
      const before = storageNow();
      watching(before);
      watched.set(callId, { before, together });
    }
    bounded.then(respond, (error) => {
      calls.delete(callId);
      if (watched.has(callId)) unwatch(watched.get(callId).before);
      watched.delete(callId);
      toPage({ type: 'call_abandoned', call_id: callId });
      respond({ ok: false, error: error.message });
    });
    toPage({
      type: 'call', call_id: callId, source: message.source, name: message.name, arguments: args,
      native_call: message.native_call, watch: message.watch === true,
    });
    return true; // The answer comes when the page's tool settles.
  }
  return false;
}
