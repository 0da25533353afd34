// Pages: the reports of their frames' tools, their tabs closing and frames
// navigating, and the calls of the browser's own agent that reach them.
import { decided, openChat, proceed, withdraw } from './agents.js';
import { exposedRun, exposedTools, exposureChanged } from './exposed.js';
import { BROWSER_AGENT, browserAgentChat, nativeRequestId } from './browser-agent.js';
import { record } from './audit.js';
import { applyEvent, fromJson, inTab, storedAtStart, TOOL_KEY, toJson } from './core.js';
import { keepError } from './errors.js';
import { siteSeen } from './rules.js';
import { waitFor } from './replies.js';
import { changeSession } from './session.js';
import { unwatchTab, watchTab } from './watch.js';

// A message from a page's relay: the text the page's world wrote (or, for
// reports the relay held while one was in flight, an array of their texts),
// read by the core as `FromPage` (src/messages.rs): a report of its frame's
// tools, a call that reached Toolgate's copy of a tool in the browser's own
// WebMCP, or the page saying it is about to call, through the browser, a tool
// a frame of another origin exposed to it, or, where the browser has no
// WebMCP to carry such calls, asking this worker to list and run those
// tools (exposed.js; docs/agents.md, "Pages calling each other's tools").
// Which frame
// and document it speaks for comes from the browser's `sender`, never from
// the message. Read in the tab's own turn (core.js, "Page events, one queue
// per tab"); what a native call or a check then does happens after it.
export function fromPage(message, sender) {
  const from = toJson({
    tab_id: sender.tab.id,
    frame_id: sender.frameId,
    document_id: sender.documentId,
    origin: sender.origin,
  }, 'sender');
  const read = (core, text) => {
    const page = fromJson(core.fromPage(from, text, Date.now()));
    if (page.type === 'updates') toolChanges(page.tool_changes);
    return { results: page, effects: page.type === 'updates' ? page.effects : [] };
  };
  const tabId = sender.tab.id;
  if (Array.isArray(message) && message.length > 0 && message.every((text) => typeof text === 'string')) {
    // Applied in one turn of the tab and answered each on its own. Only
    // reports are held together (relay/index.js).
    return inTab(tabId, (core) => {
      const answers = [];
      const effects = [];
      for (const text of message) {
        try {
          const page = read(core, text);
          if (page.results.type !== 'updates') throw new Error('bad page message: only reports come together');
          answers.push({ results: page.results.results, exposed_changed: page.results.exposed_changed });
          effects.push(...page.effects);
        } catch (error) {
          answers.push({ error: String(error?.message ?? error) });
        }
      }
      return { results: answers, effects };
    }).then((answers) => {
      if (answers.some((answer) => answer.results)) tabHasTools(sender);
      const origins = new Set(answers.flatMap((answer) => answer.exposed_changed ?? []));
      if (origins.size > 0) exposureChanged(sender, [...origins]);
      return { answers: answers.map(({ results, error }) => (error === undefined ? { results } : { error })) };
    });
  }
  if (typeof message !== 'string') return Promise.reject(new Error('bad page message: a page message is JSON text'));
  return inTab(tabId, (core) => read(core, message)).then((page) => {
    switch (page.type) {
      case 'updates':
        tabHasTools(sender);
        if (page.exposed_changed?.length > 0) exposureChanged(sender, page.exposed_changed);
        return { results: page.results };
      case 'exposed_tools':
        return exposedTools(page, sender);
      case 'exposed_run':
        return exposedRun(page, sender);
      case 'native_call':
        return nativeCall(page.number, page.call, sender);
      case 'exposed':
        return { granted: page.granted === true };
      case 'page_call':
        return pageCall(page.page_call, sender);
      default:
        throw new Error(`Toolgate read a page message it has no use for: ${page.type}`);
    }
  });
}

// The registrations, re-registrations and unregistrations on a site during a
// chat's life there, with where each tool comes from: the core found them and
// held each frame to its number a minute (src/decisions/lifecycle/changes.rs);
// the agents' log keeps them (docs/rules.md, "Every site, side by side, and
// the audit").
function toolChanges(changes) {
  if (!Array.isArray(changes)) return;
  for (let i = 0; i < changes.length; i += 1) record({ what: 'tool_change', ...changes[i] });
}

// The settings page lists every site seen publishing tools (docs/rules.md);
// what the tab sends on its own from now on is known as such (watch.js).
function tabHasTools(sender) {
  siteSeen(sender.origin);
  watchTab(sender.tab.id, sender.origin);
}

// At a worker's start, the tabs whose pages reported tools to an earlier
// worker are listened to again, as if they had just reported them: what they
// send on their own from now on is known as theirs before any call (watch.js),
// and a first call finds its tab's listener added while the core compiled
// (ARCHITECTURE.md, "A worker's start"). Each stored tool names its tab and
// the origin of the document that published it; one that does not read is
// left out, as the core leaves it out (src/page/registry/stored.rs).
export async function watchStoredTabs() {
  for (const [key, text] of Object.entries(await storedAtStart)) {
    if (!key.startsWith(TOOL_KEY) || typeof text !== 'string') continue;
    let stored;
    try {
      stored = JSON.parse(text);
    } catch {
      continue;
    }
    watchTab(stored.tab_id, stored.origin);
  }
}

// ---- The browser's own agent ---------------------------------------------
// A call that reached the copy of a tool Toolgate registered with the
// browser's own WebMCP (the browser's built-in agent, or an agent driving the
// browser through DevTools) is decided like any agent's call, as one chat per
// tab (ARCHITECTURE.md, "Who is gated"). The core filled in the frame and
// document from the browser's `sender`; the page said only the name, the
// registration's source and the arguments the browser gave.
const browserChats = new Set(); // chats opened (labelled) by this worker
async function nativeCall(number, call, sender) {
  const chat = browserAgentChat(sender.tab.id);
  if (!browserChats.has(chat)) {
    browserChats.add(chat);
    await openChat(chat, { label: BROWSER_AGENT });
  }
  const id = nativeRequestId(sender.documentId, number);
  const waiting = waitFor(chat, id);
  const step = await decided((_tabs, checked) => changeSession((core) => fromJson(
    core.frameCall(chat, toJson(id, 'request id'), toJson(call, 'call'), checked, Date.now()),
  )));
  await proceed(chat, id, step, false);
  return waiting;
}

// ---- Pages calling each other's tools ---------------------------------------
// A native call that a frame of another origin said it was about to make, of
// a tool this frame exposed to it (src/decisions/exposed.rs): the page's call,
// not an agent's. It runs in the page as the browser called it, with no card;
// the audit says who called (ARCHITECTURE.md, "Who is gated").
function pageCall({ caller, site, tool }, sender) {
  record({
    what: 'decision',
    by: `the page at ${caller}`,
    tab: sender.tab.id,
    site,
    tool,
    decision: 'run',
    why: `called by the page at ${caller}, which the site exposed the tool to`,
  });
  return { page_call: true };
}

// ---- Tabs and frames --------------------------------------------------------
// chrome.tabs.onRemoved
export function onTabRemoved(tabId) {
  applyEvent({ type: 'tab_closed', tab_id: tabId });
  unwatchTab(tabId);
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
