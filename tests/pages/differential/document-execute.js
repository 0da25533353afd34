// document.modelContext.executeTool(tool, input, {signal}), the draft's and
// Chromium 156's: the results, the rejections, how `execute` is called, the
// caller's signal, and where toolactivated and toolcancel fire.
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
          calls.push({ args: arguments.length, input: JSON.stringify(input), options: options ? Object.keys(options) : null, signal: options?.signal instanceof AbortSignal });
          return run(input, options);
        },
      });
    }
    const tools = Object.fromEntries((await context.getTools()).map((entry) => [entry.name.slice(2), entry]));
    const aborted = new AbortController();
    aborted.abort();
    const CASES = [
      ...Object.keys(RESULTS).filter((name) => name !== 'slow').map((name) => [name, () => context.executeTool(tools[name], {})]),
      ['input.object', () => context.executeTool(tools.echo, { q: 'x', deep: { k: [true] } })],
      ['input.missing', () => context.executeTool(tools.echo)],
      ['input.number', () => context.executeTool(tools.echo, 5)],
      ['input.null', () => context.executeTool(tools.echo, null)],
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

  Object.assign(window.diff.groups, { documentExecute });
})();
