// Toolgate's cards as a person meets them (docs/cards.md): popup windows
// that open on their own, answered by clicking an answer by its visible
// label. Used by the Playwright fixture and the repository's own tests. A
// card takes no answer for a moment after it is shown ("Answering on
// purpose"); it says when it does with `data-ready` on its root element,
// which `ready` waits for: an event, not a sleep.

import { TOOLGATE_ID } from './chromium.mjs';

// Whether `page` is an open card window: Toolgate's own page, never a page
// at a look-alike address.
const CARD = `chrome-extension://${TOOLGATE_ID}/extension/ui/card.html`;
export const isCard = (page) => page.url().startsWith(CARD) && !page.isClosed();

// Watches `context` for card windows as the browser opens them (its `page`
// event; a window that opens on about:blank is looked at again when it
// navigates) and hands each out once, in the order they opened, once it
// takes answers. Cards open before the watcher was made are handed out first.
export function cardWatcher(context) {
  const seen = new WeakSet();
  const queue = []; // cards not handed out yet, oldest first
  const waiters = []; // `take` functions of calls to next() and race(), oldest first
  const offer = (page) => {
    if (seen.has(page) || !isCard(page)) return;
    seen.add(page);
    const take = waiters.shift();
    if (take) take(page);
    else queue.push(page);
  };
  const watch = (page) => {
    offer(page);
    page.on('framenavigated', (frame) => { if (frame === page.mainFrame()) offer(page); });
  };
  context.pages().forEach(watch);
  context.on('page', watch);
  // The oldest card still open that was not handed out, if any.
  const unclaimed = () => {
    while (queue.length && queue[0].isClosed()) queue.shift();
    return queue.shift();
  };
  // Calls `take(card)` with the next card (now, or once one opens); returns
  // a function that stops waiting, which says whether it stopped in time.
  const wait = (take) => {
    const card = unclaimed();
    if (card) {
      take(card);
      return () => false;
    }
    const waiter = (page) => take(page);
    waiters.push(waiter);
    return () => {
      const at = waiters.indexOf(waiter);
      if (at >= 0) waiters.splice(at, 1);
      return at >= 0;
    };
  };
  return {
    // The next card not handed out before, once it takes answers; throws
    // after `timeout` ms without one.
    next(timeout = 10_000) {
      return new Promise((done, fail) => {
        const timer = setTimeout(() => { if (stop()) fail(new Error(`no card opened within ${timeout} ms`)); }, timeout);
        const stop = wait((card) => {
          clearTimeout(timer);
          ready(card).then(() => done(card), fail);
        });
      });
    },
    // Whichever comes first: `reply` settling ({ reply: value }, or it
    // throws), or a card opening ({ card, reply }, the card once it takes
    // answers, `reply` the promise still to settle).
    race(reply) {
      return new Promise((done, fail) => {
        const stop = wait((card) => ready(card).then(() => done({ card, reply }), fail));
        reply.then((value) => { if (stop()) done({ reply: value }); }, (error) => { if (stop()) fail(error); });
      });
    },
    // Marks a card a test took by itself (before it takes answers) as handed out.
    claim: (card) => {
      seen.add(card);
      const at = queue.indexOf(card);
      if (at >= 0) queue.splice(at, 1);
    },
    // Whether a card is open that was not handed out yet.
    pending: () => queue.some((card) => !card.isClosed()),
  };
}

// Resolves once `card` takes answers: its answers are on screen and its
// input delay is over.
export async function ready(card) {
  await card.waitForFunction(() => document.getElementById('approve')?.textContent !== ''
    && document.documentElement.hasAttribute('data-ready'));
}

// The card's heading and every answer it offers, by label: the two on its
// face, then those behind each arrow.
export async function answersOf(card) {
  await ready(card);
  return card.evaluate(() => {
    const text = (id) => document.getElementById(id).textContent;
    const items = (id) => [...document.querySelectorAll(`#${id} [role="menuitem"]`)].map((item) => item.textContent);
    return {
      heading: text('heading'),
      face: [text('approve'), text('deny')],
      allow: items('approve-menu'),
      deny: items('deny-menu'),
    };
  });
}

// Every label of `answersOf`'s result, in one list.
export const labelsOf = (answers) => [answers.face[0], ...answers.allow, answers.face[1], ...answers.deny];

// Clicks the answer labelled `label`, opening its arrow's menu first when it
// is behind one; resolves once the card has closed. Throws, naming the
// card's answers, when it offers none of that label.
export async function choose(card, label) {
  const answers = await answersOf(card);
  const closed = card.waitForEvent('close');
  // The answer closes the card, which may happen before the click returns.
  const answering = (locator) => locator.click().catch((error) => {
    if (!card.isClosed()) throw error;
  });
  const arrow = answers.allow.includes(label) ? 'More ways to allow'
    : answers.deny.includes(label) ? 'More ways to deny' : null;
  if (answers.face.includes(label)) {
    await answering(card.getByRole('button', { name: label, exact: true }));
  } else if (arrow) {
    const button = card.getByRole('button', { name: arrow, exact: true });
    await button.click();
    if (await button.getAttribute('aria-expanded') !== 'true') throw new Error(`${arrow} did not open its menu`);
    await answering(card.getByRole('menuitem', { name: label, exact: true }));
  } else {
    throw new Error(`the card "${answers.heading}" has no answer "${label}"; its answers: ${labelsOf(answers).map((l) => `"${l}"`).join(', ')}`);
  }
  await closed;
}
