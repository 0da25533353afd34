// Toolgate's service worker: the imperative shell around the Wasm core.
//
// MV3 stops this worker after 30 s idle and forgets every global, so nothing
// lives only here: the core is a cache of what is in chrome.storage.session,
// rebuilt on every start (core.js), and every handler waits for it. This file
// only registers: every chrome.* listener is added synchronously below, at
// the top level, because a listener added later misses the event that woke
// the worker. The modules it imports hold the work, one concern each
// (ARCHITECTURE.md, "Code map"); what a start does beyond registering is
// ordered below so that a first agent call waits for as little as it can.
// First: the Wasm core's fetch and compilation start before the rest evaluates.
import { coreResponse } from './start.js';
import { onAlarm } from './card-deadlines.js';
import { restoreCardWindows, scheduleDeadline } from './card-windows.js';
import { onWindowRemoved } from './cards.js';
import { toolgateApi } from './ci.js';
import { ready } from './core.js';
import { keepError, onError, onUnhandledRejection } from './errors.js';
import { desktop, external } from './outside.js';
import { onPolicyChanged } from './otlp.js';
import { onNavigated, onTabRemoved, watchStoredTabs } from './pages.js';
import { onMessage } from './routing.js';
import { onRulesChanged } from './rules.js';
import { settings, onStorageChanged } from './settings.js';
import { warmUp } from './warm.js';

// Uncaught errors, kept so tests (and `self.toolgate.errors`) can fail on them.
self.addEventListener('error', onError);
self.addEventListener('unhandledrejection', onUnhandledRejection);

chrome.runtime.onMessage.addListener(onMessage);
chrome.storage.onChanged.addListener(onStorageChanged);
chrome.storage.onChanged.addListener(onRulesChanged);
chrome.storage.onChanged.addListener(onPolicyChanged);
chrome.windows.onRemoved.addListener(onWindowRemoved);
chrome.tabs.onRemoved.addListener(onTabRemoved);
chrome.webNavigation.onCommitted.addListener(onNavigated);
chrome.runtime.onConnectExternal.addListener(external.onConnect);
chrome.alarms.onAlarm.addListener((alarm) => onAlarm(alarm).catch((error) => keepError('closing cards whose time passed', error)));

// A start's work that the event which woke the worker does not need waits
// until the core is loaded and that event is answered: a first agent call's
// reply comes some 10–20 ms after the core is, and this work's messages to
// the browser would otherwise share the call's hop into its page
// (ARCHITECTURE.md, "A worker's start").
const AFTER_START_MS = 50;
function afterStart() {
  // Desktop agents can reach Toolgate only through a port this worker opens,
  // so it connects at every start (desktop.js).
  desktop.connect();
  // Cards a stopped worker stored without recording their windows get them back.
  restoreCardWindows().catch((error) => keepError('restoring cards\' windows', error));
  // A card whose deadline passed while no worker ran closes now.
  scheduleDeadline().catch((error) => keepError('setting the next card deadline', error));
}
ready.then(() => setTimeout(afterStart, AFTER_START_MS), () => setTimeout(afterStart, AFTER_START_MS));
// What a first agent call reads and runs besides the core, done while the
// core compiles off this thread: the settings read, the tabs with tools
// listened to again (pages.js), and the APIs a watched call listens with (warm.js).
settings().catch((error) => keepError('reading the settings', error));
watchStoredTabs().catch((error) => keepError('listening again to the tabs with tools', error));
coreResponse.then(() => setTimeout(warmUp), () => {});

self.toolgate = toolgateApi;
