// What a condition's test on a property takes, by the JSON types its schema
// names (the worker's `tool_properties` answer, from the core: docs/rules.md,
// "Setting conditions and limits"): the operators offered, and the kind of
// value typed, as the core checks them (src/decisions/rules/conditions.rs).

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
