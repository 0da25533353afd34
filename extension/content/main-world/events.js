// How Toolgate's objects fire their events: WebMCP's steps queued as tasks
// (queueTask), and `on<type>` event handler attributes (defineEventHandler).
//
// Imports: primordials.js, dom.js.

import {
  apply, arrayPush, channelPort1, channelPort2, defineProperty, dispatch, listen, MessageChannelCtor,
  portPost, portSetOnMessage, unlisten,
} from './primordials.js';
import { EventCtor, ToolActivatedEventCtor, ToolCancelEventCtor } from './dom.js';

// A task, not a microtask: WebMCP's events and promise resolutions are
// queued as tasks. Steps queued one after another (a page registering
// 1,000 tools in a loop queues 1,000 `toolchange` events and 1,000
// resolutions) run in order in one later task, not one task each: none
// runs in the task that queued it, and each promise resolves after its
// event. A step that answers getTools() or runs a tool ends its batch:
// what the page does on it (an `await getTools()` followed by adding a
// `toolchange` listener) runs before the next step, as between two tasks,
// and hears the event queued after it. (Ending the batch at every
// resolution too cost a loop of 1,000 registrations 30 ms more:
// benches/JOURNAL.md.) The draft queues these tasks from
// steps run in parallel, so it promises no order between them and other
// tasks. The channel is made on first use.
let taskChannel = null; // the port to post to
let taskQueue = [];
let taskEnds = []; // for each queued task, whether it ends its batch
function post() {
  if (taskChannel === null) {
    const channel = new MessageChannelCtor();
    portSetOnMessage(channelPort1(channel), runTasks);
    taskChannel = channelPort2(channel);
  }
  portPost(taskChannel, null);
}
function runTasks() {
  const tasks = taskQueue;
  const ends = taskEnds;
  taskQueue = [];
  taskEnds = [];
  let i = 0;
  while (i < tasks.length) {
    tasks[i]();
    i += 1;
    if (ends[i - 1]) break;
  }
  if (i === tasks.length) return;
  // The rest go first, before what was queued meanwhile (which has its message posted).
  const queuedMeanwhile = taskQueue.length;
  const laterTasks = taskQueue;
  const laterEnds = taskEnds;
  taskQueue = [];
  taskEnds = [];
  for (let j = i; j < tasks.length; j++) {
    arrayPush(taskQueue, tasks[j]);
    arrayPush(taskEnds, ends[j]);
  }
  for (let j = 0; j < laterTasks.length; j++) {
    arrayPush(taskQueue, laterTasks[j]);
    arrayPush(taskEnds, laterEnds[j]);
  }
  if (queuedMeanwhile === 0) post();
}
// `shared`: the step may share its task with the next (it fires an event,
// or resolves registerTool's promise).
export function queueTask(task, shared = false) {
  if (taskQueue.length === 0) post();
  arrayPush(taskQueue, task);
  arrayPush(taskEnds, !shared);
}

// An `on<type>` event handler attribute.
export function defineEventHandler(proto, type) {
  const handlers = new WeakMap();
  defineProperty(proto, `on${type}`, {
    configurable: true,
    enumerable: true,
    get() { return handlers.get(this)?.handler ?? null; },
    set(handler) {
      const old = handlers.get(this);
      if (old) unlisten(this, type, old.listener);
      handlers.delete(this);
      if (typeof handler !== 'function') return;
      const listener = (event) => apply(handler, this, [event]);
      handlers.set(this, { handler, listener });
      listen(this, type, listener);
    },
  });
}

// Where `toolactivated` and `toolcancel` fire (start.js fills this in).
// Neither bubbles nor is cancelable.
export const toolEventTargets = [];
export function fireToolEvent(type, toolName) {
  const Ctor = type === 'toolactivated' ? ToolActivatedEventCtor : ToolCancelEventCtor;
  for (let i = 0; i < toolEventTargets.length; i++) {
    const target = toolEventTargets[i];
    let event;
    if (Ctor) event = new Ctor(type, { toolName });
    else {
      event = new EventCtor(type);
      defineProperty(event, 'toolName', { value: toolName, enumerable: true });
    }
    dispatch(target, event);
  }
}
