// Declarative tools: <form toolname tooldescription>, scanned once the parser
// is done (watchForms, which index.js hands to DOMContentLoaded) and watched
// from then on.
//
// Imports: primordials.js, dom.js, registry.js, start.js.

import {
  arrayFrom, arrayPush, doc, hasOwn, MapCtor, mapGet, mapHas, mapKeys, mapSet, mapSize,
  MutationObserverCtor, NAME_RULE, querySelectorAll, queueMicrotaskFn, regexTest, stringify,
} from './primordials.js';
import { DOMExceptionCtor, getAttribute } from './dom.js';
import { add, remove } from './registry.js';
import { start } from './start.js';

let declared = new MapCtor(); // name -> snapshot JSON text, as last reported

function fieldSchema(field) {
  const type = field.type;
  const property = type === 'number' || type === 'range' ? { type: 'number' }
    : type === 'checkbox' ? { type: 'boolean' } : { type: 'string' };
  const description = getAttribute(field, 'toolparamdescription')
    ?? field.labels?.[0]?.textContent?.trim() ?? getAttribute(field, 'aria-description');
  if (description) property.description = description;
  if (field.tagName === 'SELECT') property.enum = arrayFrom(field.options).map((o) => o.value);
  return property;
}

function formSnapshot(form) {
  const properties = {};
  const required = [];
  for (const field of arrayFrom(form.elements)) {
    const { name, type } = field;
    if (!name || ['submit', 'button', 'reset', 'hidden', 'file', 'image'].includes(type) || field.tagName === 'FIELDSET') continue;
    if (hasOwn(properties, name)) continue; // radio groups: one property
    properties[name] = fieldSchema(field);
    if (field.required) arrayPush(required, name);
  }
  const schema = { type: 'object', properties };
  if (required.length) schema.required = required;
  return {
    kind: 'tool',
    path: 'declarative',
    name: getAttribute(form, 'toolname'),
    title: null,
    description: getAttribute(form, 'tooldescription'),
    input_schema: stringify(schema),
    annotations: null,
    stray_hints: [],
    tags: [],
    instructions: null,
    unreadable: null,
  };
}

// Reports what the page's forms declare now, against what was last reported.
function scanForms() {
  scanQueued = false;
  const forms = arrayFrom(querySelectorAll(doc, 'form[toolname][tooldescription]'));
  if ((forms.length === 0 && mapSize(declared) === 0) || !start()) return;
  const now = new MapCtor();
  for (const form of forms) {
    const snapshot = formSnapshot(form);
    if (!regexTest(NAME_RULE, snapshot.name) || !snapshot.description || mapHas(now, snapshot.name)) continue;
    const text = stringify(snapshot);
    mapSet(now, snapshot.name, text);
    if (mapGet(declared, snapshot.name) === text) continue;
    remove('declarative', 'tool', snapshot.name, false);
    add('declarative', {
      snapshot,
      execute: () => { throw new DOMExceptionCtor('A declarative tool runs by submitting its form.', 'NotSupportedError'); },
      idl: null,
    });
  }
  for (const name of arrayFrom(mapKeys(declared))) {
    if (!mapHas(now, name)) remove('declarative', 'tool', name);
  }
  declared = now;
}

let scanQueued = false;
function queueScan() {
  if (scanQueued) return;
  scanQueued = true;
  queueMicrotaskFn(scanForms);
}

// Forms can only appear through added nodes or changed attributes. The
// watch starts once the parser is done, with one scan for the forms it
// made: watching from document_start would queue a mutation record for
// every node the parser inserts, and a scan per batch of them, on every
// page, before its `load`.
export function watchForms() {
  scanForms();
  new MutationObserverCtor((records) => {
    for (const record of records) {
      if (record.type === 'attributes' || record.addedNodes.length || record.removedNodes.length) {
        queueScan();
        return;
      }
    }
  }).observe(doc, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ['toolname', 'tooldescription', 'toolparamdescription', 'name', 'required', 'type'],
  });
}
