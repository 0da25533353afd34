// Toolgate's cards as a person meets them, for the end-to-end tests: a
// watcher that hands out each card window once. Waiting for a card to take
// answers (`ready`) and clicking one by its label (`choose`) are the
// package's own (lib/cards.mjs), which the Playwright fixture uses too.
import { choose, isCard, ready } from '../../lib/cards.mjs';

export { choose, ready };

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// Watches a browser context for card windows; each is handed out once.
export function cardWatcher(context) {
  const claimed = new WeakSet();
  const unclaimed = () => context.pages().find((p) => isCard(p) && !claimed.has(p));
  return {
    // The next card not handed out before, once it takes answers.
    async next(timeout = 10_000) {
      const deadline = Date.now() + timeout;
      for (;;) {
        const card = unclaimed();
        if (card) {
          claimed.add(card);
          await ready(card);
          return card;
        }
        if (Date.now() > deadline) throw new Error('no card opened');
        await sleep(25);
      }
    },
    // Marks a card a test took by itself (before it takes answers) as handed out.
    claim: (card) => { claimed.add(card); },
    // Whether a card is open that was not handed out yet.
    pending: () => Boolean(unclaimed()),
  };
}

// The id of the card a card window shows (card.html?card=<id>), as a string.
export const cardId = (card) => new URL(card.url()).searchParams.get('card');

// 'site' or 'call', from the card's heading.
export async function cardKind(card) {
  const heading = await card.locator('#heading').textContent();
  return heading.startsWith('An agent wants permission') ? 'site' : 'call';
}
