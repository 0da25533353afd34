// Toolgate's cards as a person meets them: popup windows that open on their
// own, answered by clicking an answer by its visible label. A card takes no
// answer for a moment after it is shown (docs/cards.md, "Answering on
// purpose"); it says when it does with `data-ready` on its root element,
// which `ready` waits for: an event, not a sleep.
import assert from 'node:assert/strict';

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// Watches a browser context for card windows; each is handed out once.
export function cardWatcher(context) {
  const claimed = new WeakSet();
  const unclaimed = () => context.pages()
    .find((p) => p.url().includes('/extension/ui/card.html') && !p.isClosed() && !claimed.has(p));
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

// Resolves once `card` takes answers: its answers are on screen and its
// input delay is over.
export async function ready(card) {
  await card.waitForFunction(() => document.getElementById('approve')?.textContent !== ''
    && document.documentElement.hasAttribute('data-ready'));
}

// The id of the card a card window shows (card.html?card=<id>), as a string.
export const cardId = (card) => new URL(card.url()).searchParams.get('card');

// 'site' or 'call', from the card's heading.
export async function cardKind(card) {
  const heading = await card.locator('#heading').textContent();
  return heading.startsWith('An agent wants permission') ? 'site' : 'call';
}

const ON_FACE = ['Allow this call only', 'Deny this call'];
const arrowFor = (label) => (/^(Allow|Always)/.test(label) ? 'More ways to allow' : 'More ways to deny');

// Clicks an answer by its visible label, opening its arrow's menu first when
// it is a wider one; resolves once the card has closed.
export async function choose(card, label) {
  await ready(card);
  const closed = card.waitForEvent('close');
  // The answer closes the card, which may happen before the click returns.
  const answering = (locator) => locator.click().catch((error) => {
    if (!card.isClosed()) throw error;
  });
  if (ON_FACE.includes(label)) {
    await answering(card.getByRole('button', { name: label, exact: true }));
  } else {
    const arrow = card.getByRole('button', { name: arrowFor(label), exact: true });
    await arrow.click();
    assert.equal(await arrow.getAttribute('aria-expanded'), 'true', `${arrowFor(label)} opened its menu`);
    await answering(card.getByRole('menuitem', { name: label, exact: true }));
  }
  await closed;
}
