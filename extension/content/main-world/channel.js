// The channel to the relay (relay/index.js, in the isolated world): an
// EventTarget this frame hands the relay before any page script runs
// (connect, at document_start), what goes out on it (send), and the reports
// of what this frame publishes, batched per task (report, flush). The batches
// waiting for their answers are in `waiting`; the answers come in through
// from-relay.js.
//
// The target is kept in this bundle's closure; the page never sees it, and no
// event or message of the page's reaches the relay (ARCHITECTURE.md, "The
// shim–relay channel"). Both worlds dispatch on it synchronously, each reading
// what it gets in a microtask: no task, and no wait for the thread to wake,
// between the relay and the page's tool (benches/JOURNAL.md).
//
// Imports: primordials.js, json.js, ../handshake.js.

import {
  arrayPush, customDetail, CustomEventBase, dispatch, EventTargetCtor, FocusEventCtor, listen, MapCtor, mapSet,
  queueMicrotaskFn, win,
} from './primordials.js';
import { jsonText } from './json.js';
import { readRegistrations } from './provenance.js';
import { HELLO, TO_PAGE, TO_RELAY } from '../handshake.js';

let channel = null;

// Hands the relay the channel, at document_start: the relay takes it within
// this dispatch, from the first hello of the document only. `onText` gets
// each message the relay sends (JSON text), in a microtask of its own, never
// inside the relay's dispatch.
export function connect(onText) {
  channel = new EventTargetCtor();
  dispatch(win, new FocusEventCtor(HELLO, { __proto__: null, relatedTarget: channel }));
  listen(channel, TO_PAGE, (event) => {
    const text = customDetail(event);
    queueMicrotaskFn(() => onText(text));
  });
}

// One message to the relay, as JSON text the shim wrote (json.js's
// jsonText: no hook of the page's runs as it is written). The event's
// dictionary has no prototype: no getter a page put on Object.prototype is
// read into it.
export function send(text) {
  dispatch(channel, new CustomEventBase(TO_RELAY, { __proto__: null, detail: text }));
}

let pendingOps = [];
let pendingCallbacks = [];
let nextBatch = 1;
export const waiting = new MapCtor(); // batch id -> callbacks for its register results, in order

// Queues one op; the ops of one task go to the worker as one message.
// `onResult` receives the worker's answer to each declaration registered.
export function report(op, onResult = null) {
  if (pendingOps.length === 0) queueMicrotaskFn(flush);
  arrayPush(pendingOps, op);
  const declarations = op.op === 'register' ? 1 : op.op === 'provide' ? op.decls.length : 0;
  for (let i = 0; i < declarations; i++) arrayPush(pendingCallbacks, onResult);
}

export function flush() {
  if (pendingOps.length === 0) return; // Flushed already, by `pagehide`.
  // Where each tool registered in this task comes from, read now (provenance.js).
  readRegistrations();
  const batch = nextBatch++;
  const ops = pendingOps;
  mapSet(waiting, batch, pendingCallbacks);
  pendingOps = [];
  pendingCallbacks = [];
  // In this order: the relay reads `type` and `batch` from the text's start.
  send(jsonText({ type: 'updates', batch, ops }));
}
