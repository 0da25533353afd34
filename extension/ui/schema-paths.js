// The properties a condition can look at (docs/rules.md, "Conditions on a
// tool's arguments"): those the tool's inputSchema declares in `properties`,
// through nested objects, named by their path (`recipient.email`). Names
// with a `.` in them cannot be named, so they are left out. Each path comes
// with the JSON types its schema names (its items' too, for a list), as the
// core reads them when it checks a condition (src/decisions/rules/conditions.rs).

const TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object', 'null'];
// How deep nested objects are followed, and how many paths are offered: a
// page's schema is bounded when it is checked, and so is this menu.
const DEEPEST = 8;
const MOST_PATHS = 500;

function namedTypes(schema) {
  const named = (s) => (typeof s?.type === 'string' ? [s.type] : Array.isArray(s?.type) ? s.type.filter((t) => typeof t === 'string') : []);
  const types = named(schema);
  if (types.includes('array')) types.push(...named(schema.items));
  return TYPES.filter((t) => types.includes(t));
}

// [{path, types}] in the schema's order, or [] for a schema without properties.
export function schemaPaths(schema) {
  const out = [];
  const walk = (node, prefix, depth) => {
    const properties = node?.properties;
    if (!properties || typeof properties !== 'object' || Array.isArray(properties) || depth > DEEPEST) return;
    for (const [name, property] of Object.entries(properties)) {
      if (out.length >= MOST_PATHS) return;
      if (name.includes('.') || name === '') continue;
      const path = prefix ? `${prefix}.${name}` : name;
      out.push({ path, types: namedTypes(property) });
      if (property && typeof property === 'object') walk(property, path, depth + 1);
    }
  };
  walk(schema, '', 0);
  return out;
}

// Whether an operator (the worker's `rule_words` entry, whose `on` says what
// it takes: "text, number or true/false", "numbers", "text") applies to a
// property of `types`; a property that names no type takes every operator.
export function fits(operator, types) {
  if (!types.some((t) => ['string', 'number', 'integer', 'boolean'].includes(t))) return true;
  return (types.includes('string') && operator.on.includes('text'))
    || ((types.includes('number') || types.includes('integer')) && operator.on.includes('number'))
    || (types.includes('boolean') && operator.on.includes('true/false'));
}

// The kind of value a test on a property of `types` with `op` takes:
// 'number', 'boolean' or 'text'.
export function valueKind(op, types) {
  if (op === 'at_most' || op === 'at_least') return 'number';
  if (op === 'starts_with' || op === 'ends_with' || op === 'matches') return 'text';
  if (types.includes('string')) return 'text';
  if (types.includes('number') || types.includes('integer')) return 'number';
  if (types.includes('boolean')) return 'boolean';
  return 'text';
}
