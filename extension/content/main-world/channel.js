// The channel to the relay (relay/index.js, in the isolated world): a
// MessageChannel whose other end this frame hands the relay before any page
// script runs (connect, at document_start), what goes out on it (send), and the reports of what this
// frame publishes, batched per task (report, flush). The batches waiting for
// their answers are in `waiting`; the answers come in through from-relay.js.
//
// The port is kept in this bundle's closure; the page never sees it, and no
// event or message of the page's reaches the relay (ARCHITECTURE.md, "The
// shim–relay channel").
//
// Imports: primordials.js, json.js, ../handshake.js.

import {
  arrayPush, channelPort1, channelPort2, dispatch, eventData, MapCtor, mapSet, MessageChannelCtor,
  MessageEventCtor, portPost, portSetOnMessage, queueMicrotaskFn, win,
} from './primordials.js';
import { jsonText } from './json.js';
import { HELLO } from '../handshake.js';

let port = null;

// Hands the relay one end of a new channel, at document_start: the relay
// takes it within this dispatch, from the first hello of the document only.
// `onText` gets each message the relay sends (JSON text).
export function connect(onText) {
  const channel = new MessageChannelCtor();
  dispatch(win, new MessageEventCtor(HELLO, { ports: [channelPort2(channel)] }));
  port = channelPort1(channel);
  portSetOnMessage(port, (event) => onText(eventData(event)));
}

// One message to the relay, as JSON text the shim wrote (json.js's
// jsonText: no hook of the page's runs as it is written).
export function send(text) {
  portPost(port, text);
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
  const batch = nextBatch++;
  const ops = pendingOps;
  mapSet(waiting, batch, pendingCallbacks);
  pendingOps = [];
  pendingCallbacks = [];
  // In this order: the relay reads `type` and `batch` from the text's start.
  send(jsonText({ type: 'updates', batch, ops }));
}
