// A permission card: the site-permission question or the per-call
// confirmation, as docs/cards.md lays them out — the narrowest answer on each
// button's face, the wider ones behind its arrow, refusals to the right.
// Everything from the page (names, titles, arguments) is shown as text.
//
// Keyboard: Tab moves between the buttons, Enter or Space answers, the
// arrows open their menus (Up/Down move in a menu), Esc closes an open menu,
// and with no menu open Esc closes the card, which counts as closing it.

import { $, el } from './dom.js';

const cardId = Number(new URLSearchParams(location.search).get('card'));

let answering = false;
function setAnswering(on) {
  answering = on;
  for (const button of document.querySelectorAll('button')) button.disabled = on;
}

async function send(answer, label) {
  if (answering) return;
  setAnswering(true);
  $('status').textContent = `${label}…`;
  let result;
  try {
    result = await chrome.runtime.sendMessage({ type: 'answer', card_id: cardId, answer });
  } catch (error) {
    // The worker stopped mid-answer, or the extension was reloaded.
    result = { error: String(error?.message ?? error) };
  }
  if (result?.error) {
    // Not taken: say why, and let the person answer again (the core takes
    // a card's answer once; a second gets an error, never a second effect).
    $('status').textContent = `Toolgate could not take this answer: ${result.error}`;
    setAnswering(false);
    return;
  }
  window.close();
}

function menu(button, list, choices) {
  list.replaceChildren(...choices.map((choice) => {
    const item = el('button', { type: 'button', role: 'menuitem', tabindex: '-1', text: choice.label });
    item.addEventListener('click', () => send(choice.answer, choice.label));
    return el('li', { role: 'none' }, [item]);
  }));
  if (!choices.length) {
    button.hidden = true;
    return;
  }
  const items = () => [...list.querySelectorAll('[role="menuitem"]')];
  const open = (focusFirst) => {
    closeMenus();
    list.hidden = false;
    button.setAttribute('aria-expanded', 'true');
    if (focusFirst) items()[0]?.focus();
  };
  button.addEventListener('click', () => (list.hidden ? open(true) : closeMenus()));
  button.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      open(true);
    }
  });
  list.addEventListener('keydown', (event) => {
    const all = items();
    const at = all.indexOf(document.activeElement);
    if (event.key === 'ArrowDown') all[(at + 1) % all.length].focus();
    else if (event.key === 'ArrowUp') all[(at - 1 + all.length) % all.length].focus();
    else if (event.key === 'Tab') closeMenus();
    else return;
    event.preventDefault();
  });
}

function closeMenus() {
  for (const list of document.querySelectorAll('[role="menu"]')) {
    if (list.hidden) continue;
    list.hidden = true;
    const opener = document.querySelector(`[aria-controls="${list.id}"]`);
    opener.setAttribute('aria-expanded', 'false');
    if (list.contains(document.activeElement)) opener.focus();
  }
}

document.addEventListener('keydown', (event) => {
  if (event.key !== 'Escape') return;
  event.preventDefault();
  if (document.querySelector('[role="menu"]:not([hidden])')) closeMenus();
  else window.close();
});
document.addEventListener('click', (event) => {
  if (!event.target.closest('.split')) closeMenus();
});

function render(card) {
  document.title = `Toolgate: ${card.heading}`;
  $('chat').textContent = `Asked by ${card.chat}`;
  $('heading').textContent = card.heading;
  $('lines').replaceChildren(...card.lines.map((text) => el('p', { text })));
  if (card.class) {
    $('class').hidden = false;
    $('class').textContent = card.class;
  }
  if (card.changed) {
    $('changed').hidden = false;
    $('changed').textContent = card.changed;
  }
  if (card.kind === 'call') {
    $('arguments-section').hidden = false;
    $('argument-count').textContent = card.argument_count;
    $('arguments').replaceChildren(...card.arguments.flatMap(([name, value]) => [el('dt', { text: name }), el('dd', { text: value })]));
  } else {
    // The site question lists what the site publishes openly; the call card folds it.
    $('publishes-section').open = true;
  }
  $('publishes').replaceChildren(...card.publishes.map((p) => el('li', { text: `${p.name}, ${p.badge}` })));
  $('approve').textContent = card.approve.label;
  $('approve').addEventListener('click', () => send(card.approve.answer, card.approve.label));
  $('deny').textContent = card.deny.label;
  $('deny').addEventListener('click', () => send(card.deny.answer, card.deny.label));
  menu($('approve-more'), $('approve-menu'), card.approve_menu);
  menu($('deny-more'), $('deny-menu'), card.deny_menu);
  $('approve').focus();
}

async function main() {
  const card = await chrome.runtime.sendMessage({ type: 'card', card_id: cardId });
  if (card?.error) throw new Error(card.error);
  if (!card) {
    $('heading').textContent = 'This request was already answered.';
    document.querySelector('.answers').hidden = true;
    return;
  }
  render(card);
}

main().catch((error) => {
  $('status').textContent = `Toolgate could not show this card: ${error.message}`;
});
