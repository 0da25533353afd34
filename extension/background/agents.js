// The one agent entry. Every agent transport (the console, desktop agents,
// other extensions, the browser's own agent) feeds `agent(chatId, request)`;
// the core decides each request and returns a step, carried out here.
import { closeCardWindow, openCard, openWaitingCards } from './card-windows.js';
import { run } from './calls.js';
import { askedArguments, askedSchema } from '../../pkg/toolgate.js';
import { checkOffThread, warmChecker } from './checker.js';
import { errorReply, fromJson, toJson } from './core.js';
import { chatNamed, requestCame } from './audit.js';
import { keepError } from './errors.js';
import { deliver, tellWaiting, waitFor } from './replies.js';
import { changeSession } from './session.js';

// The open tabs as the core needs them (cards name the tab's title and URL).
export async function tabsInfo() {
  const tabs = await chrome.tabs.query({});
  return tabs.map((t) => ({ id: t.id, title: t.title ?? '', url: t.url ?? '' }));
}

// How many times a call's arguments are checked before the call is given up:
// the tool changed under each check (docs/agents.md).
const CHECKS = 3;

// The step `decide(tabs, checked)` comes to, asked again with what the core
// needs: the open tabs (most requests are decided without them, and looking
// them up costs a round trip), or the checker's verdict on a call's arguments
// (checker.js), which runs off this thread while other requests go on.
export async function decided(decide) {
  let tabs;
  let checked;
  let checks = 0;
  for (;;) {
    const step = await decide(tabs, checked);
    if (step.step === 'need_tabs' && tabs === undefined) tabs = toJson(await tabsInfo(), 'tabs');
    else if (step.step === 'need_check' && checks < CHECKS) {
      checks += 1;
      // The texts asked about, as plain strings; the verdict goes back with
      // the step's ticket (ARCHITECTURE.md, "The arguments' checker").
      // A ticket the binding let go (16 checks asked since) has no texts:
      // with no verdict, the core asks again.
      const { ticket, site } = step;
      const schema = askedSchema(ticket);
      const args = askedArguments(ticket);
      checked = schema === undefined || args === undefined ? undefined
        : toJson({ ticket, ...await checkOffThread({ schema, arguments: args, site }) }, 'checked');
    } else return step;
  }
}

export async function agent(chatId, request, { onWaiting } = {}) {
  if (typeof chatId !== 'string' || !chatId) throw new Error('a chat id is needed');
  requestCame(chatId, request);
  warmChecker();
  // Written once: a call's check asks the core again with the same text.
  const text = toJson(request, 'agent request');
  const step = await decided((tabs, checked) => changeSession((core) => fromJson(
    core.agent(chatId, text, tabs, checked, Date.now()),
  )));
  const id = request?.id ?? null;
  const waiting = waitFor(chatId, id, onWaiting);
  await proceed(chatId, id, step, false);
  return waiting;
}

// Withdraws request `id` of `chat` (every waiting request of the chat, with
// no id) from the card it waits on: an MCP cancellation, an agent gone away.
// A card nobody waits on any more closes; its agent is told the request was
// withdrawn.
export async function withdraw(chat, id) {
  const withdrawn = await changeSession((core) => fromJson(core.withdraw(chat, id === undefined ? undefined : toJson(id, 'request id'))));
  for (const window of withdrawn.close_windows) closeCardWindow(window);
  openWaitingCards().catch((error) => keepError('opening the cards that waited', error));
  for (const request of withdrawn.requests) {
    deliver(chat, request, await errorReply('withdrawn', request), false);
  }
  return withdrawn.requests.length;
}

// Ends a chat for good (its MCP session ended, or its port closed): its
// waiting requests are withdrawn, what it was allowed is forgotten, and its
// id cannot be opened again (docs/agents.md, "Chats").
export async function closeChat(chat) {
  // Queued before anything that follows it (an `open` of the same id).
  const closed = changeSession((core) => core.closeChat(chat));
  await withdraw(chat);
  await closed;
}

// Opens a chat; refused (a rejection, with why, marked `refused`) for a chat
// that was closed. The refusal is the core's answer to the request, the
// intended one for a closed id, not a fault of Toolgate's: callers tell the
// agent, and keep it off the list of errors (errors.js).
export async function openChat(chatId, { label = chatId, readOnly = false } = {}) {
  await changeSession((core) => {
    try {
      core.openChat(chatId, label, readOnly);
    } catch (error) {
      // The core refuses with its words (a JsError); anything else is a fault.
      if (error instanceof WebAssembly.RuntimeError) throw error;
      throw Object.assign(new Error(error?.message ?? String(error)), { refused: true });
    }
  });
  chatNamed(chatId, label);
  return { chat_id: chatId, read_only: readOnly };
}

// Carries out one step of a request: reply, run the tool, or open a card.
// `kept`: the core kept a reply step's reply for an agent that lost its wait
// (it does for steps that follow a card's answer).
export async function proceed(chat, id, step, kept) {
  switch (step.step) {
    case 'reply': return deliver(chat, id, step.reply, kept);
    case 'run': return run(chat, id, step.run);
    case 'ask':
      tellWaiting(chat, id, step.card_id);
      return openCard(step.card_id);
    case 'wait': // Its card is open; the answer will come.
      tellWaiting(chat, id, step.card_id);
      return undefined;
    case 'attach': return undefined; // Its call is running; the reply will come.
    case 'need_tabs': throw new Error('the core asked for the open tabs twice');
    case 'need_check':
      return deliver(chat, id, await errorReply('not_carried_out', id,
        'the tool changed each time its arguments were checked: nothing ran'), kept);
    default: throw new Error(`unknown step ${step.step}`);
  }
}

// Carries out what a card's answer comes to: the next step of the request
// that opened the card, and of each request of its chat that waited on it.
export function proceedAnswered(answered, when) {
  for (const { request_id: id, step } of [answered, ...answered.waiting]) {
    proceed(answered.chat, id, step, true).catch((error) => keepError(when, error));
  }
}
