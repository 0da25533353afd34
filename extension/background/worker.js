// Toolgate's service worker: the imperative shell around the Wasm core.
//
// MV3 stops this worker after 30 s idle and forgets every global, so nothing
// lives only here: the core is a cache of what is in chrome.storage.session,
// rebuilt by `ready` on every start. Every chrome.* listener is registered
// synchronously below (listeners added later miss the event that woke the
// worker), and every handler waits on `ready`.
import init, { Core, parseAgentMessage, parseUiMessage } from '../../pkg/toolgate.js';
import { desktopAgents } from './desktop.js';
import { otherExtensions } from './external.js';

const TAB_KEY = 'tab:';
const SESSION_KEY = 'session';
const SETTINGS_KEY = 'settings';
// How long a tool may take, and how large its result may be (SPEC §6).
const DEFAULT_SETTINGS = { callTimeoutMs: 60_000, resultCapBytes: 1024 * 1024 };

// Uncaught errors, kept so tests (and `self.toolgate.errors`) can fail on them.
const errors = [];
self.addEventListener('error', (e) => errors.push(String(e.error?.stack ?? e.message)));
self.addEventListener('unhandledrejection', (e) => errors.push(String(e.reason?.stack ?? e.reason)));

// The core takes and gives JSON text (src/wasm.rs says why); these turn JS
// values into it and back. `undefined` goes in as null and comes back as null.
function toJson(value, what) {
  let text;
  try {
    text = JSON.stringify(value ?? null);
  } catch {
    // A cycle or a BigInt: said below.
  }
  if (typeof text !== 'string') throw new Error(`bad ${what}: not JSON (a cycle, a BigInt, or a function)`);
  return text;
}
const fromJson = (text) => (text === undefined ? null : JSON.parse(text));

// Loads the Wasm core and the stored registry. Top-level await and import()
// both break MV3 workers, so this is a promise every handler awaits.
const ready = (async () => {
  await init();
  const stored = await chrome.storage.session.get(null);
  // Each tab's record is JSON text (see Effect::Persist in src/registry.rs).
  const records = Object.entries(stored)
    .filter(([key, record]) => key.startsWith(TAB_KEY) && typeof record === 'string')
    .map(([, record]) => record);
  return new Core(records, stored[SESSION_KEY] ?? null);
})();
// The core once loaded, so that the handlers on an agent call's path need not
// wait a turn for `ready` each time.
let loaded = null;
ready.then((core) => { loaded = core; }, () => {});

// Events change the registry one at a time, in arrival order, each persisted
// before the next starts, so a stop between two events loses nothing.
let queue = Promise.resolve();
function serially(task) {
  const run = queue.then(task);
  queue = run.catch(() => {});
  return run;
}

async function perform(effects) {
  for (const effect of effects) {
    if (effect.effect === 'persist') {
      const key = TAB_KEY + effect.tab_id;
      if (effect.record) await chrome.storage.session.set({ [key]: effect.record });
      else await chrome.storage.session.remove(key);
    } else if (effect.effect === 'badge') {
      const text = effect.count > 0 ? String(effect.count) : '';
      // The tab may have closed meanwhile; its badge went with it.
      await chrome.action.setBadgeText({ tabId: effect.tab_id, text }).catch(() => {});
    }
  }
}

function applyEvent(event) {
  return serially(async () => {
    const core = await ready;
    const { results, effects } = fromJson(core.apply(toJson(event, 'event')));
    await perform(effects);
    return results;
  });
}

// Trust tiers, decided from what the browser says about the sender, before
// the message is read. A page can send any message; it is only ever parsed as
// a page report about its own frame.
const OWN_ORIGIN = new URL(chrome.runtime.getURL('')).origin;
function tierOf(sender) {
  if (sender.id !== chrome.runtime.id) return 'none';
  if (sender.url && new URL(sender.url).origin === OWN_ORIGIN) return 'ui';
  if (sender.tab && Number.isInteger(sender.frameId) && sender.documentId && sender.origin) return 'page';
  return 'none';
}

chrome.runtime.onMessage.addListener((message, sender, respond) => {
  const tier = tierOf(sender);
  let answer;
  if (tier === 'page') answer = fromPage(message, sender);
  else if (tier === 'ui') answer = fromUi(message);
  else return false;
  answer.then(respond, (error) => respond({ error: String(error?.message ?? error) }));
  return true;
});

// The agent session is stored after every change, but its writes are
// coalesced: a change schedules one write a moment later (after the reply that
// change produced went out), except before a tool runs: `run` stores it
// first, so a call is recorded before it starts and a worker stopped mid-call
// never runs it twice (a Read-only tool's call, which is harmless to repeat,
// does not wait for that). Writes reach the browser in the order they are
// issued, and a worker stopped after issuing one does not take it back.
let saveScheduled = false;
function storeSession(core) {
  // The core says, without writing the session out, whether anything that
  // must be stored changed: after most agent calls to Read-only tools,
  // nothing did, and they cost no timer and no write (README, figure 4).
  if (saveScheduled || !core.sessionUnsaved()) return;
  saveScheduled = true;
  setTimeout(() => saveSession(core), 0);
}
function saveSession(core) {
  if (!saveScheduled) return;
  saveScheduled = false;
  // Undefined when what is stored would not change. A write costs the
  // browser's UI thread, which every message to a page goes through.
  const record = core.sessionRecord();
  if (record === undefined) return;
  chrome.storage.session.set({ [SESSION_KEY]: record })
    .catch((error) => errors.push(`storing the agent session: ${error?.stack ?? error}`));
}

// Runs `change(core)` in turn, then stores the agent session it changed.
function changeSession(change) {
  return serially(async () => {
    const core = loaded ?? await ready;
    const result = change(core);
    storeSession(core);
    return result;
  });
}

function fromPage(message, sender) {
  if (isNativeCall(message)) return nativeCall(message, sender);
  const from = {
    tab_id: sender.tab.id,
    frame_id: sender.frameId,
    document_id: sender.documentId,
    origin: sender.origin,
  };
  // The relay hands the report on as the text the page's world wrote.
  if (typeof message !== 'string') return Promise.reject(new Error('bad page message: a report is JSON text'));
  return serially(async () => {
    const core = await ready;
    const { results, effects } = fromJson(core.fromPage(toJson(from, 'sender'), message));
    await perform(effects);
    return { results };
  });
}

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
const BROWSER_AGENT = "the browser's agent in this tab";
const browserChats = new Set(); // chats opened (labelled) by this worker
async function nativeCall(message, sender) {
  const chat = `browser-agent:${sender.tab.id}`;
  if (!browserChats.has(chat)) {
    browserChats.add(chat);
    await openChat(chat, { label: BROWSER_AGENT });
  }
  // One id per call of one document: sent again (the worker stopped), it
  // finds its card or its kept reply.
  const id = `${sender.documentId}:${message.call}`;
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

async function fromUi(message) {
  await ready;
  const request = fromJson(parseUiMessage(toJson(message, 'ui message')));
  switch (request.type) {
    case 'palette': return palette(request.tab_id);
    case 'card': return card(request.card_id);
    case 'answer': return answer(request.card_id, request.answer);
    case 'open_chat': return openChat(request.chat_id, { label: request.label, readOnly: request.read_only });
    case 'agent': return agent(request.chat_id, request.request);
    case 'agents': return agentsStatus();
    case 'allow_extension': return external.allow(request.extension_id, request.label);
    case 'forget_extension': return external.forget(request.extension_id);
    case 'connect_desktop': return desktop.retry();
    default: throw new Error(`no handler for ${request.type}`);
  }
}

// ---- Agents, cards and calls ------------------------------------------------
// Every agent transport feeds `agent(chatId, request)`. A request that needs a
// person waits on a card; the wait lives in this worker's memory, but the
// pending call lives in the stored session: if the worker stops, the agent
// sends the same request (same id) again and waits on the same card, and a
// card answered meanwhile still runs its call, its reply kept for the agent.

// "chat\0id" -> functions waiting for that request's reply.
const waiters = new Map();
// "chat\0id" -> told when that request comes to wait on a card.
const watchers = new Map();
const keyOf = (chat, id) => `${chat}\u0000${JSON.stringify(id)}`;

// The settings, read once per worker start and again when they change;
// `settingsNow` holds them once read, so that a call need not wait for them.
let settingsRead = null;
let settingsNow = null;
function settings() {
  if (!settingsRead) {
    const reading = chrome.storage.local.get(SETTINGS_KEY).then(({ [SETTINGS_KEY]: stored }) => {
      // A stored value that is not a setting (written by hand) gives the default.
      const read = { ...DEFAULT_SETTINGS };
      for (const key of Object.keys(read)) if (isSetting(stored?.[key])) read[key] = stored[key];
      if (settingsRead === reading) settingsNow = read; // Unless they changed meanwhile.
      return read;
    });
    settingsRead = reading;
  }
  return settingsRead;
}
const isSetting = (value) => Number.isSafeInteger(value) && value >= 1;
function describeValue(value) {
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'bigint') return `the BigInt ${value}n`;
  return typeof value === 'object' && value !== null ? 'an object' : String(value);
}
function forgetSettings() {
  settingsRead = null;
  settingsNow = null;
}
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && SETTINGS_KEY in changes) forgetSettings();
});

// The open tabs as the core needs them (cards name the tab's title and URL).
async function tabsInfo() {
  const tabs = await chrome.tabs.query({});
  return tabs.map((t) => ({ id: t.id, title: t.title ?? '', url: t.url ?? '' }));
}

async function agent(chatId, request, { onWaiting } = {}) {
  if (typeof chatId !== 'string' || !chatId) throw new Error('a chat id is needed');
  // Most requests are decided without the open tabs; looking them up costs
  // a round trip, so only a request that needs them is asked again with them.
  const decide = (tabs) => changeSession((core) => fromJson(
    core.agent(chatId, toJson(request, 'agent request'), tabs && toJson(tabs, 'tabs'), Date.now()),
  ));
  let step = await decide(null);
  if (step.step === 'need_tabs') step = await decide(await tabsInfo());
  const id = request?.id ?? null;
  const waiting = waitFor(chatId, id, onWaiting);
  await proceed(chatId, id, step, false);
  return waiting;
}

// The reply to request `id` of `chat`, when it comes. `onWaiting` hears of
// each card the request comes to wait on (desktop agents tell their client).
function waitFor(chat, id, onWaiting) {
  const key = keyOf(chat, id);
  if (onWaiting) watchers.set(key, onWaiting);
  return new Promise((resolve) => {
    waiters.set(key, [...(waiters.get(key) ?? []), resolve]);
  });
}

// Withdraws request `id` of `chat` (every waiting request of the chat, with
// no id) from the card it waits on: an MCP cancellation, an agent gone away.
// A card nobody waits on any more closes; its agent is told the request was
// withdrawn.
async function withdraw(chat, id) {
  const withdrawn = await changeSession((core) => fromJson(core.withdraw(chat, id === undefined ? undefined : toJson(id, 'request id'))));
  for (const window of withdrawn.close_windows) chrome.windows.remove(window).catch(() => {});
  for (const request of withdrawn.requests) {
    deliver(chat, request, { jsonrpc: '2.0', id: request, error: { code: -32800, message: 'the request was withdrawn: the agent cancelled it or went away' } }, false);
  }
  return withdrawn.requests.length;
}

async function openChat(chatId, { label = chatId, readOnly = false } = {}) {
  await changeSession((core) => core.openChat(chatId, label, readOnly));
  return { chat_id: chatId, read_only: readOnly };
}

// Carries out one step of a request: reply, run the tool, or open a card.
// `kept`: the core kept a reply step's reply for an agent that lost its wait
// (it does for steps that follow a card's answer).
async function proceed(chat, id, step, kept) {
  switch (step.step) {
    case 'reply': return deliver(chat, id, step.reply, kept);
    case 'run': return run(chat, id, step.run);
    case 'ask':
      watchers.get(keyOf(chat, id))?.(step.card_id);
      return openCard(step.card_id);
    case 'wait': // Its card is open; the answer will come.
      watchers.get(keyOf(chat, id))?.(step.card_id);
      return undefined;
    case 'attach': return undefined; // Its call is running; the reply will come.
    case 'need_tabs': throw new Error('the core asked for the open tabs twice');
    default: throw new Error(`unknown step ${step.step}`);
  }
}

function deliver(chat, id, reply, kept) {
  const key = keyOf(chat, id);
  const waiting = waiters.get(key);
  if (!waiting) return undefined; // Kept in the session until the agent asks again.
  waiters.delete(key);
  watchers.delete(key);
  for (const resolve of waiting) resolve(reply);
  if (!kept) return undefined;
  return changeSession((core) => core.collected(chat, toJson(id, 'request id')));
}

async function openCard(cardId) {
  const url = chrome.runtime.getURL(`extension/ui/card.html?card=${cardId}`);
  const window = await chrome.windows.create({ url, type: 'popup', width: 460, height: 620, focused: true });
  // Withdrawn while its window opened: nobody waits on it any more.
  const waits = await changeSession((core) => core.cardOpened(cardId, window.id));
  if (!waits) await chrome.windows.remove(window.id).catch(() => {});
}

async function card(cardId) {
  const core = await ready;
  return fromJson(core.card(cardId, toJson(await tabsInfo(), 'tabs'), Date.now()));
}

async function answer(cardId, given) {
  const tabs = await tabsInfo();
  const answered = await changeSession((core) => fromJson(core.answer(cardId, toJson(given, 'answer'), toJson(tabs, 'tabs'), Date.now())));
  // The answer is recorded: the card closes now, and the calls it let run (up
  // to the call timeout) or the cards it leads to go on without it.
  proceedAnswered(answered, `after answering card ${cardId}`);
  return { answered: true };
}

// Carries out what a card's answer comes to: the next step of the request
// that opened the card, and of each request of its chat that waited on it.
function proceedAnswered(answered, when) {
  for (const { request_id: id, step } of [answered, ...answered.followers]) {
    proceed(answered.chat, id, step, true).catch((error) => errors.push(`${when}: ${error?.stack ?? error}`));
  }
}

// Runs a tool in the frame and document that registered it, for request
// `id` of `chat`.
async function run(chat, id, spec) {
  const { callTimeoutMs, resultCapBytes } = settingsNow ?? await settings();
  // A call is recorded before it starts, unless running it twice is harmless.
  if (!spec.repeatable) saveSession(loaded ?? await ready);
  // The result's JSON text as the page wrote it, or why there is none.
  let result;
  let failure;
  try {
    const answer = await withTimeout(
      chrome.tabs.sendMessage(
        spec.tab_id,
        // The core hands the arguments over as JSON text (see `Run`).
        {
          type: 'call', source: spec.source, name: spec.name, arguments: JSON.parse(spec.arguments), timeout_ms: callTimeoutMs,
          // For the browser's own agent, the page hands it the tool's own value.
          native_call: nativeCallOf(chat, id, spec.document_id),
        },
        { frameId: spec.frame_id, documentId: spec.document_id },
      ),
      callTimeoutMs,
      `${spec.name} did not answer within ${seconds(callTimeoutMs)} s`,
    );
    if (answer?.ok === true && typeof answer.json === 'string') result = answer.json;
    else failure = String(answer?.error ?? 'the page gave no answer');
  } catch (error) {
    failure = callFailure(spec, error);
  }
  // An agent waiting here takes the reply now: it need not be kept.
  const taken = waiters.has(keyOf(chat, id));
  const reply = await changeSession((core) => fromJson(core.finish(spec.call_id, result, failure, resultCapBytes, taken)));
  if (reply) await deliver(chat, id, reply, !taken);
}

// The page's number for a native call of this document (see nativeCall).
function nativeCallOf(chat, id, documentId) {
  if (!chat.startsWith('browser-agent:') || typeof id !== 'string' || !id.startsWith(`${documentId}:`)) return undefined;
  return Number(id.slice(documentId.length + 1));
}

// "60", "1.5": a timeout as a person reads it.
const seconds = (ms) => String(Math.round(ms / 100) / 10);

function callFailure(spec, error) {
  const text = String(error?.message ?? error);
  if (error?.timedOut) return text;
  // Chromium's words when the frame's document went away: the tab closed, the
  // page navigated, or it went into the back/forward cache mid-call.
  if (/Receiving end does not exist|message (port|channel) (is )?closed|No tab with id|Frame with ID|document/i.test(text)) {
    return `the page that published ${spec.name} went away (its tab closed or navigated) before the tool answered`;
  }
  return `${spec.name} could not be run: ${text}`;
}

// Every running call's deadline, watched by one timer: a timer per call
// costs a native round trip on the call's own path (README, figure 4).
const deadlines = new Set();
let sweep = { timer: null, at: Infinity };
function checkDeadlines() {
  sweep = { timer: null, at: Infinity };
  const now = performance.now();
  let next = Infinity;
  for (const deadline of deadlines) {
    if (deadline.at <= now) deadline.expire();
    else next = Math.min(next, deadline.at);
  }
  if (next < Infinity) watch(next);
}
// Timers take at most 2^31 − 1 ms (24.8 days): a longer delay fires at once.
// A timer capped there finds nothing due, and is set again.
const LONGEST_TIMER_MS = 2 ** 31 - 1;
function watch(at) {
  if (at >= sweep.at) return;
  clearTimeout(sweep.timer);
  sweep = { timer: setTimeout(checkDeadlines, Math.min(LONGEST_TIMER_MS, Math.max(0, at - performance.now()))), at };
}

function withTimeout(promise, ms, message) {
  return new Promise((resolve, reject) => {
    const deadline = {
      at: performance.now() + ms,
      expire: () => {
        deadlines.delete(deadline);
        reject(Object.assign(new Error(message), { timedOut: true }));
      },
    };
    deadlines.add(deadline);
    watch(deadline.at);
    const settle = (then) => (value) => {
      deadlines.delete(deadline);
      then(value);
    };
    promise.then(settle(resolve), settle(reject));
  });
}

// Closing a card's window counts as its closing answer (seed 001).
chrome.windows.onRemoved.addListener(async (windowId) => {
  const tabs = await tabsInfo();
  const answered = await changeSession((core) => fromJson(core.windowClosed(windowId, toJson(tabs, 'tabs'), Date.now())));
  if (answered) proceedAnswered(answered, `after window ${windowId} closed`);
});

// The palette of one tab, as the popup and `self.toolgate.palette` show it.
async function palette(tabId) {
  const tab = await chrome.tabs.get(tabId).catch(() => null);
  if (!tab) throw new Error(`there is no tab ${tabId}`);
  // Frames removed or navigated since their last report are dropped first.
  const frames = await chrome.webNavigation.getAllFrames({ tabId }).catch(() => null);
  if (frames) {
    await applyEvent({
      type: 'live_documents',
      tab_id: tabId,
      documents: frames.filter((f) => f.documentId).map((f) => [f.frameId, f.documentId]),
    });
  }
  const core = await ready;
  const groups = fromJson(core.palette(tabId));
  return {
    tab_id: tabId,
    title: tab.title ?? '',
    url: tab.url ?? '',
    page: groups.length > 0 ? 'shimmed' : await pageState(tab),
    groups,
  };
}

// Whether Toolgate's scripts run in the tab: a tab loaded before Toolgate was
// installed or updated has none, and must be reloaded to show its tools. A
// page's relay answers once the page has loaded or reported a tool
// (relay.js), so a page still loading without tools cannot be told yet.
async function pageState(tab) {
  if (!/^(https?|file):/.test(tab.url ?? '')) return 'unsupported';
  try {
    const answer = await chrome.tabs.sendMessage(tab.id, { type: 'ping' }, { frameId: 0 });
    if (answer?.type === 'pong') return 'shimmed';
  } catch {
    // No relay listens in the tab's page (yet).
  }
  return tab.status === 'loading' ? 'loading' : 'needs_reload';
}

chrome.tabs.onRemoved.addListener((tabId) => {
  applyEvent({ type: 'tab_closed', tab_id: tabId });
  // The browser's agent in that tab is gone with it: its cards close.
  withdraw(`browser-agent:${tabId}`).catch((error) => errors.push(`closing tab ${tabId}'s cards: ${error?.stack ?? error}`));
});

chrome.webNavigation.onCommitted.addListener((details) => {
  if (!details.documentId) return;
  applyEvent({
    type: 'navigated',
    tab_id: details.tabId,
    frame_id: details.frameId,
    document_id: details.documentId,
  });
});

// ---- Agents from outside the browser, and from other extensions -----------
// Both feed `agent` like the console does; see desktop.js and external.js.
const desktop = desktopAgents({ ready, parse: parseAgentMessage, agent, openChat, withdraw, errors });
const external = otherExtensions({ agent, openChat, withdraw, errors });
chrome.runtime.onConnectExternal.addListener(external.onConnect);
desktop.connect();

async function agentsStatus() {
  return { desktop: desktop.status(), extensions: await external.status() };
}

// For tests, web developers' own CI, and agent transports: the palette, and
// the one agent entry.
self.toolgate = {
  palette,
  agent,
  openChat,
  withdraw,
  agents: agentsStatus,
  errors,
  ready: () => ready.then(() => true),
  // Settings: {callTimeoutMs, resultCapBytes}, each a whole number of at
  // least 1. Bad settings are refused with the reason, and change nothing.
  configure: async (changes) => {
    if (changes === null || typeof changes !== 'object' || Array.isArray(changes)) {
      throw new Error('settings: give an object, as {callTimeoutMs, resultCapBytes}');
    }
    for (const [key, value] of Object.entries(changes)) {
      if (!(key in DEFAULT_SETTINGS)) {
        throw new Error(`settings: there is no setting ${key} (there are ${Object.keys(DEFAULT_SETTINGS).join(', ')})`);
      }
      if (!isSetting(value)) throw new Error(`settings: ${key} must be a whole number of at least 1, not ${describeValue(value)}`);
    }
    const now = await settings();
    await chrome.storage.local.set({ [SETTINGS_KEY]: { ...now, ...changes } });
    forgetSettings();
  },
};
