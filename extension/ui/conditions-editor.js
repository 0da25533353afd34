// A tool's conditions on its arguments, on the set-apart page (docs/rules.md,
// "Conditions on a tool's arguments"): the conditions in words, and an
// editor of them, opened by its button. Each condition has one to
// MOST_TESTS tests (a property the tool's schema declares, an operator
// offered for its type, a value) and a level; saving sends the whole list
// as one change, which the worker's core checks. Refused, its words are
// shown beside the editor, and what the person typed stays as it was.
import { el, pageText } from './dom.js';
import { fits, valueKind } from './condition-types.js';

// The core's bounds (src/decisions/rules/conditions.rs), which it checks
// again on every change: the editor offers no more than these.
const MOST_CONDITIONS = 5;
const MOST_TESTS = 5;

let editors = 0;

// A value as the core's words show it: text in quotes, lists joined.
const shown = (value) => (Array.isArray(value) ? value.map(shown).join(', ')
  : typeof value === 'string' ? `\u201c${value}\u201d` : String(value));

// "Allowed when amount is at most 20", with the worker's operator labels;
// each path as `pathShown` gives it (the page named its properties).
function conditionWords(condition, words, pathShown) {
  const label = (key) => words.operators.find((op) => op.key === key)?.label ?? key;
  const level = words.levels.find(({ key }) => key === condition.level)?.label ?? condition.level;
  return `${level} when ${condition.when.map((t) => `${pathShown(t.path)} ${label(t.op)} ${shown(t.value)}`).join(' and ')}`;
}

// A stored test's value as the person types it.
const typed = (value) => (Array.isArray(value) ? value.join(', ') : String(value));

// The test's value as the change sends it, or a reason it cannot be read.
function valueOf(test, types) {
  const kind = valueKind(test.op, types);
  const one = (text) => {
    if (kind === 'number') {
      const n = Number(text);
      return text.trim() !== '' && Number.isFinite(n) ? { value: n } : { why: `needs a number; “${text}” is not one` };
    }
    if (kind === 'boolean') return text === 'true' || text === 'false' ? { value: text === 'true' } : { why: 'needs true or false' };
    return { value: text };
  };
  if (test.op !== 'is_one_of') return one(test.value);
  const parts = test.value.split(',').map((part) => part.trim()).filter((part) => part !== '');
  if (parts.length === 0) return { why: 'needs at least one value' };
  const values = parts.map(one);
  const bad = values.find((v) => 'why' in v);
  return bad ?? { value: values.map((v) => v.value) };
}

// The editor of a tool's conditions (`nameShown`: its name as the core shows
// it; `properties`: what its schema declares, `[{path, shown, types}]` as the
// worker's `tool_properties` gives them, or null when no open tab publishes
// it), with `conditions` as stored. `save(conditions)` resolves to the reason a
// change was refused, or null once saved. `allowedIsAdmins`: Allowed is the
// administrator's alone for this tool's kind. `pathsShown`: a Map from each
// path the stored conditions test to its text as the core shows it, for
// those no open tab's schema declares now.
export function conditionsEditor({ nameShown, properties, conditions, words, allowedIsAdmins, save, pathsShown = new Map() }) {
  const id = `conditions-${(editors += 1)}`;
  let paths = properties ?? [];
  const typesOf = (path) => paths.find((p) => p.path === path)?.types ?? [];
  // A path as the core shows it (its hidden characters made visible, cut).
  const pathShown = (path) => paths.find((p) => p.path === path)?.shown ?? pathsShown.get(path) ?? path;
  const levels = words.levels.filter(({ key }) => key !== 'off');
  let stored = conditions;
  let draft = [];
  const reset = () => {
    draft = stored.map((c) => ({ level: c.level, when: c.when.map((t) => ({ path: t.path, op: t.op, value: typed(t.value) })) }));
  };
  reset();

  const list = el('ul', { class: 'condition-list' });
  const toggle = el('button', { type: 'button', id: `${id}-toggle`, 'aria-expanded': 'false', 'aria-controls': `${id}-editor` });
  const error = el('p', { id: `${id}-error`, class: 'error', role: 'alert' });
  const status = el('p', { class: 'saved', role: 'status' });
  const body = el('div', { class: 'condition-fields' });
  const editor = el('div', { id: `${id}-editor`, class: 'condition-editor', hidden: true }, [body]);

  function showStored() {
    list.replaceChildren(...(stored.length
      ? stored.map((c) => el('li', { text: conditionWords(c, words, pathShown) }))
      : [el('li', { class: 'none', text: 'No conditions: the tool\'s own level holds for every call.' })]));
    toggle.textContent = stored.length ? 'Edit conditions' : 'Add conditions';
  }

  const operatorsFor = (path) => words.operators.filter((op) => fits(op, typesOf(path)));

  // One test's row: property, operator, value, and a button to remove it.
  function testRow(test, c, t, condition) {
    const where = ` of test ${t + 1}, condition ${c + 1}`;
    const hidden = (text) => el('span', { class: 'visually-hidden', text });
    const pathMenu = el('select', {}, [
      ...(paths.some((p) => p.path === test.path) ? [] : [el('option', { value: test.path, text: test.path || 'Choose a property', selected: true, disabled: true })]),
      ...paths.map((p) => el('option', { value: p.path, text: p.shown, selected: p.path === test.path })),
    ]);
    const opMenu = el('select', {});
    const valueBox = el('span', { class: 'value' });
    const fillOps = () => {
      const offered = operatorsFor(test.path);
      if (!offered.some((op) => op.key === test.op)) test.op = offered[0]?.key ?? test.op;
      opMenu.replaceChildren(...offered.map((op) => el('option', { value: op.key, text: op.label, selected: op.key === test.op })));
    };
    const fillValue = () => {
      const kind = valueKind(test.op, typesOf(test.path));
      const label = test.op === 'is_one_of' ? 'Values, separated by commas' : 'Value';
      let input;
      if (kind === 'boolean' && test.op === 'is') {
        if (test.value !== 'true' && test.value !== 'false') test.value = 'true';
        input = el('select', {}, ['true', 'false'].map((v) => el('option', { value: v, text: v, selected: test.value === v })));
        input.addEventListener('change', () => { test.value = input.value; });
      } else {
        input = el('input', { type: 'text', inputmode: kind === 'number' && test.op !== 'is_one_of' ? 'decimal' : null, autocomplete: 'off', value: test.value });
        input.addEventListener('input', () => { test.value = input.value; });
      }
      valueBox.replaceChildren(el('label', {}, [label, hidden(where), ' ', input]));
    };
    pathMenu.addEventListener('change', () => { test.path = pathMenu.value; fillOps(); fillValue(); });
    opMenu.addEventListener('change', () => { test.op = opMenu.value; fillValue(); });
    fillOps();
    fillValue();
    const remove = el('button', { type: 'button', text: 'Remove test', 'aria-label': `Remove test ${t + 1} of condition ${c + 1}` });
    remove.addEventListener('click', () => {
      condition.when.splice(t, 1);
      if (condition.when.length === 0) draft.splice(c, 1);
      build(condition.when.length ? `${id}-c${c}-add` : `${id}-add`);
    });
    return el('div', { class: 'test', role: 'group', 'aria-label': `Test ${t + 1} of condition ${c + 1}` }, [
      el('label', {}, ['Property', hidden(where), ' ', pathMenu]),
      ' ',
      el('label', {}, ['Operator', hidden(where), ' ', opMenu]),
      ' ',
      valueBox,
      ' ',
      remove,
    ]);
  }

  const newTest = () => {
    const path = paths[0]?.path ?? '';
    return { path, op: operatorsFor(path)[0]?.key ?? 'is', value: '' };
  };

  // Builds the fields from the draft again, then focuses `focusId`.
  function build(focusId = null) {
    const fieldsets = draft.map((condition, c) => {
      const addTest = el('button', { type: 'button', id: `${id}-c${c}-add`, text: 'Add a test', disabled: condition.when.length >= MOST_TESTS || paths.length === 0 });
      addTest.addEventListener('click', () => {
        condition.when.push(newTest());
        build(`${id}-c${c}-t${condition.when.length - 1}`);
      });
      const level = el('select', {}, levels.map(({ key, label }) => el('option', {
        value: key, text: label, selected: condition.level === key, disabled: allowedIsAdmins && key === 'allowed',
      })));
      level.addEventListener('change', () => { condition.level = level.value; });
      const remove = el('button', { type: 'button', text: `Remove condition ${c + 1}` });
      remove.addEventListener('click', () => { draft.splice(c, 1); build(`${id}-add`); });
      return el('fieldset', { class: 'condition' }, [
        el('legend', { text: `Condition ${c + 1}: when every test is true` }),
        ...condition.when.map((test, t) => {
          const row = testRow(test, c, t, condition);
          row.querySelector('select').id = `${id}-c${c}-t${t}`;
          return row;
        }),
        el('p', { class: 'condition-actions' }, [
          addTest, ' ',
          el('label', {}, ['Level', el('span', { class: 'visually-hidden', text: ` of condition ${c + 1}` }), ' ', level]),
          ' ', remove,
        ]),
      ]);
    });
    const add = el('button', { type: 'button', id: `${id}-add`, text: 'Add a condition', disabled: draft.length >= MOST_CONDITIONS || paths.length === 0 });
    add.addEventListener('click', () => {
      draft.push({ level: levels.find(({ key }) => !(allowedIsAdmins && key === 'allowed'))?.key ?? 'ask_first', when: [newTest()] });
      build(`${id}-c${draft.length - 1}-t0`);
    });
    const saveButton = el('button', { type: 'button', id: `${id}-save`, text: 'Save conditions' });
    saveButton.addEventListener('click', onSave);
    const cancel = el('button', { type: 'button', text: 'Cancel' });
    cancel.addEventListener('click', () => {
      reset();
      error.textContent = '';
      setOpen(false);
      toggle.focus();
    });
    const notes = [];
    if (!properties) notes.push(el('p', { class: 'hint' }, [pageText(nameShown, 'code'), ' is not published with a schema in an open tab: open a tab of the site that publishes it to choose its properties. Its conditions can still be removed.']));
    else if (paths.length === 0) notes.push(el('p', { class: 'hint' }, ['The schema of ', pageText(nameShown, 'code'), ' declares no properties, so it can hold no conditions.']));
    body.replaceChildren(
      ...notes,
      ...fieldsets,
      el('p', { class: 'condition-actions' }, [add, ' ', saveButton, ' ', cancel]),
    );
    const target = focusId && document.getElementById(focusId);
    if (target && !target.disabled) target.focus();
    else if (focusId) add.disabled ? saveButton.focus() : add.focus();
  }

  async function onSave() {
    status.textContent = '';
    const changed = [];
    for (const [c, condition] of draft.entries()) {
      const when = [];
      for (const [t, test] of condition.when.entries()) {
        const read = valueOf(test, typesOf(test.path));
        if ('why' in read) {
          error.textContent = `Test ${t + 1} of condition ${c + 1} (${pathShown(test.path)}) ${read.why}. Nothing was saved.`;
          return;
        }
        when.push({ path: test.path, op: test.op, value: read.value });
      }
      changed.push({ when, level: condition.level });
    }
    const refused = await save(changed);
    error.textContent = refused ?? '';
    if (refused === null) {
      stored = changed;
      showStored();
      status.textContent = `Saved: ${changed.length ? changed.map((c) => conditionWords(c, words, pathShown)).join('; ') : 'no conditions'}.`;
    }
  }

  function setOpen(open) {
    toggle.setAttribute('aria-expanded', String(open));
    editor.hidden = !open;
    if (open) build();
  }
  toggle.addEventListener('click', () => setOpen(toggle.getAttribute('aria-expanded') !== 'true'));

  showStored();
  const headingId = `${id}-heading`;
  const node = el('div', { class: 'conditions', role: 'group', 'aria-labelledby': headingId }, [
    el('span', { id: headingId, class: 'conditions-heading' }, ['Conditions on the arguments of ', pageText(nameShown, 'code')]),
    list,
    toggle,
    editor,
    error,
    status,
  ]);
  return {
    node,
    // The conditions as stored now (after another change, or a worker's
    // answer); an editor left open keeps what the person typed.
    update(conditionsNow, propertiesNow) {
      stored = conditionsNow;
      if (propertiesNow) {
        properties = propertiesNow;
        paths = propertiesNow;
      }
      showStored();
      if (editor.hidden) reset();
    },
  };
}
