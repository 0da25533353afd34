// An agent's arguments checked against the tool's inputSchema, for the core
// (src/page/schema.rs calls it, through src/wasm.rs, before any card):
// `@cfworker/json-schema`, a well-kept validator that runs without `eval`
// (an MV3 worker forbids it), draft 2020-12 with `format` checked, and
// `pattern` read by JavaScript's own RegExp, as the page's code reads it.
// Each problem is worded as docs/agents.md says ("arguments.title: is
// required"), as the core words them natively.
import { Validator } from '@cfworker/json-schema';

// Compiled validators by schema text: most calls are of tools called before.
const compiled = new Map();
const KEEP = 200;
function validatorFor(schemaText) {
  let validator = compiled.get(schemaText);
  if (!validator) {
    validator = new Validator(JSON.parse(schemaText), '2020-12', false);
    if (compiled.size >= KEEP) compiled.delete(compiled.keys().next().value);
    compiled.set(schemaText, validator);
  }
  return validator;
}

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
// array of strings). A schema the validator cannot read checks nothing.
export function checkArguments(schemaText, argumentsText) {
  const schema = JSON.parse(schemaText);
  const instance = JSON.parse(argumentsText);
  let errors;
  try {
    ({ errors } = validatorFor(schemaText).validate(instance));
  } catch {
    return '[]';
  }
  // An anyOf / oneOf says "none of the allowed forms" once, for all of its branches.
  const forms = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => `${e.keywordLocation}/`);
  const problems = [];
  for (const error of errors) {
    const { keyword, instanceLocation, keywordLocation } = error;
    if (forms.some((prefix) => keywordLocation.startsWith(prefix))) continue;
    const where = place(instance, instanceLocation);
    switch (keyword) {
      // Wrappers: their branches say what is wrong.
      case 'properties': case 'items': case 'prefixItems': case '$ref': case 'allOf':
      case 'additionalItems': case 'unevaluatedProperties': case 'unevaluatedItems': case 'dependentSchemas':
      case 'if': case 'then': case 'else': case 'contains': case 'propertyNames': case 'patternProperties':
        break;
      // A `false` schema: an unknown argument (said by additionalProperties), or one not allowed.
      case 'false':
        if (!keywordLocation.includes('/additionalProperties') && !errors.some((e) => e.keyword === 'additionalProperties')) {
          problems.push(`${where}: is not allowed`);
        }
        break;
      case 'required': {
        const name = /"(.*)"/.exec(error.error)?.[1];
        problems.push(`${where}.${name}: is required`);
        break;
      }
      case 'additionalProperties': {
        const name = /"(.*)"/.exec(error.error)?.[1];
        problems.push(`${where}.${name}: is not a known argument`);
        break;
      }
      case 'type': {
        const wanted = [at(schema, keywordLocation)].flat();
        // A type that names no type is a broken schema: it checks nothing.
        if (!wanted.every((name) => TYPES.includes(name))) break;
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
