// Tools of other origins' frames, where Toolgate's document.modelContext
// wraps the browser's own (156). The browser lists a tool that a frame of
// another origin exposes to this one (`exposedTo`), in getTools({fromOrigins}),
// and fires `toolchange` here when one comes or goes. Toolgate's frames.js
// reaches same-origin frames only, so these come from the browser's own object
// (ARCHITECTURE.md, "Where the native API and the draft differ"): a call of
// such a tool runs in its frame, through the copy that frame's Toolgate
// registered with the browser. The browser runs that copy as it runs its
// own agent's calls, so this frame first tells the worker what it is about
// to call (announceExposed): the call is then told apart as this page's, and
// runs with no card; an agent's call is gated as ever (docs/agents.md, "Pages
// calling each other's tools").
//
// Imports: primordials.js, dom.js, json.js, channel.js, events.js, registry.js, native.js.

import {
  arrayPush, doc, MapCtor, mapDelete, mapGet, mapSet, parse, PromiseCtor, promiseThen, querySelectorAll, resolved,
  stringify, stringStartsWith, win,
} from './primordials.js';
import { jsonText } from './json.js';
import { send } from './channel.js';
import { getAttribute, URLCtor } from './dom.js';
import { queueTask } from './events.js';
import { fireToolchange } from './registry.js';
import { nativeListTools, onNativeToolchange, PROBE_PREFIX, wrapsDocumentContext } from './native.js';

// The other origins near this document: its ancestors', and its iframes'
// as their `src` says. The browser fires `toolchange` here for its own
// registrations (Toolgate's copies) too; only a change in what these
// origins expose to this one is another origin's.
function nearOrigins() {
  const origins = [];
  const add = (text) => {
    let origin = null;
    try {
      origin = new URLCtor(text, win.location.href).origin;
    } catch {
      return;
    }
    if (origin === 'null' || origin === win.origin) return;
    for (let i = 0; i < origins.length; i++) if (origins[i] === origin) return;
    arrayPush(origins, origin);
  };
  const ancestors = win.location.ancestorOrigins;
  for (let i = 0; i < (ancestors?.length ?? 0); i++) add(ancestors[i]);
  const frames = querySelectorAll(doc, 'iframe[src]');
  for (let i = 0; i < frames.length; i++) add(getAttribute(frames[i], 'src'));
  return origins;
}

// The tools of other origins among `tools` (the browser's getTools()), but
// another frame's Toolgate asking the browser about `exposedTo` (native.js).
export function otherOrigins(tools) {
  const found = [];
  for (let i = 0; i < tools.length; i++) {
    const { origin, name } = tools[i];
    if (origin !== win.origin && !(typeof name === 'string' && stringStartsWith(name, PROBE_PREFIX))) arrayPush(found, tools[i]);
  }
  return found;
}

// Fires `toolchange` on Toolgate's document.modelContext when what the
// origins near this document expose to it changed.
let exposed = '';
export function watchOtherOrigins() {
  if (!wrapsDocumentContext()) return;
  onNativeToolchange(() => {
    const fromOrigins = nearOrigins();
    if (fromOrigins.length === 0 && exposed === '') return;
    promiseThen(nativeListTools({ fromOrigins }), (tools) => {
      let now = '';
      const others = otherOrigins(tools);
      for (let i = 0; i < others.length; i++) now += `${others[i].origin} ${others[i].name}\n`;
      if (now === exposed) return;
      exposed = now;
      queueTask(() => fireToolchange(true), true);
    }, () => {});
  });
}

// Tells the worker, through the relay, that this frame is about to call tool
// `name` of the frame of `origin` with `input` (as the browser will write it:
// its JSON). The worker keeps a pass for exactly that call, if that frame
// exposed the tool to this origin (the browser's `sender` says which this
// is); the call that then reaches that frame's copy of the tool takes it.
// Settles once the worker answered, granted or not, and never rejects: a
// call with no pass reaches the gate as the browser's agent's.
let lastAnnounced = 0;
const announced = new MapCtor(); // number -> resolve
export function announceExposed(origin, name, input) {
  let args;
  try {
    const text = stringify(input);
    args = typeof text === 'string' ? parse(text) : null;
  } catch {
    args = null;
  }
  // The browser refuses what is no object; nothing to announce.
  if (args === null || typeof args !== 'object') return resolved(undefined);
  const number = ++lastAnnounced;
  let detail;
  try {
    detail = jsonText({ type: 'exposed_call', call: number, origin, name, arguments: args });
  } catch {
    return resolved(undefined);
  }
  return new PromiseCtor((resolve) => {
    mapSet(announced, number, resolve);
    send(detail);
  });
}

// The relay's answer to an announcement (from-relay.js).
export function exposedAnswer({ call }) {
  const resolve = mapGet(announced, call);
  if (!resolve) return;
  mapDelete(announced, call);
  resolve();
}
