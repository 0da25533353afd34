// What a card shows, and a person's answer to it: given on the card, or by
// closing its window.
import { proceedAnswered, tabsInfo } from './agents.js';
import { fromJson, loaded, ready, toJson } from './core.js';
import { record } from './audit.js';
import { openWaitingCards } from './card-windows.js';
import { keepError } from './errors.js';
import { changeSession, saveNow } from './session.js';

export async function card(cardId) {
  const core = await ready;
  return fromJson(core.card(cardId, toJson(await tabsInfo(), 'tabs'), Date.now()));
}

export async function answer(cardId, given) {
  const tabs = await tabsInfo();
  let shown = null;
  const answered = await changeSession((core) => {
    // What the card showed, for the audit: read in the answer's own turn.
    try {
      shown = fromJson(core.card(cardId, toJson(tabs, 'tabs'), Date.now()));
    } catch {
      shown = null;
    }
    return fromJson(core.answer(cardId, toJson(given, 'answer'), toJson(tabs, 'tabs'), Date.now()));
  });
  record({ what: 'answer', card_id: cardId, chat: answered.chat, answer: given, ...cardFacts(shown, given) });
  // The answer's write is issued before the calls it lets run start (so they
  // are on record first), and the card hears it was taken once it is stored:
  // a worker stopped before that leaves the card to send it again.
  const stored = saveNow(loaded ?? await ready);
  // The calls it let run (up to the call timeout) or the cards it leads to go
  // on without the card, which closes once told.
  proceedAnswered(answered, `after answering card ${cardId}`);
  // The next card of its tab opens; the answer does not wait for it.
  openWaitingCards().catch((error) => keepError('opening the cards that waited', error));
  await stored;
  return { answered: true };
}

// The audit's words for an answer: the card's site, tool and chat's name, and
// the label of the answer given, as the card showed them, and the condition
// or limit that asked, as the agent is told it (docs/rules.md, "Every site,
// side by side, and the audit"). A card asked because its chat read
// untrusted content (docs/cards.md, "After untrusted content") says so, and
// whether the answer let the call run.
function cardFacts(shown, given) {
  if (!shown || typeof shown !== 'object') return {};
  const same = (choice) => JSON.stringify(choice?.answer) === JSON.stringify(given);
  const allowing = [shown.approve, ...(shown.approve_menu ?? [])];
  const choices = [...allowing, shown.deny, ...(shown.deny_menu ?? [])];
  const label = choices.find(same)?.label;
  const by = (shown.asked_by ?? []).filter((part) => 'page' in part).map((part) => part.page).join('');
  const untrusted = shown.after_untrusted === true ? { after_untrusted: true, allowed: allowing.some(same) } : {};
  const asked = typeof shown.asked_because === 'string' ? { asked_because: shown.asked_because } : {};
  return { card: shown.kind, site: shown.site, tool: shown.tool ?? undefined, by: by || undefined, label, ...asked, ...untrusted };
}

// chrome.windows.onRemoved: closing a card's window counts as its closing
// answer (docs/cards.md, "Closing a card").
export async function onWindowRemoved(windowId) {
  const tabs = await tabsInfo();
  let shown = null;
  const answered = await changeSession((core) => {
    // What the card showed, for the audit, read in the same turn.
    const cardId = core.cardOfWindow(windowId);
    if (cardId !== undefined) {
      try {
        shown = fromJson(core.card(cardId, toJson(tabs, 'tabs'), Date.now()));
      } catch {
        shown = null;
      }
    }
    return fromJson(core.windowClosed(windowId, toJson(tabs, 'tabs'), Date.now()));
  });
  if (answered) {
    record({ what: 'answer', chat: answered.chat, answer: 'closed the card', ...cardFacts(shown, null) });
    proceedAnswered(answered, `after window ${windowId} closed`);
  }
  openWaitingCards().catch((error) => keepError('opening the cards that waited', error));
}
