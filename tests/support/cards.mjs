// Toolgate's cards as a person meets them, for the end-to-end tests. The
// watcher that hands out each card window once as it opens (`cardWatcher`),
// waiting for a card to take answers (`ready`) and clicking one by its label
// (`choose`) are the package's own (lib/cards.mjs), which the Playwright
// fixture uses too; what is here reads a card as the tests check it.
import assert from 'node:assert/strict';
import { cardWatcher, choose, isCard, ready } from '../../lib/cards.mjs';

export { cardWatcher, choose, isCard, ready };

// The id of the card a card window shows (card.html?card=<id>), as a string.
export const cardId = (card) => new URL(card.url()).searchParams.get('card');

// 'site' or 'call', from the card's heading; 'script' for the card about
// another site's script (docs/cards.md), which the page names.
export async function cardKind(card) {
  if (await card.evaluate(() => document.body.dataset.kind) === 'script') return 'script';
  const heading = await card.locator('#heading').textContent();
  return heading.startsWith('An agent wants permission') ? 'site' : 'call';
}

// The labels behind an arrow, opening and closing its menu.
export async function menuLabels(card, arrowName) {
  const arrow = card.getByRole('button', { name: arrowName, exact: true });
  await arrow.click();
  const menu = card.locator(`#${await arrow.getAttribute('aria-controls')}`);
  assert.equal(await menu.getAttribute('role'), 'menu');
  const labels = await menu.getByRole('menuitem').allTextContents();
  await arrow.click();
  assert.equal(await menu.isHidden(), true, 'the arrow closes its menu again');
  return labels;
}

// Presses a key that answers the card: the card may close before the key is up.
export async function pressAnswering(card, key) {
  const closed = card.waitForEvent('close');
  await card.keyboard.press(key).catch((error) => {
    if (!card.isClosed()) throw error;
  });
  await closed;
}

// Closes a card's window without answering, as a person closing it.
export async function closeCard(card) {
  await card.close();
}

// Everything a card shows, as text.
export function readCard(card) {
  return card.evaluate(() => {
    const $ = (id) => document.getElementById(id);
    const visible = (node) => !node.hidden;
    return {
      chat: $('chat').textContent,
      heading: $('heading').textContent,
      class: visible($('badges')) ? $('class').textContent : null,
      rule: visible($('rule')) ? $('rule').textContent : null,
      changed: visible($('changed')) ? $('changed').textContent : null,
      lines: [...$('lines').children].map((p) => p.textContent),
      // After untrusted content: the warning's lines, and its page text.
      untrusted: visible($('untrusted')) ? [...$('untrusted').children].map((p) => p.textContent) : null,
      untrustedPage: [...$('untrusted').querySelectorAll('.page-text')].map((node) => node.textContent),
      argumentCount: visible($('arguments-section')) ? $('argument-count').textContent : null,
      arguments: [...$('arguments').querySelectorAll('dt')].map((dt) => [dt.textContent, dt.nextElementSibling.textContent]),
      publishesOpen: $('publishes-section').open,
      publishes: [...$('publishes').children].map((li) => li.textContent),
      approve: $('approve').textContent,
      deny: $('deny').textContent,
      elements: [...document.querySelectorAll('main *')].map((n) => n.localName),
    };
  });
}
