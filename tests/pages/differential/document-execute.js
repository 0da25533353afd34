// document.modelContext.executeTool(tool, input, {signal}), the draft's and
// Chromium 156's: the results, the rejections, how `execute` is called, the
// caller's signal, and where toolactivated and toolcancel fire; the tool as
// a RegisteredTool dictionary (its required members, its origin), and the
// input as an object whose JSON the tool gets (arrays too; not text).
'use strict';

(() => {
  const { runCases } = window.diff;

  async function documentExecute() {
    const context = document.modelContext;
    const log = [];
    const calls = [];
    for (const [target, where] of [[window, 'window'], [context, 'modelContext']]) {
      for (const type of ['toolactivated', 'toolcancel']) {
        target.addEventListener(type, (event) => log.push(`${where}:${type}:${event.toolName}:${event.bubbles}:${event.cancelable}`));
      }
    }
    window.addEventListener('error', (event) => {
      log.push(`error:${event.message}`);
      event.preventDefault();
    });
    const RESULTS = {
      string: () => 'plain string', emptyString: () => '', object: () => ({ a: 1, u: undefined }),
      array: () => [1, null], number: () => 42, true: () => true, null: () => null,
      undefined: () => undefined, asyncObject: async () => ({ later: true }),
      throwsError: () => { throw new Error('boom'); }, rejects: () => Promise.reject(new TypeError('nope')),
      echo: () => 'echoed',
      slow: (input, options) => new Promise((done) => {
        options?.signal?.addEventListener('abort', () => log.push(`execute's signal aborted: ${options.signal.reason?.name}`));
        setTimeout(() => done('too late'), 300);
      }),
    };
    for (const [name, run] of Object.entries(RESULTS)) {
      await context.registerTool({
        name: `x.${name}`,
        description: `Tool ${name}`,
        execute(input, options) {
          log.push(`execute:${name}`);
          calls.push({
            args: arguments.length, input: JSON.stringify(input), keys: input && typeof input === 'object' ? Object.keys(input) : null,
            options: options ? Object.keys(options) : null, signal: options?.signal instanceof AbortSignal,
          });
          return run(input, options);
        },
      });
    }
    const tools = Object.fromEntries((await context.getTools()).map((entry) => [entry.name.slice(2), entry]));
    // A RegisteredTool as a plain object, and without one of its members.
    const plain = ({ description, name, origin, window: where }) => ({ description, name, origin, window: where });
    const without = (tool, member) => {
      const copy = plain(tool);
      delete copy[member];
      return copy;
    };
    const aborted = new AbortController();
    aborted.abort();
    const CASES = [
      ...Object.keys(RESULTS).filter((name) => name !== 'slow').map((name) => [name, () => context.executeTool(tools[name], {})]),
      ['input.object', () => context.executeTool(tools.echo, { q: 'x', deep: { k: [true] } })],
      ['input.missing', () => context.executeTool(tools.echo)],
      ['input.number', () => context.executeTool(tools.echo, 5)],
      ['input.null', () => context.executeTool(tools.echo, null)],
      ['input.undefined', () => context.executeTool(tools.echo, undefined)],
      ['input.array', () => context.executeTool(tools.echo, [1, 'two'])],
      ['input.text', () => context.executeTool(tools.echo, '{"q":"x"}')],
      ['input.boolean', () => context.executeTool(tools.echo, true)],
      ['input.asJson', () => context.executeTool(tools.echo, { d: new Date(0), f() {}, n: undefined, deep: { toJSON: () => 7 } })],
      ['input.toJsonUndefined', () => context.executeTool(tools.echo, { toJSON: () => undefined })],
      ['input.toJsonText', () => context.executeTool(tools.echo, { toJSON: () => 'text' })],
      ['input.date', () => context.executeTool(tools.echo, new Date(0))],
      ['input.function', () => context.executeTool(tools.echo, () => 1)],
      ['input.cycle', () => {
        const cycle = {};
        cycle.self = cycle;
        return context.executeTool(tools.echo, cycle);
      }],
      ['input.bigint', () => context.executeTool(tools.echo, { n: 1n })],
      ['tool.noOrigin', () => context.executeTool(without(tools.echo, 'origin'))],
      ['tool.noDescription', () => context.executeTool(without(tools.echo, 'description'))],
      ['tool.noName', () => context.executeTool(without(tools.echo, 'name'))],
      ['tool.noWindow', () => context.executeTool(without(tools.echo, 'window'))],
      ['tool.otherOrigin', () => context.executeTool({ ...plain(tools.echo), origin: 'https://elsewhere.example' })],
      ['tool.otherDescription', () => context.executeTool({ ...plain(tools.echo), description: 'not the same' })],
      ['tool.number', () => context.executeTool(5)],
      ['tool.null', () => context.executeTool(null)],
      ['tool.throwingGetter', () => context.executeTool({ get description() { throw new RangeError('no description'); } })],
      ['signal.alreadyAborted', () => context.executeTool(tools.echo, {}, { signal: aborted.signal })],
      ['signal.notASignal', () => context.executeTool(tools.echo, {}, { signal: {} })],
      ['signal.abortedMidRun', () => {
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 50);
        return context.executeTool(tools.slow, {}, { signal: controller.signal });
      }],
      ['signal.reason', () => {
        const controller = new AbortController();
        setTimeout(() => controller.abort(new RangeError('changed my mind')), 50);
        return context.executeTool(tools.slow, {}, { signal: controller.signal });
      }],
    ];
    return runCases(CASES, log, calls, 350);
  }

  // A page that asks getTools() and, in the same task, sees a tool
  // registered (a form parsed, another script), then adds a toolchange
  // listener once getTools() answered: as WPT's helpers wait for a tool.
  // The listener hears the toolchange queued after the answer.
  async function documentOrder() {
    const context = document.modelContext;
    const order = [];
    const listed = context.getTools();
    const controller = new AbortController();
    const registered = context.registerTool({ name: 'o.late', description: 'Registered after getTools was asked', execute: () => 'x' }, { signal: controller.signal })
      .then(() => order.push('registerTool resolved'), (error) => order.push(`registerTool rejected: ${error.name}`));
    const names = (await listed).map((tool) => tool.name).filter((name) => name.startsWith('o.'));
    order.push(`getTools answered: ${names.join(',') || 'none'}`);
    const heard = await new Promise((done) => {
      context.addEventListener('toolchange', () => done('heard'), { once: true });
      setTimeout(() => done('not heard'), 500);
    });
    order.push(`toolchange after the answer: ${heard}`);
    await registered;
    controller.abort();
    return { order };
  }

  Object.assign(window.diff.groups, { documentExecute, documentOrder });
})();
