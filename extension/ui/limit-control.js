// A limit on how often, for a kind, an area or a tool (docs/rules.md,
// "Limits on how often"): "at most N calls in M minutes, per chat", shown in
// words beside the level, set from a small form opened by its button, and
// removed by another. The most calls and the windows are the worker's
// (`rule_words`: `limit_most_calls`, `limit_windows`); its core checks each
// change again. Refused, the reason is shown by the form, which keeps what
// was typed.
import { el } from './dom.js';

let controls = 0;

const minutesText = (minutes) => (minutes === 1 ? '1 minute' : `${minutes} minutes`);

// "at most 3 calls in 1 minute, per chat".
export const limitWords = ({ calls, minutes }) => `at most ${calls} ${calls === 1 ? 'call' : 'calls'} in ${minutesText(minutes)}, per chat`;

// The limit of each target in a site's stored rules (`limits`, a list of
// `{target, kind|area|name, calls, minutes}`): `limitOf(rules, 'tool', 'transfer')`.
export function limitOf(rules, target, name) {
  const key = { kind: 'kind', area: 'area', tool: 'name' }[target];
  const found = (Array.isArray(rules?.limits) ? rules.limits : []).find((l) => l.target === target && l[key] === name);
  return found ? { calls: found.calls, minutes: found.minutes } : null;
}

// `what`: the target in words for the controls' names ("the tool transfer");
// `idBase`: a stable id for its button, so that focus can come back to it
// on a page that builds its rows again; `save(limit or null)` resolves to
// the reason a change was refused, or null once saved; `said(text)` tells
// the person it was saved, if the page has a place for that.
export function limitControl({ what, limit, words, save, idBase = null, said = null }) {
  const id = idBase ?? `limit-${(controls += 1)}`;
  let current = limit;
  const shownWords = el('span', { class: 'limit-words' });
  const toggle = el('button', { type: 'button', id: `${id}-set`, 'aria-expanded': 'false', 'aria-controls': `${id}-form` });
  const remove = el('button', { type: 'button', id: `${id}-remove`, text: 'Remove the limit', 'aria-label': `Remove the limit for ${what}` });
  const calls = el('input', { type: 'number', id: `${id}-calls`, min: 1, max: words.limit_most_calls, step: 1, inputmode: 'numeric', required: true });
  const minutes = el('select', { id: `${id}-minutes` }, words.limit_windows.map((m) => el('option', { value: String(m), text: minutesText(m) })));
  const error = el('p', { class: 'error', role: 'alert' });
  const saveButton = el('button', { type: 'button', text: 'Save the limit' });
  const cancel = el('button', { type: 'button', text: 'Cancel' });
  const hidden = (text) => el('span', { class: 'visually-hidden', text });
  const form = el('div', { id: `${id}-form`, class: 'limit-form', role: 'group', 'aria-label': `Limit on how often for ${what}`, hidden: true }, [
    el('label', { for: calls.id }, ['Calls at most', hidden(` for ${what}`)]), ' ', calls, ' ',
    el('label', { for: minutes.id }, ['In', hidden(` for ${what}`)]), ' ', minutes,
    el('span', { text: ', per chat ' }),
    saveButton, ' ', cancel,
  ]);
  const focusBack = (button) => (document.getElementById(button.id) ?? button).focus();

  function show() {
    shownWords.textContent = current ? `Limit: ${limitWords(current)}` : 'No limit on how often';
    toggle.textContent = current ? 'Change the limit' : 'Set a limit';
    toggle.setAttribute('aria-label', `${current ? 'Change the limit' : 'Set a limit'} for ${what}`);
    remove.hidden = !current;
  }
  function setOpen(open) {
    toggle.setAttribute('aria-expanded', String(open));
    form.hidden = !open;
    if (open) {
      calls.value = String(current?.calls ?? '');
      minutes.value = String(current?.minutes ?? words.limit_windows[0]);
      error.textContent = '';
      calls.focus();
    }
  }
  async function send(limit) {
    const refused = await save(limit);
    error.textContent = refused ?? '';
    if (refused !== null) return false;
    current = limit;
    show();
    said?.(limit ? `The limit for ${what} is now ${limitWords(limit)}.` : `${what}: no limit on how often now.`);
    return true;
  }
  toggle.addEventListener('click', () => setOpen(form.hidden));
  cancel.addEventListener('click', () => { error.textContent = ''; setOpen(false); focusBack(toggle); });
  saveButton.addEventListener('click', async () => {
    const n = Number(calls.value);
    if (calls.value.trim() === '' || !Number.isInteger(n)) {
      error.textContent = `Calls at most needs a whole number from 1 to ${words.limit_most_calls}. Nothing was saved.`;
      calls.focus();
      return;
    }
    if (await send({ calls: n, minutes: Number(minutes.value) })) {
      setOpen(false);
      focusBack(toggle);
    }
  });
  remove.addEventListener('click', async () => {
    if (await send(null)) { setOpen(false); focusBack(toggle); }
  });
  show();
  return {
    node: el('span', { class: 'limit' }, [shownWords, ' ', toggle, ' ', remove, form, error]),
    update(limitNow) {
      current = limitNow;
      show();
    },
  };
}
