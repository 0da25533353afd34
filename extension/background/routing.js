// Trust tiers, and where each tier's messages go. The tier is decided from
// what the browser says about the sender, before the message is read. A page
// can send any message; it is only ever parsed as a page report about its own
// frame.
import { pageText, parseUiMessage, ruleWords } from '../../pkg/toolgate.js';
import { agent, openChat } from './agents.js';
import { auditChain } from './audit.js';
import { answer, card } from './cards.js';
import { fromJson, ready, toJson } from './core.js';
import { agentsStatus, desktop, external } from './outside.js';
import { fromPage } from './pages.js';
import { palette, tabsWithoutToolgate } from './palette.js';
import { changeRules, siteProperties, siteToolsShown } from './rules.js';
import { clearFlag, flagList } from './watch.js';

const OWN_ORIGIN = new URL(chrome.runtime.getURL('')).origin;
function tierOf(sender) {
  if (sender.id !== chrome.runtime.id) return 'none';
  if (sender.url && new URL(sender.url).origin === OWN_ORIGIN) return 'ui';
  if (sender.tab && Number.isInteger(sender.frameId) && sender.documentId && sender.origin) return 'page';
  return 'none';
}

// chrome.runtime.onMessage
export function onMessage(message, sender, respond) {
  const tier = tierOf(sender);
  let answered;
  if (tier === 'page') answered = fromPage(message, sender);
  else if (tier === 'ui') answered = fromUi(message);
  else return false;
  // Never nothing: to the sender, nothing means the worker stopped before it
  // answered (shared/chromium-errors.js, `askWorker`).
  answered.then((answer) => respond(answer ?? null), (error) => respond({ error: String(error?.message ?? error) }));
  return true;
}

// The agent console's message, an agent request as its chat, read as the
// core's `parseUiMessage` reads it (its own fields only, the chat a string,
// the request any JSON: `agent` and the core read it further), without
// running the core's reader of every page's messages on a stopped worker's
// first call (ARCHITECTURE.md, "A worker's start"). Null for any other
// message, which the core reads and refuses with its words.
const AGENT_FIELDS = new Set(['type', 'chat_id', 'request']);
function agentMessage(message) {
  if (message === null || typeof message !== 'object' || message.type !== 'agent') return null;
  if (typeof message.chat_id !== 'string' || !Object.hasOwn(message, 'request')) return null;
  for (const key of Object.keys(message)) if (!AGENT_FIELDS.has(key)) return null;
  return message;
}

// Toolgate's own pages: the popup, cards, the console, the settings page.
async function fromUi(message) {
  await ready;
  const request = agentMessage(message) ?? fromJson(parseUiMessage(toJson(message, 'ui message')));
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
    case 'tabs_without_toolgate': return tabsWithoutToolgate();
    case 'site_tools': return siteToolsShown(request.site);
    case 'tool_properties': return siteProperties(request.site);
    case 'shown_as': return request.texts.map((text) => pageText(text, request.kind));
    case 'rule_words': return fromJson(ruleWords());
    case 'change_rules': return changeRules(request.site, request.changes);
    case 'clear_flag': return clearFlag(request.site, request.tool);
    case 'flags': return flagList();
    case 'audit_chain': return auditChain();
    default: throw new Error(`no handler for ${request.type}`);
  }
}
