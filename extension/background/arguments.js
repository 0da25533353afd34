// An agent's arguments checked against the tool's inputSchema, for the core
// (src/page/schema.rs calls checkArguments, through src/wasm.rs, before any
// card), each problem worded as docs/agents.md says ("arguments.title: is
// required"), as the core words them natively. (A page's own
// document.modelContext.executeTool is not checked: docs/classes.md.)
// `@cfworker/json-schema` is well kept and runs without `eval`, which an MV3
// worker forbids: draft 2020-12, with `format` an annotation, as that draft
// has it by default (withoutFormats: the validator itself always checks
// it, and a page's schema with `format: "email"` must not refuse what the
// browser would let through; docs/agents.md). Its `pattern` and
// `patternProperties` run on the core's linear-time engine, not on
// JavaScript's backtracking RegExp (withLinearPatterns below).
import { Validator } from '@cfworker/json-schema';
import { LinearPattern } from '../../pkg/toolgate.js';

// Compiled validators by schema text: most calls are of tools called before.
const compiled = new Map();
const KEEP = 200;

// Keywords whose value is a schema, a list of schemas, or a map of them.
const SCHEMA = ['not', 'if', 'then', 'else', 'contains', 'propertyNames', 'additionalProperties', 'additionalItems',
  'unevaluatedProperties', 'unevaluatedItems', 'contentSchema', 'items'];
const SCHEMAS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

// `schema` without its `format` keywords; nothing else changes, so every
// `$ref` still points where it did. Data (`enum`, `const`, `default`) is left as it is.
function withoutFormats(schema) {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const copy = { ...schema };
  if (typeof copy.format === 'string') delete copy.format;
  for (const key of SCHEMA) if (key in copy && !Array.isArray(copy[key])) copy[key] = withoutFormats(copy[key]);
  for (const key of SCHEMAS) if (Array.isArray(copy[key])) copy[key] = copy[key].map(withoutFormats);
  for (const key of SCHEMA_MAPS) {
    if (copy[key] !== null && typeof copy[key] === 'object' && !Array.isArray(copy[key])) {
      copy[key] = Object.fromEntries(Object.entries(copy[key]).map(([name, sub]) => [name, withoutFormats(sub)]));
    }
  }
  return copy;
}

// Whether the validator can build a RegExp for `schema`: it does for a
// `pattern` or a `patternProperties` keyword only, so only where some object
// in the schema has such a key. Its data (`enum`, `const`, `default`) is
// looked through too: a superset, never a pattern missed.
function namesPatterns(schema) {
  const left = [schema];
  while (left.length) {
    const node = left.pop();
    if (node === null || typeof node !== 'object') continue;
    if (!Array.isArray(node) && (Object.hasOwn(node, 'pattern') || Object.hasOwn(node, 'patternProperties'))) return true;
    for (const value of Object.values(node)) left.push(value);
  }
  return false;
}

// The validator of `schemaText` (JSON text), and whether its schema has
// patterns. Throws where the validator cannot read the schema.
function validatorFor(schemaText) {
  let entry = compiled.get(schemaText);
  if (!entry) {
    const schema = JSON.parse(schemaText);
    entry = { validator: new Validator(withoutFormats(schema), '2020-12', false), patterns: namesPatterns(schema) };
    if (compiled.size >= KEEP) compiled.delete(compiled.keys().next().value);
    compiled.set(schemaText, entry);
  }
  return entry;
}

// Runs `validate` while `RegExp` is the core's LinearPattern, which matches
// in time linear in the text (src/page/schema/pattern.rs): the validator
// builds each pattern with `new RegExp(source, 'u')` and calls only its
// `test`, so on JavaScript's own engine one page's `^(a+)+$` would hold the
// worker, and every agent's call, for as long as it liked. Each pattern is
// the one the core compiled when it planned the check (ARCHITECTURE.md,
// "Budgets"), taken once per check however many values it is tested on.
// Validation is synchronous, so nothing else runs while the name is changed.
// A pattern the core did not compile throws out of `validate`, which refuses
// the call.
function withLinearPatterns(validate) {
  const builtin = globalThis.RegExp;
  const made = new Map();
  globalThis.RegExp = function linearPattern(source) {
    const text = String(source);
    if (!made.has(text)) made.set(text, new LinearPattern(text));
    return made.get(text);
  };
  try {
    return validate();
  } finally {
    globalThis.RegExp = builtin;
    for (const pattern of made.values()) pattern.free();
  }
}

// Keywords whose error only says that one of their subschemas failed: the
// subschema's own error, reported beside it, says what is wrong.
const WRAPPERS = [
  'properties', 'items', 'prefixItems', '$ref', 'allOf', 'additionalItems', 'unevaluatedProperties',
  'unevaluatedItems', 'dependentSchemas', 'if', 'then', 'else', 'contains', 'propertyNames',
  'patternProperties',
];

// The name in a required / additionalProperties error ('… property "a" …').
const namedProperty = (error) => /"(.*)"/.exec(error.error)?.[1];

const TYPES = ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object'];
const typeName = (value) => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a number';
  return { boolean: 'a boolean', string: 'a string', object: 'an object' }[typeof value];
};
const article = (name) => (['object', 'array', 'integer'].includes(name) ? `an ${name}` : name === 'null' ? 'null' : `a ${name}`);

// A JSON pointer's segments ('#/a/0' -> ['a', '0']).
const segments = (pointer) => pointer.replace(/^#\/?/, '').split('/').filter((s) => s !== '')
  .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'));
const at = (value, pointer) => segments(pointer).reduce((node, key) => (node == null ? undefined : node[key]), value);

// Where a problem is: `arguments`, then each property name or `[index]`.
function place(instance, pointer) {
  let text = 'arguments';
  let node = instance;
  for (const key of segments(pointer)) {
    text += Array.isArray(node) ? `[${key}]` : `.${key}`;
    node = node?.[key];
  }
  return text;
}

// The problems of `argumentsText` against `schemaText`, as JSON text (an
// array of strings), or `{"failed": why}` when the validator threw: the core
// then refuses the call, never runs it unchecked (src/page/schema.rs). The
// core has counted the check first and refused it past its budget, so what
// runs here ends within it.
export function checkArguments(schemaText, argumentsText) {
  const instance = JSON.parse(argumentsText);
  let errors;
  try {
    const { validator, patterns } = validatorFor(schemaText);
    // A schema with no pattern builds no RegExp: nothing to swap.
    ({ errors } = patterns ? withLinearPatterns(() => validator.validate(instance)) : validator.validate(instance));
  } catch (error) {
    return JSON.stringify({ failed: String(error).slice(0, 200) });
  }
  // Arguments that pass, as most do, need no words.
  if (errors.length === 0) return '[]';
  const schema = JSON.parse(schemaText);
  // An anyOf / oneOf says "none of the allowed forms" once, for all of its branches.
  const forms = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => `${e.keywordLocation}/`);
  const problems = [];
  for (const error of errors) {
    // The core lists 20 (PROBLEMS_SHOWN, src/page/schema.rs) and says there
    // are more: wording thousands is most of what a flood of wrong values costs.
    if (problems.length > 20) break;
    const { keyword, instanceLocation, keywordLocation } = error;
    if (forms.some((prefix) => keywordLocation.startsWith(prefix))) continue;
    // Wrappers: their branches say what is wrong.
    if (WRAPPERS.includes(keyword)) continue;
    const where = place(instance, instanceLocation);
    switch (keyword) {
      // A `false` schema: an unknown argument (said by additionalProperties), or one not allowed.
      case 'false':
        if (!keywordLocation.includes('/additionalProperties') && !errors.some((e) => e.keyword === 'additionalProperties')) {
          problems.push(`${where}: is not allowed`);
        }
        break;
      case 'required':
        problems.push(`${where}.${namedProperty(error)}: is required`);
        break;
      case 'additionalProperties':
        problems.push(`${where}.${namedProperty(error)}: is not a known argument`);
        break;
      case 'type': {
        const wanted = [at(schema, keywordLocation)].flat();
        // A type that names no type is a broken schema, which the core
        // refuses before the validator runs (src/page/schema/broken.rs); if
        // one got here, nothing was checked, and the call is refused.
        if (!wanted.every((name) => TYPES.includes(name))) return JSON.stringify({ failed: 'its schema names a type that does not exist' });
        problems.push(`${where}: expected ${wanted.map(article).join(' or ')}, got ${typeName(at(instance, instanceLocation))}`);
        break;
      }
      case 'anyOf': case 'oneOf':
        problems.push(`${where}: matches none of the allowed forms`);
        break;
      default:
        problems.push(`${where}: ${error.error}`);
    }
  }
  return JSON.stringify(problems);
}
