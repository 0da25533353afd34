// Form tools called through the browser's own WebMCP: the agent's submission
// held (holdAgentSubmit, which index.js adds as a capturing `submit` listener
// on window) until the worker decides, and released (releaseForm) if it may run.
//
// Imports: primordials.js, json.js, dom.js, channel.js, native.js, outcome.js,
// form-calls.js, start.js.

import {
  arrayFrom, hasOwn, mapSet, parse, PromiseCtor, promiseThen, regexTest, setOwn, weakSetAdd,
  weakSetDelete, WeakSetCtor, weakSetHas,
} from './primordials.js';
import { jsonText } from './json.js';
import { getAttribute } from './dom.js';
import { send } from './channel.js';
import { nativeCalls, nativeExecuteForm, nextNativeCall } from './native.js';
import { NAVIGATED } from './outcome.js';
import { takeFormSubmit } from './form-calls.js';
import { start } from './start.js';

// Chromium registers every <form toolname> with its native WebMCP itself,
// so Toolgate has no copy to gate there. An agent's call fills the form and
// then submits it with a trusted, cancelable SubmitEvent whose
// `agentInvoked` is true, the person's submit included when the form has
// no `toolautosubmit`. This capturing listener, on window before any page
// script, holds that submission: no page handler runs and nothing
// navigates, and the call waits on a promise Toolgate hands to
// `respondWith`. The worker decides as for any call (gatedExecute, native.js).
// Refused, the promise rejects: the caller gets the native failure. Allowed,
// the form is submitted again (`requestSubmit`, let through once), the page
// answers that submission as it would have, and the held promise is left
// unsettled so that the page's own answer is the call's (the first answer
// to settle is the one the browser takes). The fill itself
// happens before any event a page can stop; only the submission is gated.
let releasing = null; // the form Toolgate is submitting again, once
export function holdAgentSubmit(event) {
  // A call Toolgate runs itself (form-calls.js), or hands to the browser
  // (nativeFormCall): already decided, or the page's own.
  if (takeFormSubmit(event)) return;
  if (!event.isTrusted || event.agentInvoked !== true) return;
  const form = event.target;
  if (weakSetHas(ownCalls, form)) return;
  if (form === releasing) {
    releasing = null;
    return;
  }
  if (!start()) return;
  const name = getAttribute(form, 'toolname');
  if (name === null) return;
  event.preventDefault();
  event.stopImmediatePropagation();
  const call = nextNativeCall();
  const held = new PromiseCtor((_, reject) => {
    mapSet(nativeCalls, call, { form, submitter: event.submitter, reject });
  });
  // The refusal goes to the caller through respondWith; it is no uncaught
  // error of the page's.
  promiseThen(held, undefined, () => {});
  event.respondWith(held);
  // In this order: the relay reads `type` and `call` from the text's start.
  send(jsonText({ type: 'native_call', call, source: 'declarative', name, arguments: formArguments(form) }));
}

// The forms whose call Toolgate handed to the browser's own executeTool.
const ownCalls = new WeakSetCtor();

// Runs a form tool through the browser's own executeTool where it runs form
// tools (Chromium 156), so that the page sees exactly the browser's run:
// its fill, its `:tool-form-active` / `:tool-submit-active` states, its
// SubmitEvent. The call is one Toolgate already decided (an agent's) or the
// page's own, so its submission is not held. Gives null where the browser
// runs no form tools; else a promise of the page's answer as a value (the
// browser gives it as JSON text), or NAVIGATED.
export function nativeFormCall(form, name, input, signal) {
  const running = nativeExecuteForm(name, input, signal);
  if (running === null) return null;
  weakSetAdd(ownCalls, form);
  const done = () => weakSetDelete(ownCalls, form);
  return promiseThen(running, (text) => {
    done();
    if (text === null) return NAVIGATED;
    try {
      return parse(text);
    } catch {
      return text;
    }
  }, (error) => {
    done();
    throw error;
  });
}

// What an agent filled a form with, as its schema reads (formSnapshot):
// each value set as the object's own (setOwn), not through a setter of the
// page's, since it is sent (json.js).
const NOT_FILLED = /^(submit|button|reset|hidden|file|image)$/;
function formArguments(form) {
  const values = {};
  const fields = arrayFrom(form.elements);
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i];
    const { name, type } = field;
    if (!name || regexTest(NOT_FILLED, type) || field.tagName === 'FIELDSET') continue;
    if (type === 'checkbox') setOwn(values, name, field.checked);
    else if (type === 'radio') {
      if (field.checked) setOwn(values, name, field.value);
    } else if (type === 'number' || type === 'range') {
      if (field.value !== '') setOwn(values, name, field.valueAsNumber);
    } else if (field.value !== '' || !hasOwn(values, name)) setOwn(values, name, field.value);
  }
  return values;
}

// The worker let a held form call run: the form is submitted again, and
// the page's own answer to that submission is the call's.
export function releaseForm(held) {
  releasing = held.form;
  try {
    held.form.requestSubmit(held.submitter ?? undefined);
  } finally {
    releasing = null;
  }
}
