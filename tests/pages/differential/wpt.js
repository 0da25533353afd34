// Cases of WPT's webmcp/ tests that a page script can pass, in the terms
// they check, on whatever document.modelContext this browser has: Chromium
// 156's own, Toolgate's polyfill, or Toolgate wrapping 156's. Each group
// resolves to plain data; wpt-differential.test.mjs compares the sides.
'use strict';

(() => {
  const context = () => document.modelContext;
  const errorOf = (error) => (error !== null && typeof error === 'object'
    ? { ctor: error.constructor?.name ?? null, name: error.name ?? null, message: error.message ?? null }
    : { ctor: typeof error, value: String(error) });
  const settle = (promise) => promise.then((value) => ({ resolved: value }), (error) => ({ rejected: errorOf(error) }));
  async function toolNamed(name) {
    return (await context().getTools()).find((tool) => tool.name === name);
  }
  async function register(name, execute, signal) {
    await context().registerTool({ name, description: `Tool ${name}`, execute }, { signal });
    return toolNamed(name);
  }

  // imperative/object-arguments: the input must be an object (arrays too).
  async function inputs() {
    const gone = new AbortController();
    const seen = [];
    const tool = await register('wpt.echo', (input) => {
      seen.push(JSON.stringify(input));
      return 'ran';
    }, gone.signal);
    const out = {};
    const CASES = {
      text: 'hello', objectText: '{"q":1}', arrayText: '[1,2]', stringText: '"quoted"', empty: '',
      number: 123, boolean: true, null: null, array: [1, 2, 3], toJsonUndefined: { toJSON: () => undefined },
    };
    for (const [id, input] of Object.entries(CASES)) {
      seen.length = 0;
      out[id] = { ...(await settle(context().executeTool(tool, input))), seen: [...seen] };
    }
    gone.abort();
    return out;
  }

  // imperative/executeTool-abort: the order of the rejection, the tool's own
  // signal and toolcancel; a tool that resolves once aborted; two runs of a
  // tool, one aborted.
  async function abortOrder() {
    const gone = new AbortController();
    const events = [];
    let reason = null;
    const started = Promise.withResolvers();
    const aborted = Promise.withResolvers();
    const cancelled = Promise.withResolvers();
    context().addEventListener('toolcancel', () => { events.push('toolcancel'); cancelled.resolve(); }, { once: true });
    const tool = await register('wpt.abort', (input, options) => new Promise(() => {
      options.signal.onabort = () => {
        reason = errorOf(options.signal.reason);
        events.push('signal aborted');
        aborted.resolve();
      };
      events.push('tool started');
      started.resolve();
    }), gone.signal);
    const controller = new AbortController();
    const running = context().executeTool(tool, {}, { signal: controller.signal });
    await started.promise;
    controller.abort('custom reason');
    let rejection = null;
    await Promise.all([running.catch((error) => { events.push('execution rejected'); rejection = error; }), aborted.promise, cancelled.promise]);
    gone.abort();
    return { events, rejection, reason };
  }

  async function abortThenResolve() {
    const gone = new AbortController();
    const late = Promise.withResolvers();
    let ran = false;
    const tool = await register('wpt.late', (input, options) => {
      ran = true;
      options.signal.onabort = () => late.resolve('late value');
      return late.promise;
    }, gone.signal);
    const controller = new AbortController();
    const running = context().executeTool(tool, {}, { signal: controller.signal });
    controller.abort(); // in the task that called executeTool
    const outcome = await settle(running);
    const lateValue = await Promise.race([late.promise, new Promise((done) => setTimeout(() => done('never resolved'), 2000))]);
    gone.abort();
    return { outcome, ran, lateValue };
  }

  async function abortOneOfTwo() {
    const gone = new AbortController();
    const signals = [];
    const first = Promise.withResolvers();
    const second = Promise.withResolvers();
    const firstAborted = Promise.withResolvers();
    const finish = Promise.withResolvers();
    const tool = await register('wpt.twice', (input, options) => {
      signals.push(options.signal);
      if (signals.length === 1) {
        options.signal.onabort = firstAborted.resolve;
        first.resolve();
        return new Promise(() => {});
      }
      second.resolve();
      return finish.promise;
    }, gone.signal);
    const one = new AbortController();
    const two = new AbortController();
    const runOne = settle(context().executeTool(tool, {}, { signal: one.signal }));
    const runTwo = settle(context().executeTool(tool, {}, { signal: two.signal }));
    await Promise.all([first.promise, second.promise]);
    one.abort('cancel 1');
    const out = { one: await runOne };
    await firstAborted.promise;
    out.aborted = signals.map((signal) => signal.aborted);
    finish.resolve('second result');
    out.two = await runTwo;
    gone.abort();
    return out;
  }

  // declarative/form_removal_submit_crash: the form's listener answers
  // with respondWith, then removes the form: the call was cancelled.
  async function formRemoved() {
    const form = document.querySelector('form');
    let submitted = false;
    form.addEventListener('submit', (event) => {
      submitted = true;
      event.preventDefault();
      event.respondWith(Promise.resolve('answered'));
      form.remove();
    });
    let tool = await toolNamed('wpt.form');
    if (!tool) {
      tool = await new Promise((done) => {
        const heard = async () => {
          const found = await toolNamed('wpt.form');
          if (found) done(found);
          else context().addEventListener('toolchange', heard, { once: true });
        };
        context().addEventListener('toolchange', heard, { once: true });
      });
    }
    const outcome = await settle(context().executeTool(tool, {}));
    return { outcome, submitted };
  }

  // imperative/exposedTo-*: which origins registerTool takes (`others`:
  // the test's origins, one the browser was told to treat as secure).
  async function exposedTo(others) {
    const out = {};
    const LISTS = { own: [location.origin], ...others };
    for (const [id, list] of Object.entries(LISTS)) {
      const gone = new AbortController();
      out[id] = await settle(context().registerTool({ name: `wpt.exposed.${id}`, description: 'Exposed', execute: () => 'x' },
        { exposedTo: list, signal: gone.signal }));
      out[id].listed = Boolean(await toolNamed(`wpt.exposed.${id}`));
      gone.abort();
    }
    return out;
  }

  const GROUPS = { inputs, abortOrder, abortThenResolve, abortOneOfTwo, formRemoved, exposedTo };
  window.wpt = { run: async (group, arg) => JSON.stringify(await GROUPS[group](arg)) };
})();
