// Toolgate's shim, in the page's own (MAIN) world, in every frame, at
// document_start: before any page script runs.
//
// It puts Toolgate's own objects in front of the page:
//   document.modelContext          the current WebMCP draft (promises, getTools, executeTool);
//   navigator.modelContext         the legacy API, shaped as Chromium's native one (M148):
//                                  synchronous registerTool, plus unregisterTool,
//                                  provideContext and clearContext;
//   navigator.modelContextTesting  Chromium's testing API (listTools, executeTool).
// It snapshots every declaration once, at registration, and reports the
// snapshot to the relay (../relay/), which forwards it to the service worker,
// where the Wasm core classes it. Where the browser has a native API, each
// tool is also registered with it: the snapshot's values, Toolgate's
// `execute`, and annotations that carry Toolgate's class.
//
// The page shares this world: it can replace any global after this script
// ran, so the built-ins used later are captured first: the language's own at
// once, the DOM's when the page first uses WebMCP (see start.js). It cannot
// reach this script's channel to the relay (channel.js), but it can call
// everything this script offers it, and a page that scripted this frame's
// window before it loaded owns this world outright (ARCHITECTURE.md, "The
// shim–relay channel"), so the worker trusts nothing that comes from here.
//
// Every document runs this before its first script, and most never use
// WebMCP: until one does, this script only puts its accessors, its hooks and
// its channel to the relay in place (below, and start.js).
//
// This file is the entry of the modules beside it, one concern each.
// build.sh bundles them with esbuild (--bundle --format=iife) into
// pkg/main-world.js, one classic script, which the manifest injects: the
// modules' top levels become one function's scope, so nothing of them is
// left on `window`. The discipline every module keeps:
// - Built-ins only as captured: the language's (and a few of the DOM's) by
//   primordials.js, which the bundle evaluates first, at document_start; the
//   rest of the DOM's by dom.js, at start(). Never a global the page could
//   have replaced since (no bare Object.defineProperty, JSON.stringify or
//   Promise; no Array.prototype.map on a value the page can reach). The few
//   exceptions are the shim's since before the split, kept as they were: the
//   on<type> handlers' WeakMap (made at document_start, its methods called
//   later), the hooks' Proxy, `Boolean`, the methods of the events and forms
//   it handles, and a few of its own arrays' and strings'. Running a form
//   tool (form-calls.js, form-schema.js) also uses the form's and its
//   controls' own members and its own arrays' methods: a page that replaces
//   them breaks only its own form tools, which run its own form anyway.
//   What the shim sends is written by json.js and built without any hook a
//   page can set (no for...of, spread or Array.from over the shim's own
//   arrays, no assignment of a key an object lacks: arrayPush and setOwn;
//   ARCHITECTURE.md, "The shim–relay channel").
// - Nothing runs at a module's top level but captures, constants, state and
//   declarations: what changes the page (its listeners, the accessors, the
//   hooks) is done below, in this order, once every module is evaluated.
// - Synchronous, as the very first script of the document: no top-level
//   await, no dynamic import().
// - Imports run one way, no cycle: primordials.js, text.js and dom.js at the
//   bottom, this file at the top; each module's header says what it may import.
// - No esbuild helper in the bundle (grep pkg/main-world.js for `__`, past
//   the `__proto__: null` of literals and the `@__PURE__` notes): the
//   target (chrome148) lowers no syntax, and no module is CommonJS or
//   imported whole. A helper such as `__defProp` takes Object.defineProperty
//   as the bundle starts, at document_start, before any page script, which
//   is as safe as primordials.js; one that read a global when called would not be.
'use strict';

import { doc, listen, win } from './primordials.js';
import { connect } from './channel.js';
import { install } from './install.js';
import { watchForms } from './forms.js';
import { holdAgentSubmit } from './native-forms.js';
import { fromRelay } from './from-relay.js';
import { hookDefinitions } from './polyfill.js';
import { answerFrames } from './frames.js';
import { started } from './start.js';
import { installProvenance } from './provenance.js';

// First, before anything the page could reach: the call sites' methods.
installProvenance();

// Form tools called through the browser's own WebMCP (native-forms.js): a
// capturing listener on window, before any page script.
listen(win, 'submit', holdAgentSubmit, true);

// A capturing listener on window, added before any page script: the first
// to hear DOMContentLoaded, which no page listener can stop first.
if (doc.readyState === 'loading') listen(win, 'DOMContentLoaded', watchForms, { once: true, capture: true });
else watchForms();

// Toolgate's objects, as accessors on the prototypes (install.js).
install();

// The channel to the relay, taken before any page script (channel.js), and
// what comes on it (from-relay.js).
connect(fromRelay);

// The tree's other same-origin documents' getTools() and toolchange (frames.js).
answerFrames(started);

// A page's own polyfill noticed as it defines its `modelContext` (polyfill.js).
hookDefinitions();
