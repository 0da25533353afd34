// Tools of other origins' frames, where Toolgate's document.modelContext
// wraps the browser's own (156). The browser lists a tool that a frame of
// another origin exposes to this one (`exposedTo`), in getTools({fromOrigins}),
// and fires `toolchange` here when one comes or goes. Toolgate's frames.js
// reaches same-origin frames only, so these come from the browser's own object
// (ARCHITECTURE.md, "Where the native API and the draft differ"): a call of
// such a tool runs in its frame, through the copy that frame's Toolgate
// registered with the browser, and so through the gate.
//
// Imports: primordials.js, dom.js, events.js, registry.js, native.js.

import { arrayPush, doc, promiseThen, querySelectorAll, stringStartsWith, win } from './primordials.js';
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
