// Declarative tools: <form toolname tooldescription>, scanned once the parser
// is done (watchForms, which index.js hands to DOMContentLoaded) and watched
// from then on.
//
// Imports: primordials.js, json.js, dom.js, registry.js, start.js, form-schema.js,
// form-calls.js, native-forms.js.

import {
  arrayOf, doc, MapCtor, mapGet, mapHas, mapKeys, mapSet, mapSize, MutationObserverCtor,
  NAME_RULE, querySelectorAll, queueMicrotaskFn, regexTest,
} from './primordials.js';
import { jsonText } from './json.js';
import { getAttribute, toolsAllowed } from './dom.js';
import { add, remove } from './registry.js';
import { start } from './start.js';
import { formParameters, formSchema } from './form-schema.js';
import { cancelFormCall, runFormCall } from './form-calls.js';
import { nativeFormCall } from './native-forms.js';

let declared = new MapCtor(); // name -> snapshot JSON text, as last reported

function formSnapshot(form) {
  return {
    kind: 'tool',
    path: 'declarative',
    name: getAttribute(form, 'toolname'),
    title: null,
    description: getAttribute(form, 'tooldescription'),
    input_schema: jsonText(formSchema(formParameters(form))),
    annotations: null,
    stray_hints: [],
    tags: [],
    instructions: null,
    unreadable: null,
  };
}

// A form tool's `execute`: the browser's own run where it has one
// (native-forms.js), else Toolgate's (form-calls.js).
function formExecute(form, name) {
  return (input, options) => nativeFormCall(form, name, input, options?.signal)
    ?? runFormCall(form, name, input, options?.signal);
}

// Reports what the page's forms declare now, against what was last reported.
function scanForms() {
  scanQueued = false;
  // By index: Array.from and for...of would run iterators a page can replace.
  const forms = querySelectorAll(doc, 'form[toolname][tooldescription]');
  if ((forms.length === 0 && mapSize(declared) === 0) || !start() || !toolsAllowed) return;
  const now = new MapCtor();
  for (let i = 0; i < forms.length; i++) {
    const form = forms[i];
    const snapshot = formSnapshot(form);
    if (!regexTest(NAME_RULE, snapshot.name) || !snapshot.description || mapHas(now, snapshot.name)) continue;
    const text = jsonText(snapshot);
    mapSet(now, snapshot.name, text);
    if (mapGet(declared, snapshot.name) === text) continue;
    remove('declarative', 'tool', snapshot.name, false);
    const entry = add('declarative', { snapshot, execute: formExecute(form, snapshot.name), idl: null });
    entry.onRemove = () => cancelFormCall(form);
  }
  const names = arrayOf(mapKeys(declared));
  for (let i = 0; i < names.length; i++) {
    if (!mapHas(now, names[i])) remove('declarative', 'tool', names[i]);
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
    for (let i = 0; i < records.length; i++) {
      const record = records[i];
      if (record.type === 'attributes' || record.addedNodes.length || record.removedNodes.length) {
        queueScan();
        return;
      }
    }
  }).observe(doc, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ['toolname', 'tooldescription', 'toolparamdescription', 'name', 'required', 'type',
      'disabled', 'readonly', 'pattern', 'min', 'max', 'step', 'multiple', 'value', 'aria-description'],
  });
}
