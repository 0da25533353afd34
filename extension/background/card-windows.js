// Cards' popup windows: opened for a card, closed when nobody waits on it,
// and found again by a worker that starts after one stopped.
import { loaded, ready } from './core.js';
import { changeSession, saveNow } from './session.js';

const CARD_PAGE = 'extension/ui/card.html';
// The alarm that wakes a worker when a rule's card stops waiting
// (docs/rules.md, "How long a call waits"); card-deadlines.js answers it.
export const DEADLINE_ALARM = 'toolgate:card-deadline';

// Sets the alarm for the next card's deadline, which the core keeps with the
// stored session: an alarm outlives the worker, a timer does not.
export async function scheduleDeadline() {
  const at = (loaded ?? await ready).nextDeadline();
  if (at === undefined) await chrome.alarms.clear(DEADLINE_ALARM);
  else await chrome.alarms.create(DEADLINE_ALARM, { when: at });
}

// Opens a card's window, when it is the card's turn: a tab shows one card
// at a time (docs/cards.md, "One card at a time"), and a card behind another
// of its tab's opens once that one is answered (`openWaitingCards`).
const opening = new Set(); // card ids whose window is being opened
export async function openCard(cardId) {
  const core = loaded ?? await ready;
  if (opening.has(cardId) || !core.cardsWithoutWindow().includes(cardId)) return;
  opening.add(cardId);
  try {
    // The card is stored before anyone sees it: a window opened for a card the
    // next worker never heard of would stay open, answering nothing.
    await saveNow(core);
    const url = chrome.runtime.getURL(`${CARD_PAGE}?card=${cardId}`);
    const window = await chrome.windows.create({ url, type: 'popup', width: 460, height: 620, focused: true });
    // Withdrawn while its window opened: nobody waits on it any more.
    const waits = await changeSession((c) => c.cardOpened(cardId, window.id));
    if (!waits) await chrome.windows.remove(window.id).catch(() => {});
  } finally {
    opening.delete(cardId);
  }
  await scheduleDeadline();
}

// Opens the cards whose turn came: after a card was answered, closed,
// withdrawn or expired, the next card of its tab.
export async function openWaitingCards() {
  const core = loaded ?? await ready;
  await Promise.all([...core.cardsWithoutWindow()].map((cardId) => openCard(cardId)));
}

// A card's window closed by Toolgate; it may be gone already.
export function closeCardWindow(windowId) {
  chrome.windows.remove(windowId).catch(() => {});
}

// The cards this worker found stored without a window recorded: read as the
// core loads, before any event that woke the worker changes the session (a
// card it asks has no window yet either, and must not get a second).
const missingAtStart = ready.then((core) => [...core.cardsWithoutWindow()], () => []);

// At a worker's start. A worker that stopped after storing a card and before
// recording its window left a card no window is known to show, which its
// agent, sending its request again, would wait on for ever: its window, if it
// opened, is found by its address and recorded (so closing it counts as
// closing the card), or else opens now.
export async function restoreCardWindows() {
  const missing = await missingAtStart;
  if (!missing.length) return;
  const page = chrome.runtime.getURL(CARD_PAGE);
  const shown = new Map(); // card id -> the window showing it
  for (const tab of await chrome.tabs.query({ windowType: 'popup' })) {
    if (!tab.url?.startsWith(`${page}?`)) continue;
    shown.set(Number(new URL(tab.url).searchParams.get('card')), tab.windowId);
  }
  for (const cardId of missing) {
    const windowId = shown.get(cardId);
    if (windowId !== undefined) await changeSession((core) => core.cardOpened(cardId, windowId));
    // Unless it was answered or withdrawn meanwhile.
    else if (loaded?.cardsWithoutWindow().includes(cardId)) await openCard(cardId);
  }
}
