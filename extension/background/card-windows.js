// Cards' popup windows: opened for a card, closed when nobody waits on it.
import { loaded, ready } from './core.js';
import { changeSession, saveNow } from './session.js';

export async function openCard(cardId) {
  // The card is stored before anyone sees it: a window opened for a card the
  // next worker never heard of would stay open, answering nothing.
  await saveNow(loaded ?? await ready);
  const url = chrome.runtime.getURL(`extension/ui/card.html?card=${cardId}`);
  const window = await chrome.windows.create({ url, type: 'popup', width: 460, height: 620, focused: true });
  // Withdrawn while its window opened: nobody waits on it any more.
  const waits = await changeSession((core) => core.cardOpened(cardId, window.id));
  if (!waits) await chrome.windows.remove(window.id).catch(() => {});
}

// A card's window closed by Toolgate; it may be gone already.
export function closeCardWindow(windowId) {
  chrome.windows.remove(windowId).catch(() => {});
}
