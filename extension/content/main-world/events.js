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
// queued as tasks. The steps queued during one task (a page registering
// 1,000 tools in a loop queues 2,000: a `toolchange` event and then a
// resolution, per tool) run in order in one later task, not 2,000 tasks:
// every event still fires, none in the task that queued it, each promise
// after its own event. What goes is the microtask checkpoint between two
// steps: microtasks queued by a listener or a promise reaction run after
// the whole batch. The draft queues these tasks from steps run in
// parallel, so it promises no order between them and other tasks.
// The channel is made on first use.
let taskChannel = null; // the port to post to
let taskQueue = [];
function runTasks() {
  const tasks = taskQueue;
  taskQueue = [];
  for (let i = 0; i < tasks.length; i++) tasks[i]();
}
export function queueTask(task) {
  if (taskQueue.length === 0) {
    if (taskChannel === null) {
      const channel = new MessageChannelCtor();
      portSetOnMessage(channelPort1(channel), runTasks);
      taskChannel = channelPort2(channel);
    }
    portPost(taskChannel, null);
  }
  arrayPush(taskQueue, task);
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
  for (const target of toolEventTargets) {
    let event;
    if (Ctor) event = new Ctor(type, { toolName });
    else {
      event = new EventCtor(type);
      defineProperty(event, 'toolName', { value: toolName, enumerable: true });
    }
    dispatch(target, event);
  }
}
