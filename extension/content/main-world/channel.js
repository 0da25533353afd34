// The channel to the relay (relay.js, in the isolated world), outward: the
// event names, and the reports of what this frame publishes, batched per task
// (report, flush). The batches waiting for their answers are in `waiting`;
// the answers come in through from-relay.js.
//
// Imports: primordials.js, dom.js.

import {
  arrayPush, dispatch, MapCtor, mapSet, queueMicrotaskFn, stringify, win,
} from './primordials.js';
import { CustomEventCtor } from './dom.js';

export const TO_RELAY = 'toolgate:to-relay';
export const TO_PAGE = 'toolgate:to-page';
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
  const batch = nextBatch++;
  const ops = pendingOps;
  mapSet(waiting, batch, pendingCallbacks);
  pendingOps = [];
  pendingCallbacks = [];
  // In this order: the relay reads `type` and `batch` from the text's start.
  dispatch(win, new CustomEventCtor(TO_RELAY, { detail: stringify({ type: 'updates', batch, ops }) }));
}
