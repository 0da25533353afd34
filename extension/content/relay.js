// Toolgate's relay, in the content script's isolated world, in every frame.
//
// The MAIN-world shim (extension/content/main-world/, bundled into
// pkg/main-world.js) cannot reach chrome.runtime, so it hands its reports to
// this script as CustomEvents carrying JSON text; this script forwards them
// to the service worker and hands the answers back the same way.
// The page can dispatch the same events, so nothing here is trusted: the
// worker parses every report as page input and takes the frame's identity from
// the browser's `sender`, never from the report.
//
// Every document runs this before its first script, so it does almost nothing
// then: the first touch of `chrome.runtime` costs every document time (it
// builds the API's bindings). It listens to the worker once the frame first
// reports (the worker calls only frames that have reported tools) or once the
// page has loaded (for the palette's ping), whichever comes first.
(() => {
  'use strict';

  const TO_RELAY = 'toolgate:to-relay';
  const TO_PAGE = 'toolgate:to-page';

  function toPage(message) {
    window.dispatchEvent(new CustomEvent(TO_PAGE, { detail: JSON.stringify(message) }));
  }

  // Calls the worker asked this frame to run: this relay's own call id ->
  // {respond, timer}. Not the worker's id: a worker that stopped and started
  // again counts some ids anew, and a late answer to the old worker's call
  // must never answer the new worker's.
  const calls = new Map();
  let lastCall = 0;

  // One timer watches every call's deadline: a timer set and cleared per
  // call costs the page's main thread on every call (README, figure 4). It
  // is set again only for a deadline earlier than the one it waits for, so
  // once the calls are over it fires at most once more, and finds nothing.
  // Timers take at most 2^31 − 1 ms (24.8 days): a longer delay fires at
  // once. A timer capped there finds nothing due, and is set again.
  const LONGEST_TIMER_MS = 2 ** 31 - 1;
  let sweep = { timer: undefined, at: Infinity };
  function watch(at) {
    if (at >= sweep.at) return;
    clearTimeout(sweep.timer);
    sweep = { timer: setTimeout(expire, Math.min(LONGEST_TIMER_MS, Math.max(0, at - performance.now()))), at };
  }
  function expire() {
    sweep = { timer: undefined, at: Infinity };
    const now = performance.now();
    for (const [callId, { respond, at }] of calls) {
      if (at <= now) {
        calls.delete(callId);
        respond({ ok: false, error: 'the tool did not answer within the call timeout' });
      } else {
        watch(at);
      }
    }
  }

  // A report of the frame's tools, as the shim writes it (main-world/channel.js).
  // It goes to the worker as the text it is: the worker reads it, as it reads
  // anything a page sends, so this relay reads only the batch number it answers to.
  // (Parsing a report of many tools here, to send it on as an object, would
  // cost the page's main thread about as much as registering them.)
  const UPDATES = /^\{"type":"updates","batch":(\d{1,15}),"ops":/;

  window.addEventListener(TO_RELAY, (event) => {
    const { detail } = event;
    if (typeof detail !== 'string') return;
    const updates = UPDATES.exec(detail);
    if (updates) {
      forward(Number(updates[1]), detail);
      return;
    }
    let report;
    try {
      report = JSON.parse(detail);
    } catch {
      return;
    }
    if (report?.type === 'native_call' && Number.isSafeInteger(report.call) && typeof report.name === 'string'
      && typeof report.source === 'string') {
      nativeCall(report);
      return;
    }
    if (report?.type === 'check_input' && Number.isSafeInteger(report.check) && typeof report.schema === 'string'
      && typeof report.input === 'string') {
      checkInput(report);
      return;
    }
    if (report?.type === 'call_result' && calls.has(report.call_id)) {
      const { respond } = calls.get(report.call_id);
      calls.delete(report.call_id);
      respond(report.ok === true ? { ok: true, json: report.json } : { ok: false, error: String(report.error) });
    }
  });

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
  let held = []; // [batch, text] of reports made while one is in flight
  function forward(batch, report) {
    listenToWorker();
    if (inFlight) {
      held.push([batch, report]);
      return;
    }
    send([[batch, report]]);
  }
  function send(reports) {
    inFlight = true;
    const one = reports.length === 1;
    chrome.runtime.sendMessage(one ? reports[0][1] : reports.map(([, text]) => text)).then(
      (answer) => {
        const answers = one ? [answer] : answer?.answers ?? [];
        reports.forEach(([batch], i) => {
          const said = answers[i];
          toPage({ type: 'results', batch, results: said?.results ?? [], error: refusal(said?.error ?? answer?.error) });
        });
      },
      // The extension was reloaded or updated under this page: its tools stay
      // usable by the page, and the palette tells the person to reload the tab.
      (error) => {
        for (const [batch] of reports) toPage({ type: 'results', batch, results: [], error: String(error?.message ?? error) });
      },
    ).finally(() => {
      inFlight = false;
      if (held.length === 0) return;
      const next = held;
      held = [];
      send(next);
    });
  }

  // A call that reached the page's copy of a tool in the browser's own
  // WebMCP (main-world/native.js, gatedExecute): the worker decides it, and may
  // first ask the person, which can take minutes. If the worker stopped
  // meanwhile (MV3 stops idle workers), the same call is sent again: the
  // worker finds it waiting on the same card, or its reply kept.
  const NATIVE_RETRIES = 5;
  // Chromium's words when no worker took the message: it stopped, or is
  // starting. The worker reads Chromium's other error texts in
  // extension/background/chromium-errors.js; a content script cannot import
  // a module, and a second content script would cost every document.
  const saysWorkerUnreachable = (text) => /message (port|channel) closed|Receiving end does not exist|Could not establish connection/i.test(text);
  function nativeCall({ call, source, name, arguments: input }, tries = 0) {
    listenToWorker();
    chrome.runtime.sendMessage({ type: 'native_call', call, source, name, arguments: input }).then(
      (reply) => toPage({ type: 'native_result', call, reply }),
      (error) => {
        const text = String(error?.message ?? error);
        if (tries < NATIVE_RETRIES && saysWorkerUnreachable(text)) {
          setTimeout(() => nativeCall({ call, source, name, arguments: input }, tries + 1), 100 * 2 ** tries);
          return;
        }
        toPage({ type: 'native_result', call, reply: { error: { code: -32000, message: `Toolgate could not decide this call: ${text}` } } });
      },
    );
  }

  // The page's own document.modelContext.executeTool, before its tool runs
  // (main-world/input-schema.js): does the input fit the tool's schema? The
  // worker's validator answers with the first fault, or null. Where no
  // worker answers, the input goes unchecked: the check guards the page's
  // own call of its own tool, and must not stop it.
  function checkInput({ check, schema, input }, tries = 0) {
    const answer = (fault) => toPage({ type: 'input_checked', check, fault });
    let sent;
    try {
      sent = chrome.runtime.sendMessage({ type: 'check_input', schema, input });
    } catch {
      answer(null); // the extension was reloaded: this frame's relay is cut off
      return;
    }
    sent.then((reply) => answer(reply?.fault ?? null), (error) => {
      if (tries < NATIVE_RETRIES && saysWorkerUnreachable(String(error?.message ?? error))) {
        setTimeout(() => checkInput({ check, schema, input }, tries + 1), 100 * 2 ** tries);
        return;
      }
      answer(null);
    });
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
    if (message?.type === 'call') {
      const callId = ++lastCall;
      // The worker stops waiting after its call timeout; a second later this
      // relay lets go too, so that a tool that never answers holds nothing
      // (here, or the worker's message) for the document's life.
      const timeout = Number(message.timeout_ms);
      const at = Number.isFinite(timeout) && timeout >= 0 ? performance.now() + timeout + 1000 : Infinity;
      calls.set(callId, { respond, at });
      watch(at);
      toPage({
        type: 'call', call_id: callId, source: message.source, name: message.name, arguments: message.arguments,
        native_call: message.native_call,
      });
      return true; // The answer comes when the page's tool settles.
    }
    return false;
  }
})();
