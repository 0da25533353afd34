// Pages: the reports of their frames' tools, their tabs closing and frames
// navigating, and the calls of the browser's own agent that reach them.
import { openChat, proceed, withdraw } from './agents.js';
import { BROWSER_AGENT, browserAgentChat, nativeRequestId } from './browser-agent.js';
import { inputFault } from './arguments.js';
import { applyEvent, fromJson, inTab, ready, toJson } from './core.js';
import { keepError } from './errors.js';
import { siteSeen } from './rules.js';
import { waitFor } from './replies.js';
import { changeSession } from './session.js';

// A message from a page's relay: a report of its frame's tools, a native
// call, or the page's own executeTool asking whether its input fits the
// tool's schema (its answer concerns the page's own call alone). Which frame and document it speaks for comes from the browser's
// `sender`, never from the message.
export function fromPage(message, sender) {
  if (isNativeCall(message)) return nativeCall(message, sender);
  // Its patterns run on the Wasm core's engine, so the check waits for the core.
  if (isInputCheck(message)) return ready.then(() => ({ fault: inputFault(message.schema, message.input) }));
  // The settings page lists every site seen publishing tools (docs/rules.md).
  siteSeen(sender.origin);
  const from = {
    tab_id: sender.tab.id,
    frame_id: sender.frameId,
    document_id: sender.documentId,
    origin: sender.origin,
  };
  // Reports the relay held while one was in flight come as an array of their
  // texts, applied in one turn of the tab and answered each on its own.
  if (Array.isArray(message) && message.length > 0 && message.every((text) => typeof text === 'string')) {
    const sender = toJson(from, 'sender');
    return inTab(from.tab_id, (core) => {
      const answers = [];
      const effects = [];
      for (const text of message) {
        try {
          const applied = fromJson(core.fromPage(sender, text));
          answers.push({ results: applied.results });
          effects.push(...applied.effects);
        } catch (error) {
          answers.push({ error: String(error?.message ?? error) });
        }
      }
      return { results: answers, effects };
    }).then((answers) => ({ answers }));
  }
  // The relay hands the report on as the text the page's world wrote.
  if (typeof message !== 'string') return Promise.reject(new Error('bad page message: a report is JSON text'));
  // In the tab's own turn (core.js, "Page events, one queue per tab").
  return inTab(from.tab_id, (core) => fromJson(core.fromPage(toJson(from, 'sender'), message)))
    .then((results) => ({ results }));
}

// The schema is a snapshot's (at most 64 KB, docs/classes.md); input past a
// megabyte goes unchecked rather than held up.
const CHECKED_INPUT_BYTES = 1 << 20;
const isInputCheck = (m) => m !== null && typeof m === 'object' && m.type === 'check_input'
  && typeof m.schema === 'string' && m.schema.length <= 65536
  && typeof m.input === 'string' && m.input.length <= CHECKED_INPUT_BYTES;

// ---- The browser's own agent ---------------------------------------------
// A call that reached the copy of a tool Toolgate registered with the
// browser's own WebMCP (the browser's built-in agent, or an agent driving the
// browser through DevTools) is decided like any agent's call, as one chat per
// tab (ARCHITECTURE.md, "Who is gated"). Which tool, in which frame and
// document, comes from the browser's `sender`; the page says only the name,
// the registration's source and the arguments the browser gave.
const isNativeCall = (m) => m !== null && typeof m === 'object' && m.type === 'native_call'
  && Object.keys(m).every((k) => ['type', 'call', 'source', 'name', 'arguments'].includes(k))
  && Number.isSafeInteger(m.call) && typeof m.name === 'string' && typeof m.source === 'string';
const browserChats = new Set(); // chats opened (labelled) by this worker
async function nativeCall(message, sender) {
  const chat = browserAgentChat(sender.tab.id);
  if (!browserChats.has(chat)) {
    browserChats.add(chat);
    await openChat(chat, { label: BROWSER_AGENT });
  }
  const id = nativeRequestId(sender.documentId, message.call);
  const call = {
    tab_id: sender.tab.id,
    frame_id: sender.frameId,
    document_id: sender.documentId,
    source: message.source,
    name: message.name,
    arguments: message.arguments ?? {},
  };
  const waiting = waitFor(chat, id);
  const step = await changeSession((core) => fromJson(core.frameCall(chat, toJson(id, 'request id'), toJson(call, 'call'), Date.now())));
  await proceed(chat, id, step, false);
  return waiting;
}

// ---- Tabs and frames --------------------------------------------------------
// chrome.tabs.onRemoved
export function onTabRemoved(tabId) {
  applyEvent({ type: 'tab_closed', tab_id: tabId });
  // The browser's agent in that tab is gone with it: its cards close.
  withdraw(browserAgentChat(tabId)).catch((error) => keepError(`closing tab ${tabId}'s cards`, error));
}

// chrome.webNavigation.onCommitted
export function onNavigated(details) {
  if (!details.documentId) return;
  applyEvent({
    type: 'navigated',
    tab_id: details.tabId,
    frame_id: details.frameId,
    document_id: details.documentId,
  });
}
