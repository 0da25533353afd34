// Tools of other origins' frames where the browser has no WebMCP to reach
// them (Toolgate's polyfill: Chromium 148, or 156 with its WebMCP off). As
// Chromium 156 does it (cross-origin.js, where Toolgate wraps its object), a
// tool a frame of another origin in this tab exposes to this one
// (`exposedTo`) is listed by getTools({fromOrigins}), its changes fire
// `toolchange` here, and executeTool runs it in its frame; here the service
// worker does it, through its view of the tab's frames and the permissions
// policy's "tools" (background/exposed.js, src/decisions/exposed/tree.rs),
// with the pass the native path grants: the call runs as this page's, with
// no card (docs/agents.md, "Pages calling each other's tools").
//
// The frame's window is found by its place in the tab's frame tree, which
// the worker hands with each tool and this frame sends back with a call.
//
// Imports: primordials.js, dom.js, json.js, channel.js, events.js,
// registry.js, execute-tool.js.

import {
  arrayPush, isArray, listen, MapCtor, mapDelete, mapGet, mapSet, parse, PromiseCtor, rejected, toString, win,
} from './primordials.js';
import { signalAborted, signalReason, URLCtor } from './dom.js';
import { jsonText } from './json.js';
import { send } from './channel.js';
import { queueTask } from './events.js';
import { fireToolchange } from './registry.js';
import { unknownError } from './execute-tool.js';

// Chromium 156's words for a tool of another window or origin it cannot
// run, and for a tool that threw.
const UNKNOWN_TRANSIENT = 'The operation failed for an unknown transient reason (e.g. out of memory).';
const INVOCATION_FAILED = 'Tool was executed but the invocation failed. For example, the script function threw an error';
const DEPTH = 64;

// The window at `path` from the top (each step an index among a window's
// frames), or null.
function windowAt(path) {
  let at = win.top;
  for (let i = 0; i < path.length && i < DEPTH; i++) {
    let count = 0;
    try {
      count = at.length;
    } catch {
      return null;
    }
    const index = path[i];
    if (typeof index !== 'number' || !(index >= 0 && index < count)) return null;
    at = at[index];
  }
  return at ?? null;
}

// The place of `target` from the top, or null where it is no window of
// this tab's frame tree.
function pathOf(target) {
  const path = [];
  const walk = (frame, depth) => {
    if (frame === target) return true;
    if (depth >= DEPTH) return false;
    let count = 0;
    try {
      count = frame.length;
    } catch {
      return false;
    }
    for (let i = 0; i < count; i++) {
      arrayPush(path, i);
      if (walk(frame[i], depth + 1)) return true;
      path.length -= 1;
    }
    return false;
  };
  return walk(win.top, 0) ? path : null;
}

// The origins `fromOrigins` names (a sequence of URLs), as the worker
// compares them; what is no URL is left out.
export function originsOf(fromOrigins) {
  const origins = [];
  if (!isArray(fromOrigins)) return origins;
  for (let i = 0; i < fromOrigins.length && i < 256; i++) {
    try {
      const origin = new URLCtor(toString(fromOrigins[i])).origin;
      if (origin !== 'null' && origin !== win.origin) arrayPush(origins, origin);
    } catch {
      // Not a URL: no frame is of that origin.
    }
  }
  return origins;
}

let lastAsked = 0;
const asked = new MapCtor(); // number -> resolve

// What frames of `origins` expose to this one, as getTools() lists tools
// (RegisteredTool); never rejects (no answer lists none).
export function exposedTools(origins) {
  if (origins.length === 0) return new PromiseCtor((resolve) => resolve([]));
  const call = ++lastAsked;
  const detail = jsonText({ type: 'exposed_tools', call, from_origins: origins });
  return new PromiseCtor((resolve) => {
    mapSet(asked, call, resolve);
    send(detail);
  });
}

// The relay's answer to exposedTools (from-relay.js).
export function exposedToolsAnswer({ call, tools }) {
  const resolve = mapGet(asked, call);
  if (!resolve) return;
  mapDelete(asked, call);
  const list = [];
  for (let i = 0; isArray(tools) && i < tools.length; i++) {
    const tool = tools[i];
    const where = isArray(tool?.path) ? windowAt(tool.path) : null;
    if (where === null || typeof tool.name !== 'string') continue;
    let inputSchema;
    try {
      inputSchema = typeof tool.input_schema === 'string' ? parse(tool.input_schema) : undefined;
    } catch {
      inputSchema = undefined;
    }
    const item = {
      name: tool.name,
      title: typeof tool.title === 'string' ? tool.title : '',
      description: toString(tool.description ?? ''),
      inputSchema,
      window: where,
      origin: toString(tool.origin),
    };
    arrayPush(list, item);
  }
  resolve(list);
}

const running = new MapCtor(); // number -> {resolve, reject}

// Runs tool `name` of the frame of `origin` at window `where`, exposed to
// this one, with `inputText` (its input's JSON text, as executeTool wrote
// it): resolves with its result as text, as executeTool gives it. The
// caller's signal rejects the call with its reason; the tool runs on.
export function runExposed(origin, name, where, inputText, signal) {
  if (signal !== undefined && signalAborted(signal)) return rejected(signalReason(signal));
  const path = pathOf(where);
  let args;
  try {
    args = parse(inputText);
  } catch {
    args = null;
  }
  if (path === null || args === null || typeof args !== 'object') return rejected(unknownError(UNKNOWN_TRANSIENT));
  const call = ++lastAsked;
  const detail = jsonText({ type: 'exposed_run', call, origin, name, path, arguments: args });
  return new PromiseCtor((resolve, reject) => {
    mapSet(running, call, { resolve, reject });
    if (signal !== undefined) {
      listen(signal, 'abort', () => queueTask(() => {
        if (!mapGet(running, call)) return;
        mapDelete(running, call);
        reject(signalReason(signal));
      }), { once: true });
    }
    send(detail);
  });
}

// The relay's answer to runExposed (from-relay.js).
export function exposedRunAnswer({ call, ok, json, thrown }) {
  const waiting = mapGet(running, call);
  if (!waiting) return;
  mapDelete(running, call);
  if (ok !== true || typeof json !== 'string') {
    waiting.reject(unknownError(thrown === true ? INVOCATION_FAILED : UNKNOWN_TRANSIENT));
    return;
  }
  let value;
  try {
    value = parse(json);
  } catch {
    waiting.reject(unknownError(INVOCATION_FAILED));
    return;
  }
  // As executeTool gives a result (execute-tool.js): strings as they are,
  // objects as JSON, anything else as String() gives it.
  if (typeof value === 'string') waiting.resolve(value === '' ? 'Operation succeeded' : value);
  else if (value !== null && typeof value === 'object') waiting.resolve(json);
  else waiting.resolve(toString(value));
}

// What other origins' frames expose to this one changed: `toolchange`
// here, in a task of its own, as 156 fires it.
export function exposedChanged() {
  queueTask(() => fireToolchange(true), true);
}
