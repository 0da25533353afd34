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
