// What a card shows, and a person's answer to it: given on the card, or by
// closing its window.
import { proceedAnswered, tabsInfo } from './agents.js';
import { fromJson, ready, toJson } from './core.js';
import { changeSession } from './session.js';

export async function card(cardId) {
  const core = await ready;
  return fromJson(core.card(cardId, toJson(await tabsInfo(), 'tabs'), Date.now()));
}

export async function answer(cardId, given) {
  const tabs = await tabsInfo();
  const answered = await changeSession((core) => fromJson(core.answer(cardId, toJson(given, 'answer'), toJson(tabs, 'tabs'), Date.now())));
  // The answer is recorded: the card closes now, and the calls it let run (up
  // to the call timeout) or the cards it leads to go on without it.
  proceedAnswered(answered, `after answering card ${cardId}`);
  return { answered: true };
}

// chrome.windows.onRemoved: closing a card's window counts as its closing
// answer (docs/cards.md, "Closing a card").
export async function onWindowRemoved(windowId) {
  const tabs = await tabsInfo();
  const answered = await changeSession((core) => fromJson(core.windowClosed(windowId, toJson(tabs, 'tabs'), Date.now())));
  if (answered) proceedAnswered(answered, `after window ${windowId} closed`);
}
