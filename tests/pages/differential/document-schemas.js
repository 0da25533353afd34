// document.modelContext and a tool's inputSchema (docs/classes.md, "What a
// page may register"): registerTool takes every schema, those outside the
// subset a draft proposal would allow (`no.*`) among them, and executeTool
// runs every input, those the schema does not accept among them, as
// Chromium 156 does; the test holds Toolgate's outcomes to 156's own.
'use strict';

(() => {
  const { errorOf, runCases } = window.diff;

  const SCHEMAS = {
    // Inside the subset.
    'ok.plain': { type: 'object', properties: { q: { type: 'string', pattern: '^[a-z]+$', minLength: 1 } }, required: ['q'], additionalProperties: false },
    'ok.nested': { type: 'object', properties: { list: { type: 'array', items: { anyOf: [{ type: 'string' }, { enum: [1, 2] }] } } } },
    'ok.propertyNamedFormat': { type: 'object', properties: { format: { type: 'string' }, $ref: { type: 'number' } } },
    'ok.keywordsInData': { type: 'object', enum: [{ format: 'x', $ref: '#' }], default: { format: 'date' } },
    'ok.none': undefined,
    // Outside it.
    'no.format': { type: 'string', format: 'date' },
    'no.nestedFormat': { type: 'object', properties: { when: { type: 'string', format: 'date-time' } } },
    'no.formatInAnyOf': { type: 'object', properties: { v: { anyOf: [{ type: 'number' }, { type: 'string', format: 'email' }] } } },
    'no.ref': { type: 'object', properties: { a: { $ref: '#/$defs/a' } } },
    'no.defs': { type: 'object', $defs: { a: { type: 'string' } } },
    'no.additionalTrue': { type: 'object', additionalProperties: true },
    'no.additionalSchema': { type: 'object', additionalProperties: { type: 'string' } },
    'no.unevaluated': { type: 'object', unevaluatedProperties: false },
    'no.dependentRequired': { type: 'object', dependentRequired: { a: ['b'] } },
    'no.contentEncoding': { type: 'string', contentEncoding: 'base64' },
    'no.badPattern': { type: 'object', properties: { p: { type: 'string', pattern: '[' } } },
    'no.badPatternInItems': { type: 'array', items: { type: 'string', pattern: '(?<' } },
  };

  async function registrations(context) {
    const out = {};
    for (const [id, inputSchema] of Object.entries(SCHEMAS)) {
      const name = `s.${id}`;
      let rejected = null;
      try {
        await context.registerTool({ name, description: `Schema ${id}`, inputSchema, execute: () => 'ran' });
      } catch (error) {
        rejected = errorOf(error);
      }
      const listed = (await context.getTools()).some((tool) => tool.name === name);
      out[id] = { rejected, listed };
    }
    return out;
  }

  async function documentSchemas() {
    const context = document.modelContext;
    const registered = await registrations(context);
    const log = [];
    const calls = [];
    context.addEventListener('toolactivated', (event) => log.push(`toolactivated:${event.toolName}`));
    await context.registerTool({
      name: 'e.strict',
      description: 'A tool with a strict schema',
      inputSchema: {
        type: 'object',
        properties: {
          title: { type: 'string', minLength: 1 },
          n: { type: 'integer', maximum: 3 },
          kind: { enum: ['a', 'b'] },
          code: { type: 'string', pattern: '^[A-Z]{2}$' },
          tags: { type: 'array', items: { type: 'string' } },
          when: { type: 'string', format: 'date' },
        },
        required: ['title'],
        additionalProperties: false,
      },
      execute(input) {
        calls.push(JSON.stringify(input));
        return 'ran';
      },
    });
    const [strict] = (await context.getTools()).filter((tool) => tool.name === 'e.strict');
    const INPUTS = {
      valid: { title: 'x' },
      validFull: { title: 'x', n: 3, kind: 'b', code: 'AB', tags: ['t'], when: '2026-12-24' },
      notADate: { title: 'x', when: 'next Tuesday' },
      missingRequired: {},
      wrongType: { title: 5 },
      overMaximum: { title: 'x', n: 4 },
      notInteger: { title: 'x', n: 1.5 },
      notInEnum: { title: 'x', kind: 'c' },
      patternMismatch: { title: 'x', code: 'abc' },
      tooShort: { title: '' },
      unknownProperty: { title: 'x', extra: 1 },
      badItem: { title: 'x', tags: ['t', 7] },
    };
    const executed = await runCases(
      Object.entries(INPUTS).map(([id, input]) => [id, () => context.executeTool(strict, input)]),
      log,
      calls,
      0,
    );
    return { registered, executed };
  }

  Object.assign(window.diff.groups, { documentSchemas });
})();
