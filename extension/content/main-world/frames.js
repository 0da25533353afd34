// The other documents of the frame tree, as the draft's document.modelContext
// reaches them: getTools() lists the tools of every document of the tab's
// frame tree that is same-origin with the caller, and a registration's
// `toolchange` fires in each of them (ARCHITECTURE.md, "Where the native API
// and the draft differ"). Same-origin frames share this event loop, so each
// frame's Toolgate answers the others synchronously, through an event on its
// own window: a page can send it too, and learns nothing it could not read
// through that frame's own document.modelContext.
//
// Cross-origin frames are out of reach here; a tool they expose to this
// origin (`exposedTo`) comes from the browser's own object where Toolgate
// wraps it (cross-origin.js), else from the service worker
// (exposed-frames.js).
//
// Imports: primordials.js, dom.js, registry.js.

import { arrayPush, dispatch, listen, parse, setOwn, win } from './primordials.js';
import { CustomEventCtor, eventDetail } from './dom.js';
import { fireToolchange, toolEntries } from './registry.js';

const ASKED = 'toolgate:frame-tools';
const CHANGED = 'toolgate:frame-changed';

// This frame's tools, as getTools() gives them (RegisteredTool).
function registeredTools() {
  const list = [];
  const entries = toolEntries();
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    const { snapshot } = entry;
    const item = {
      name: snapshot.name,
      title: snapshot.title ?? '',
      description: snapshot.description,
      inputSchema: snapshot.input_schema === null ? undefined : parse(snapshot.input_schema),
      window: win,
      origin: win.origin,
    };
    if (entry.idl) setOwn(item, 'annotations', { ...entry.idl });
    arrayPush(list, item);
  }
  return list;
}

// The windows of the tab's frame tree that are same-origin with this one
// (this one included), parents before their children.
function sameOriginWindows() {
  const found = [];
  const walk = (frame) => {
    let same = false;
    try {
      same = frame === win || frame.origin === win.origin;
    } catch {
      same = false;
    }
    if (same) arrayPush(found, frame);
    let count = 0;
    try {
      count = frame.length;
    } catch {
      count = 0;
    }
    for (let i = 0; i < count; i++) walk(frame[i]);
  };
  walk(win.top);
  return found;
}

// Appends a list's items by index: for...of would run the iterator a page
// can replace on Array.prototype.
function appendAll(list, items) {
  for (let i = 0; i < items.length; i++) arrayPush(list, items[i]);
}

// Whether `frame` is one of the tree's same-origin windows other than this one.
export function isTreeWindow(frame) {
  const frames = sameOriginWindows();
  for (let i = 0; i < frames.length; i++) if (frames[i] === frame && frames[i] !== win) return true;
  return false;
}

// The tools of every same-origin document of the tree, this frame's included.
export function treeTools() {
  const list = [];
  const frames = sameOriginWindows();
  for (let i = 0; i < frames.length; i++) {
    const frame = frames[i];
    if (frame === win) {
      appendAll(list, registeredTools());
      continue;
    }
    const asked = { tools: [] };
    try {
      dispatch(frame, new CustomEventCtor(ASKED, { detail: asked }));
    } catch {
      continue;
    }
    appendAll(list, asked.tools);
  }
  return list;
}

// A change of this document's tools: `toolchange` at every same-origin
// document of the tree, parents first, this one's own objects included.
export function spreadChange() {
  const frames = sameOriginWindows();
  for (let i = 0; i < frames.length; i++) {
    const frame = frames[i];
    if (frame === win) {
      fireToolchange();
      continue;
    }
    try {
      dispatch(frame, new CustomEventCtor(CHANGED));
    } catch {
      // A frame going away: nothing to tell.
    }
  }
}

// Answers the other frames (index.js listens at document_start): `started`
// says whether Toolgate runs in this document (a document that never used
// WebMCP has no tools, and fires no toolchange).
export function answerFrames(started) {
  listen(win, ASKED, (event) => {
    // Not started, this document has no tools, and no DOM members taken yet.
    if (!started()) return;
    const asked = eventDetail(event);
    if (asked === null || typeof asked !== 'object') return;
    appendAll(asked.tools, registeredTools());
  });
  listen(win, CHANGED, () => {
    if (started()) fireToolchange(true);
  });
}
