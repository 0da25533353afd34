// A form tool's input schema, derived from its controls as Chromium 156
// derives it for its own declarative WebMCP (docs/classes.md, "Form tools";
// held to the browser's by tests/e2e/differential.test.mjs): one property per
// named, enabled, editable control, radio buttons by group, and a control
// whose name another control shares (not a radio group) left out.
//
// Imports: primordials.js, dom.js.

import {
  arrayFrom, arrayPush, hasOwn, isNaNFn, MapCtor, mapGet, mapHas, mapSet, toNumber,
} from './primordials.js';
import { getAttribute } from './dom.js';

// Input types that are no parameter of the call.
const SKIPPED = ['submit', 'button', 'reset', 'hidden', 'file', 'image'];
// Input types whose value has a shape, as Chromium states it in `format`.
const FORMATS = {
  time: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
  'datetime-local': '^[0-9]{4}-(0[1-9]|1[0-2])-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]$',
  month: '^[0-9]{4}-(0[1-9]|1[0-2])$',
  week: '^[0-9]{4}-W(0[1-9]|[1-4][0-9]|5[0-3])$',
  color: '^#[0-9a-zA-Z]{6}$',
};
const DATE_DESCRIPTION = "Dates MUST be provided in 'YYYY-MM-DD' format.";

// Whether a control is one of the call's parameters.
function isParameter(field) {
  const tag = field.tagName;
  if (tag !== 'INPUT' && tag !== 'SELECT' && tag !== 'TEXTAREA') return false;
  if (!field.name || field.disabled || field.readOnly) return false;
  return tag !== 'INPUT' || !SKIPPED.includes(field.type);
}

// The form's parameters: name -> its controls (several for a radio group
// only), in document order.
export function formParameters(form) {
  const byName = new MapCtor();
  const names = [];
  for (const field of arrayFrom(form.elements)) {
    if (!isParameter(field)) continue;
    const { name } = field;
    if (!mapHas(byName, name)) {
      mapSet(byName, name, []);
      arrayPush(names, name);
    }
    arrayPush(mapGet(byName, name), field);
  }
  const parameters = [];
  for (const name of names) {
    const fields = mapGet(byName, name);
    const radios = fields.every((field) => field.type === 'radio');
    if (fields.length > 1 && !radios) continue;
    arrayPush(parameters, { name, fields, radios });
  }
  return parameters;
}

// A radio button's label names its choice (its `title`), not the group.
function descriptionOf(field) {
  return getAttribute(field, 'toolparamdescription')
    || (field.type === 'radio' ? null : field.labels?.[0]?.textContent?.trim())
    || getAttribute(field, 'aria-description')
    || null;
}

// A choice of a <select>, or a radio button, as Chromium lists it.
function choice(value, title) {
  const item = { type: 'string', const: value };
  if (title) item.title = title;
  return item;
}

function numberSchema(field, range) {
  const property = { type: 'number' };
  const min = getAttribute(field, 'min');
  const max = getAttribute(field, 'max');
  const step = getAttribute(field, 'step');
  if (min !== null && min !== '' && !isNaNFn(toNumber(min))) property.minimum = toNumber(min);
  else if (range) property.minimum = 0;
  if (max !== null && max !== '' && !isNaNFn(toNumber(max))) property.maximum = toNumber(max);
  else if (range) property.maximum = 100;
  if (step === null || step === '') property.multipleOf = 1;
  else if (step !== 'any' && toNumber(step) > 0) property.multipleOf = toNumber(step);
  return property;
}

function controlSchema({ fields, radios }) {
  const field = fields[0];
  if (radios) {
    const values = fields.map((radio) => radio.value);
    return { type: 'string', anyOf: fields.map((radio) => choice(radio.value, radio.labels?.[0]?.textContent?.trim())), enum: values };
  }
  if (field.tagName === 'SELECT') {
    const options = arrayFrom(field.options);
    const one = { type: 'string', anyOf: options.map((option) => choice(option.value, option.label)), enum: options.map((option) => option.value) };
    return field.multiple ? { type: 'array', items: one, uniqueItems: true } : one;
  }
  if (field.tagName === 'TEXTAREA') return { type: 'string' };
  const { type } = field;
  if (type === 'number') return numberSchema(field, false);
  if (type === 'range') return numberSchema(field, true);
  if (type === 'checkbox') return { type: 'boolean' };
  if (type === 'date') return { type: 'string', format: 'date' };
  if (hasOwn(FORMATS, type)) return { type: 'string', format: FORMATS[type] };
  const property = { type: 'string' };
  const pattern = getAttribute(field, 'pattern');
  if (pattern !== null && pattern !== '') property.pattern = pattern;
  return property;
}

// The schema of a form's parameters.
export function formSchema(parameters) {
  const properties = {};
  const required = [];
  for (const parameter of parameters) {
    const property = controlSchema(parameter);
    const description = descriptionOf(parameter.fields[0])
      ?? (parameter.fields[0].type === 'date' ? DATE_DESCRIPTION : null);
    if (description) property.description = description;
    properties[parameter.name] = property;
    if (parameter.fields.some((field) => field.required)) arrayPush(required, parameter.name);
  }
  return { type: 'object', properties, required };
}
