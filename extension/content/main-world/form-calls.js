// Running a form tool (a <form toolname>) for a caller: an agent through
// Toolgate, or the page's own executeTool. As the draft's declarative API
// does it (docs/classes.md, "Form tools"): the controls are filled from the
// input, each with `input` and `change` as a person's edit fires them, the
// form is checked as the browser checks it, `toolactivated` fires, and the
// form is submitted (`toolautosubmit`), or the call waits for the person
// to submit it. The page answers through the SubmitEvent's
// `respondWith(promise)`; a submission it does not answer navigates, and
// the call gives null. Aborting the call, resetting the form, or removing
// or changing its declaration cancels it.
//
// Where the browser runs form tools itself (Chromium 156's native WebMCP),
// the browser's own executeTool does all of this, with its
// `:tool-form-active` / `:tool-submit-active` states, and Toolgate hands the
// call to it (native-forms.js): this module is the polyfill.
//
// Imports: primordials.js, text.js, dom.js, events.js, outcome.js,
// execute-tool.js, form-schema.js.

import {
  arrayFrom, arrayPush, defineProperty, dispatch, hasOwn, isArray, listen, MapCtor, mapDelete, mapGet, mapHas,
  mapSet, PromiseCtor, promiseThen, rejected, resolved, toString, unlisten,
} from './primordials.js';
import { describe } from './text.js';
import { DOMExceptionCtor, EventCtor, getAttribute, signalAborted, signalReason } from './dom.js';
import { fireToolEvent, queueTask } from './events.js';
import { NAVIGATED } from './outcome.js';
import { unknownError } from './execute-tool.js';
import { formParameters } from './form-schema.js';

const calls = new MapCtor(); // form -> the call waiting on its submission

const invalidValue = (name, value) => unknownError(`Invalid value ${typeof value === 'string' ? `"${value}"` : describe(value)} for parameter ${name}`);

// What setting one parameter from the input does: a function that sets
// its control(s) and gives the control edited, or null when it already
// held the value, or `{ unchanged }` for a checkbox or radio button that
// did (Chromium 156 fires `change` alone at it). Throws, changing nothing,
// when the control cannot take the value.
function setterFor({ name, fields, radios }, value) {
  const field = fields[0];
  if (radios) {
    const radio = fields.find((candidate) => candidate.value === value);
    if (typeof value !== 'string' || !radio) throw invalidValue(name, value);
    return () => (radio.checked ? { unchanged: radio } : ((radio.checked = true), radio));
  }
  if (field.type === 'checkbox') {
    if (typeof value !== 'boolean') throw invalidValue(name, value);
    return () => (field.checked === value ? { unchanged: field } : ((field.checked = value), field));
  }
  if (field.tagName === 'SELECT') {
    const options = arrayFrom(field.options);
    const wanted = field.multiple ? value : [value];
    if (!isArray(wanted) || wanted.some((one) => typeof one !== 'string' || !options.some((option) => option.value === one))) {
      throw invalidValue(name, value);
    }
    return () => {
      let changed = false;
      for (const option of options) {
        const selected = wanted.includes(option.value);
        if (option.selected !== selected) {
          option.selected = selected;
          changed = true;
        }
      }
      return changed ? field : null;
    };
  }
  if (typeof value !== 'string' && typeof value !== 'number') throw invalidValue(name, value);
  return () => {
    const text = toString(value);
    if (field.value === text) return null;
    field.value = text;
    return field;
  };
}

// Fills the form from the input, as Chromium does: every value checked
// first, then a control at a time, each edit followed by its `input` and
// `change` events; a control that already held its value gets none, but
// a checkbox or radio button `change` alone, as in Chromium 156.
function fill(parameters, input) {
  const setters = [];
  for (const parameter of parameters) {
    if (hasOwn(input, parameter.name)) arrayPush(setters, setterFor(parameter, input[parameter.name]));
  }
  for (const set of setters) {
    const field = set();
    if (field === null) continue;
    if (field.unchanged) {
      dispatch(field.unchanged, new EventCtor('change', { bubbles: true }));
      continue;
    }
    dispatch(field, new EventCtor('input', { bubbles: true, composed: true }));
    dispatch(field, new EventCtor('change', { bubbles: true }));
  }
}

// The form's constraints, checked as the browser checks them before it submits.
function checkConstraints(parameters) {
  let problems = '';
  for (const { name, fields } of parameters) {
    const invalid = fields.find((field) => !field.validity.valid);
    if (invalid) problems += `${name}: ${invalid.validationMessage}. `;
  }
  if (problems) throw unknownError(`Form validation failed: ${problems}`);
}

// The button the form's implicit submission would use, if any.
function defaultButton(form) {
  return arrayFrom(form.elements).find((field) => (field.tagName === 'BUTTON' || field.tagName === 'INPUT')
    && (field.type === 'submit' || field.type === 'image')) ?? null;
}

// Runs a form tool: settles with the page's answer, or NAVIGATED.
export function runFormCall(form, toolName, input, signal) {
  if (mapHas(calls, form)) return rejected(unknownError(`${toolName} is already waiting for its form to be submitted`));
  return new PromiseCtor((resolve, reject) => {
    const call = {
      toolName,
      responded: false,
      finish(settle, value) {
        if (mapGet(calls, form) !== call) return;
        mapDelete(calls, form);
        unlisten(form, 'reset', onReset);
        settle(value);
      },
      resolve: (value) => call.finish(resolve, value),
      reject: (error) => call.finish(reject, error),
    };
    const onReset = () => call.reject(unknownError('Tool execution cancelled by a form reset'));
    // toolactivated fires as in Chromium: once a submission was made, or the
    // form waits for the person, or the call failed.
    const autosubmit = getAttribute(form, 'toolautosubmit') !== null;
    try {
      const parameters = formParameters(form);
      fill(parameters, input);
      if (autosubmit) checkConstraints(parameters);
    } catch (error) {
      fireToolEvent('toolactivated', toolName);
      throw error;
    }
    mapSet(calls, form, call);
    listen(form, 'reset', onReset);
    if (signal) {
      if (signalAborted(signal)) call.reject(signalReason(signal));
      else {
        listen(signal, 'abort', () => {
          if (mapGet(calls, form) !== call) return;
          call.reject(signalReason(signal));
          queueTask(() => fireToolEvent('toolcancel', toolName), true);
        }, { once: true });
      }
    }
    if (autosubmit && mapGet(calls, form) === call) form.requestSubmit(defaultButton(form) ?? undefined);
    fireToolEvent('toolactivated', toolName);
  });
}

// The form's declaration went away or changed: its call is cancelled.
export function cancelFormCall(form) {
  mapGet(calls, form)?.reject(unknownError('Tool execution cancelled, since tool definition was updated'));
}

// A submission of a form whose call waits (index.js's capturing `submit`
// listener on window, before any page script, hands every one here): the
// page sees `agentInvoked` and can answer with `respondWith(promise)`,
// after `preventDefault()`, during the event. Unanswered, the submission
// goes on and navigates, and the call gives null.
export function takeFormSubmit(event) {
  const form = event.target;
  const call = mapGet(calls, form);
  if (!call || event.type !== 'submit') return false;
  defineProperty(event, 'agentInvoked', { value: true, configurable: true, enumerable: true });
  defineProperty(event, 'respondWith', {
    configurable: true,
    value(answer) {
      if (!event.defaultPrevented) {
        throw new DOMExceptionCtor("Failed to execute 'respondWith' on 'SubmitEvent': preventDefault() must be called first.", 'InvalidStateError');
      }
      if (call.responded) {
        throw new DOMExceptionCtor("Failed to execute 'respondWith' on 'SubmitEvent': respondWith() was already called.", 'InvalidStateError');
      }
      call.responded = true;
      // Settled in a task after the answer's: a declaration removed or
      // changed meanwhile (the listener removes the form after answering)
      // has cancelled the call by then, as the draft cancels it.
      promiseThen(resolved(answer), (value) => queueTask(() => call.resolve(value)),
        (error) => queueTask(() => call.reject(error)));
    },
  });
  // Once every listener has had the event.
  queueTask(() => {
    if (!call.responded) call.resolve(NAVIGATED);
  });
  return true;
}
