// A permission card: the site-permission question or the per-call
// confirmation, as docs/cards.md lays them out — the narrowest answer on each
// button's face, the wider ones behind its arrow, refusals to the right.
// Everything from the page (names, titles, arguments) is shown as text, cut
// and escaped by the core, each in an element of its own (`pageText`), never
// run into Toolgate's sentences (docs/cards.md, "How page text is shown").
//
// Keyboard: Tab moves between the buttons, Enter or Space answers, the
// arrows open their menus (Up/Down move in a menu), Esc closes an open menu,
// and with no menu open Esc closes the card, which counts as closing it.
//
// Answering on purpose (docs/cards.md): the card opens with the focus on its
// heading, which answers nothing, and takes no answer for INPUT_DELAY_MS after
// it is shown and again after its window regains the focus or becomes
// visible, as Chromium's own permission prompts do: a key or click meant for
// another window, arriving as the card appears, answers nothing. The answer
// controls are disabled meanwhile (so no click or key reaches them), and
// events stamped before the delay ended are ignored too. `data-ready` on the
// root element says when the card takes answers.

import { $, el, lineNodes, lineText, pageText } from './dom.js';
import { askWorker, untilAWorkerAnswers } from '../shared/chromium-errors.js';

const INPUT_DELAY_MS = 500;

const cardId = Number(new URLSearchParams(location.search).get('card'));

let answering = false;
let shown = false;
// When the card takes answers again (performance.now()'s clock, as event
// time stamps are), and the timer that says so.
let acceptsAt = Infinity;
let readyTimer = 0;

function updateControls() {
  const off = answering || !shown || performance.now() < acceptsAt;
  for (const button of document.querySelectorAll('.answers button')) button.disabled = off;
  document.documentElement.toggleAttribute('data-ready', !off);
}

function setAnswering(on) {
  answering = on;
  updateControls();
}

// Whether an event may answer: it came after the delay ended.
const accepts = (event) => !answering && shown && event.timeStamp >= acceptsAt && performance.now() >= acceptsAt;

// Starts the delay again: the card was shown, or its window came back.
function protect() {
  if (!shown) return;
  acceptsAt = performance.now() + INPUT_DELAY_MS;
  if (document.activeElement?.closest('.answers')) $('heading').focus();
  closeMenus();
  updateControls();
  clearTimeout(readyTimer);
  const ready = () => {
    const left = acceptsAt - performance.now();
    if (left > 0) readyTimer = setTimeout(ready, left);
    else updateControls();
  };
  readyTimer = setTimeout(ready, INPUT_DELAY_MS);
}
window.addEventListener('focus', protect);
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') protect();
});
// Anything that reaches the answers before the delay ended goes no further.
for (const type of ['click', 'keydown', 'keyup', 'pointerdown', 'pointerup', 'mousedown', 'mouseup']) {
  document.addEventListener(type, (event) => {
    if (event.target instanceof Element && event.target.closest('.answers') && !accepts(event)) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);
}

// The answer was taken, though the worker that took it could not say so.
const TAKEN = Symbol('taken');

// Sends an answer until a worker takes it, so a person's click is never lost
// to a stop. The core takes a card's answer once: if the card no longer waits
// when the answer comes again, the stopped worker had taken it
// (ARCHITECTURE.md, "a request waiting on a person lives in the stored
// Session").
function deliver(answer) {
  return untilAWorkerAnswers(async (tries) => {
    if (tries > 1 && !(await askWorker({ type: 'card', card_id: cardId }))) return TAKEN;
    return askWorker({ type: 'answer', card_id: cardId, answer });
  }).catch((error) => ({ error: String(error?.message ?? error) }));
}

async function send(answer, label) {
  if (answering || performance.now() < acceptsAt) return;
  setAnswering(true);
  $('status').textContent = `${label}…`;
  const result = await deliver(answer);
  if (result === TAKEN) {
    window.close();
    return;
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
    const item = el('button', { type: 'button', role: 'menuitem', tabindex: '-1', disabled: true }, lineNodes(choice.parts));
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
  // Closing the card is an answer: not before the delay ended.
  else if (accepts(event)) window.close();
});
document.addEventListener('click', (event) => {
  if (!event.target.closest('.split')) closeMenus();
});

function render(card) {
  document.title = `Toolgate: ${lineText(card.heading)}`;
  $('chat').replaceChildren(...lineNodes(card.asked_by));
  $('heading').replaceChildren(...lineNodes(card.heading));
  $('lines').replaceChildren(...card.lines.map((parts) => el('p', {}, lineNodes(parts))));
  if (card.class) {
    $('badges').hidden = false;
    $('class').textContent = card.class;
  }
  // A rule's card: the level that asks and its rule, beside the class.
  if (card.rule) {
    $('rule').hidden = false;
    $('rule').textContent = card.rule;
  }
  // After untrusted content (docs/cards.md): why this call is asked, as a
  // warning of its own, above the card's other lines; what was read
  // is page text, in its own element.
  if (card.after_untrusted && card.untrusted?.length) {
    $('untrusted').hidden = false;
    $('untrusted').replaceChildren(...card.untrusted.map((parts) => el('p', {}, lineNodes(parts))));
  }
  if (card.changed) {
    $('changed').hidden = false;
    $('changed').replaceChildren(...lineNodes(card.changed));
  }
  const argumentList = () => card.arguments.flatMap(([name, value]) => [
    el('dt', {}, [pageText(name)]),
    el('dd', {}, [pageText(value)]),
  ]);
  // Which card this is, for tests and styles: site, call, rule or script.
  document.body.dataset.kind = card.kind;
  if (card.kind === 'call') {
    $('arguments-section').hidden = false;
    $('argument-count').textContent = card.argument_count;
    $('arguments').replaceChildren(...argumentList());
  } else if (card.kind === 'rule' || card.kind === 'script') {
    // A rule's card shows what the agent wants to do, with its arguments if
    // you open them (docs/rules.md, "Levels").
    $('rule-arguments').hidden = false;
    $('rule-argument-count').textContent = `Its arguments (${card.argument_count})`;
    $('rule-argument-list').replaceChildren(...argumentList());
  } else {
    // The site question lists what the site publishes openly; the call card folds it.
    $('publishes-section').open = true;
  }
  $('publishes').replaceChildren(...card.publishes.map((p) => el('li', {}, [pageText(p.name), `, ${p.badge}`])));
  $('approve').replaceChildren(...lineNodes(card.approve.parts));
  $('approve').addEventListener('click', () => send(card.approve.answer, card.approve.label));
  $('deny').replaceChildren(...lineNodes(card.deny.parts));
  $('deny').addEventListener('click', () => send(card.deny.answer, card.deny.label));
  menu($('approve-more'), $('approve-menu'), card.approve_menu);
  menu($('deny-more'), $('deny-menu'), card.deny_menu);
  // The focus goes where it answers nothing; the answers wait out the delay.
  $('heading').focus();
  shown = true;
  protect();
}

// What the card shows, from whichever worker answers (it may have opened this
// window just before it stopped).
const load = () => untilAWorkerAnswers(() => askWorker({ type: 'card', card_id: cardId }));

async function main() {
  const card = await load();
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
