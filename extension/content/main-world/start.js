// Starting Toolgate in a document, once (start), and the document's life
// after: coming back from the back/forward cache (restored; going away for
// good is the relay's to say). Holds the three objects start() makes.
//
// Imports: primordials.js, text.js, dom.js, channel.js, native.js,
// events.js, registry.js, frames.js, document-context.js, legacy-context.js, testing-context.js,
// cross-origin.js, watch.js, requests.js.

import { arrayOf, arrayPush, listen, mapValues, warn, win } from './primordials.js';
import { errorText } from './text.js';
import { captureDom } from './dom.js';
import { flush, report } from './channel.js';
import { detectNative, nativeFormContext } from './native.js';
import { watchOtherOrigins } from './cross-origin.js';
import { watchWrites } from './watch.js';
import { watchRequests } from './requests.js';
import { changeTargets, entries, has, setSpread } from './registry.js';
import { spreadChange } from './frames.js';
import { fireToolEvent, toolEventTargets } from './events.js';
import { ModelContext } from './document-context.js';
import { LegacyModelContext } from './legacy-context.js';
import { ModelContextTesting } from './testing-context.js';

// The objects start() makes; null until it ran (and if it failed).
export let documentContext = null;
export let navigatorContext = null;
export let testingContext = null;

// What only a page that uses WebMCP needs waits for its first use: reading
// any `modelContext`, defining one (a polyfill), a form declaring a tool, or
// a call from the relay.
//
// Starts Toolgate in this document, once; says whether it runs. A page that
// removed or replaced a DOM built-in Toolgate needs before its first use of
// WebMCP gets no WebMCP from Toolgate (a warning says why), never an error.
let tried = false;
// Whether Toolgate runs in this document.
export const started = () => documentContext !== null;
export function start() {
  if (tried) return documentContext !== null;
  tried = true;
  try {
    captureDom();
  } catch (error) {
    warn(`Toolgate is off in this document: the page replaced a built-in that WebMCP needs (${errorText(error)}).`);
    return false;
  }
  detectNative();
  documentContext = new ModelContext();
  navigatorContext = new LegacyModelContext();
  testingContext = new ModelContextTesting();
  arrayPush(changeTargets, documentContext);
  arrayPush(changeTargets, testingContext);
  setSpread(spreadChange);
  watchOtherOrigins();
  // Agents' calls here are watched for storage writes and the requests the
  // document sends (docs/classes.md).
  watchWrites();
  watchRequests();
  // toolactivated / toolcancel: at the ModelContext, as the draft and
  // Chromium 156 fire them, and at window as Chromium 148 fires them,
  // unless the browser's own API is 156's, whose events reach the
  // ModelContext alone (ARCHITECTURE.md, "Where the native API and the
  // draft differ").
  const nativeForms = nativeFormContext();
  arrayPush(toolEventTargets, documentContext);
  if (!nativeForms) arrayPush(toolEventTargets, win);
  // A form tool the browser runs (native-forms.js) fires its events on the
  // browser's own object, which the page no longer sees: they are passed on.
  if (nativeForms) {
    const isForm = has('declarative', 'tool');
    const passOn = (type) => listen(nativeForms, type, (event) => { if (isForm(event.toolName)) fireToolEvent(type, event.toolName); });
    passOn('toolactivated');
    passOn('toolcancel');
  }
  listen(win, 'pageshow', restored);
  return true;
}

// A document going away for good takes its tools with it: the relay says
// so as it goes (relay/index.js, `leaving`), since no message on the
// channel is delivered once the document is unloading.

// A page restored from the back/forward cache is a document the worker has
// forgotten: report all of it again.
function restored(event) {
  if (!event.persisted) return;
  report({ op: 'reset' });
  const all = arrayOf(mapValues(entries));
  for (let i = 0; i < all.length; i++) report({ op: 'register', decl: all[i].snapshot });
}
