// The same WebMCP cases, run on whatever `navigator.modelContext` and
// `navigator.modelContextTesting` this browser has: Chromium's own (native),
// Toolgate's polyfill, or Toolgate wrapping the native API.
// differential.test.mjs runs each group on every side and compares the
// outcomes, which come back as JSON text.
//
// Only what the native API has is used here (registerTool, listTools,
// executeTool, toolchange), except in the `document` group, which is
// Toolgate's own draft-shaped `document.modelContext`.
'use strict';

(() => {
  const mc = () => navigator.modelContext;
  const testing = () => navigator.modelContextTesting;
  const fn = () => 'ok';
  const tick = (ms = 0) => new Promise((done) => setTimeout(done, ms));

  // An error as data: its constructor, name and message.
  function errorOf(error) {
    if (error === null || (typeof error !== 'object' && typeof error !== 'function')) {
      return { ctor: typeof error, name: null, message: String(error) };
    }
    return { ctor: error.constructor?.name ?? null, name: error.name ?? null, message: error.message ?? null };
  }

  // A listTools() entry as data that keeps its key order and value types.
  const entryOf = (entry) => Object.entries(entry);
  const list = () => testing().listTools();

  // Runs `call` synchronously: what it returned or threw.
  function attempt(call) {
    try {
      const value = call();
      return { threw: false, returned: value === undefined ? 'undefined' : Object.prototype.toString.call(value) };
    } catch (error) {
      return { threw: true, ...errorOf(error) };
    }
  }

  const cyclic = () => {
    const schema = { type: 'object' };
    schema.self = schema;
    return schema;
  };
  const tool = (name, extra = {}) => ({ name, description: `Tool ${name}`, execute: fn, ...extra });

  // ---- registerTool: one case each; each reads what listTools() gained ------

  const REGISTER = [
    ['valid.basic', () => mc().registerTool(tool('valid.basic'))],
    ['valid.schema', () => mc().registerTool(tool('valid.schema', {
      inputSchema: { type: 'object', properties: { q: { type: 'string', description: 'query' } }, required: ['q'] },
    }))],
    ['name.empty', () => mc().registerTool(tool(''))],
    ['name.128', () => mc().registerTool(tool('n'.repeat(128)))],
    ['name.129', () => mc().registerTool(tool('m'.repeat(129)))],
    ['name.space', () => mc().registerTool(tool('has space'))],
    ['name.eacute', () => mc().registerTool(tool('caf\u00e9'))],
    ['name.number', () => mc().registerTool(tool(123))],
    ['name.missing', () => mc().registerTool({ description: 'd', execute: fn })],
    ['name.symbol', () => mc().registerTool({ name: Symbol('n'), description: 'd', execute: fn })],
    ['desc.empty', () => mc().registerTool(tool('desc.empty', { description: '' }))],
    ['desc.missing', () => mc().registerTool({ name: 'desc.missing', execute: fn })],
    ['desc.number', () => mc().registerTool(tool('desc.number', { description: 42 }))],
    ['desc.symbol', () => mc().registerTool(tool('desc.symbol', { description: Symbol('d') }))],
    ['schema.undefined', () => mc().registerTool(tool('schema.undefined', { inputSchema: undefined }))],
    ['schema.null', () => mc().registerTool(tool('schema.null', { inputSchema: null }))],
    ['schema.string', () => mc().registerTool(tool('schema.string', { inputSchema: '{"type":"object"}' }))],
    ['schema.number', () => mc().registerTool(tool('schema.number', { inputSchema: 5 }))],
    ['schema.cyclic', () => mc().registerTool(tool('schema.cyclic', { inputSchema: cyclic() }))],
    ['schema.toJSONundefined', () => mc().registerTool(tool('schema.toJSONundefined', { inputSchema: { toJSON() { return undefined; } } }))],
    ['schema.bigint', () => mc().registerTool(tool('schema.bigint', { inputSchema: { type: 'object', max: 1n } }))],
    ['schema.function', () => mc().registerTool(tool('schema.function', { inputSchema() {} }))],
    ['schema.array', () => mc().registerTool(tool('schema.array', { inputSchema: [] }))],
    ['schema.empty', () => mc().registerTool(tool('schema.empty', { inputSchema: {} }))],
    ['schema.notJsonSchema', () => mc().registerTool(tool('schema.notJsonSchema', { inputSchema: { type: 'string', properties: [], required: 'x' } }))],
    ['schema.dropsAndToJSON', () => mc().registerTool(tool('schema.dropsAndToJSON', {
      inputSchema: { type: 'object', f() {}, u: undefined, d: new Date(0), nested: { toJSON() { return 'j'; } } },
    }))],
    ['schema.date', () => mc().registerTool(tool('schema.date', { inputSchema: new Date(0) }))],
    ['execute.missing', () => mc().registerTool({ name: 'execute.missing', description: 'd' })],
    ['execute.string', () => mc().registerTool(tool('execute.string', { execute: 'x' }))],
    ['execute.object', () => mc().registerTool(tool('execute.object', { execute: {} }))],
    ['dup.plain', () => mc().registerTool(tool('dup.x', { description: 'second' }))],
    ['dup.emptyDesc', () => mc().registerTool(tool('dup.x', { description: '' }))],
    ['dup.cyclic', () => mc().registerTool(tool('dup.x', { inputSchema: cyclic() }))],
    ['order.emptyDesc+cyclic', () => mc().registerTool(tool('order.dc', { description: '', inputSchema: cyclic() }))],
    ['order.emptyName+emptyDesc', () => mc().registerTool(tool('', { description: '' }))],
    ['order.emptyName+descSymbol', () => mc().registerTool(tool('', { description: Symbol('d') }))],
    ['order.emptyName+badOptions', () => mc().registerTool(tool(''), 5)],
    ['order.dup+badSignal', () => mc().registerTool(tool('dup.x'), { signal: {} })],
    ['order.emptyName+abortedSignal', () => mc().registerTool(tool(''), { signal: AbortSignal.abort() })],
    ['order.dup+abortedSignal', () => mc().registerTool(tool('dup.x'), { signal: AbortSignal.abort() })],
    ['ann.stringFalse', () => mc().registerTool(tool('ann.stringFalse', { annotations: { readOnlyHint: 'false' } }))],
    ['ann.unknownKeys', () => mc().registerTool(tool('ann.unknownKeys', { annotations: { destructiveHint: true, foo: 1 } }))],
    ['ann.null', () => mc().registerTool(tool('ann.null', { annotations: null }))],
    ['ann.number', () => mc().registerTool(tool('ann.number', { annotations: 5 }))],
    ['ann.getterThrows', () => mc().registerTool({
      ...tool('ann.getterThrows'),
      get annotations() { throw new RangeError('annotations getter'); },
    })],
    ['getter.inputSchemaThrows', () => mc().registerTool({
      ...tool('getter.inputSchemaThrows'),
      get inputSchema() { throw new RangeError('inputSchema getter'); },
    })],
    ['getter.nameThrows', () => mc().registerTool({
      description: 'd', execute: fn,
      get name() { throw new RangeError('name getter'); },
    })],
    ['getter.titleThrows', () => mc().registerTool({
      ...tool('getter.titleThrows'),
      get title() { throw new RangeError('title getter'); },
    })],
    ['title.ignored', () => mc().registerTool(tool('title.ignored', { title: 'Pretty Title' }))],
    ['tool.null', () => mc().registerTool(null)],
    ['tool.undefined', () => mc().registerTool(undefined)],
    ['tool.none', () => mc().registerTool()],
    ['tool.string', () => mc().registerTool('tool')],
    ['tool.positional', () => mc().registerTool('tool.positional', 'Positional', undefined, fn)],
    ['tool.proxy', () => mc().registerTool(new Proxy(tool('tool.proxy'), {}))],
    ['tool.extraFields', () => mc().registerTool(tool('tool.extraFields', { outputSchema: { type: 'object' }, version: 2 }))],
    ['options.null', () => mc().registerTool(tool('options.null'), null)],
    ['options.empty', () => mc().registerTool(tool('options.empty'), {})],
    ['options.number', () => mc().registerTool(tool('options.number'), 5)],
    ['options.string', () => mc().registerTool(tool('options.string'), 'str')],
    ['options.signalObject', () => mc().registerTool(tool('options.signalObject'), { signal: {} })],
    ['options.signalNull', () => mc().registerTool(tool('options.signalNull'), { signal: null })],
    ['options.exposedToBad', () => mc().registerTool(tool('options.exposedToBad'), { exposedTo: ['not a url', 5] })],
  ];

  async function register() {
    mc().registerTool(tool('dup.x', { description: 'original' })); // what the dup.* cases collide with
    const results = {};
    for (const [id, call] of REGISTER) {
      const before = new Map(list().map((entry) => [entry.name, JSON.stringify(entryOf(entry))]));
      const outcome = attempt(call);
      const after = list();
      outcome.added = after.filter((entry) => !before.has(entry.name)).map(entryOf);
      outcome.changed = after
        .filter((entry) => before.has(entry.name) && before.get(entry.name) !== JSON.stringify(entryOf(entry)))
        .map((entry) => entry.name);
      outcome.removed = [...before.keys()].filter((name) => !after.some((entry) => entry.name === name));
      results[id] = outcome;
    }
    return results;
  }

  // ---- listTools(): shape, order, copies, snapshots --------------------------

  async function listing() {
    const out = {};
    out.empty = list();
    out.emptyIsArray = Array.isArray(out.empty);
    for (const name of ['b', 'B2', '_x', 'a1', 'Z9', 'alpha', 'a.b', 'a-b', 'a_b', '0z', 'A', 'a']) {
      mc().registerTool(tool(name));
    }
    const schema = { type: 'object', properties: { q: { type: 'string', description: 'query' } }, required: ['q'] };
    const mutable = tool('snap', { description: 'before', inputSchema: schema });
    mc().registerTool(mutable);
    mc().registerTool(tool('unicode.desc', { description: 'Caf\u00e9 \u2014 \ud83d\ude00 <b>x</b>', inputSchema: { z: 1, a: 2, m: [3, { y: 'x' }] } }));
    // A snapshot: changing the page's objects afterwards changes nothing.
    mutable.description = 'after';
    schema.properties.q.type = 'number';
    mutable.inputSchema = { type: 'changed' };
    const first = list();
    out.names = first.map((entry) => entry.name);
    out.entries = first.map(entryOf);
    out.keys = first.map((entry) => Object.keys(entry));
    out.types = first.map((entry) => Object.values(entry).map((value) => typeof value));
    out.plainObjects = first.every((entry) => Object.getPrototypeOf(entry) === Object.prototype);
    out.isArray = Array.isArray(first);
    // Every call gives new objects; changing them changes nothing.
    first[0].name = 'mutated';
    first.push({ name: 'pushed' });
    const second = list();
    out.newArray = first !== second;
    out.newObjects = first[1] !== second[1];
    out.unchanged = JSON.stringify(second.map(entryOf)) === JSON.stringify(out.entries);
    return out;
  }

  // Runs executeTool cases one at a time: what each call threw, returned or
  // settled with, then (`wait` ms later) the log and execute's calls it made.
  async function runCases(cases, log, calls, wait) {
    const results = {};
    for (const [id, call] of cases) {
      log.length = 0;
      calls.length = 0;
      let returned;
      const outcome = {};
      try {
        returned = call();
        outcome.threw = false;
      } catch (error) {
        outcome.threw = true;
        outcome.error = errorOf(error);
      }
      log.push('returned');
      if (!outcome.threw) {
        outcome.isPromise = returned instanceof Promise;
        try {
          const value = await returned;
          outcome.resolved = value === undefined ? '<undefined>' : value;
          outcome.resolvedType = typeof value;
        } catch (error) {
          outcome.rejected = errorOf(error);
        }
      }
      await tick(wait);
      outcome.log = [...log];
      outcome.calls = calls.map((one) => ({ ...one }));
      results[id] = outcome;
    }
    return results;
  }

  // ---- executeTool(name, json): results, errors, how execute is called -------

  async function execute() {
    const log = [];
    const calls = [];
    let thisSeen = null; // `this` in the first execute called
    window.addEventListener('toolactivated', (event) => log.push(`toolactivated:${event.toolName}`));
    // Chromium reports an execute that throws or rejects to the page as an
    // uncaught error; recorded here, and kept off the console.
    window.addEventListener('error', (event) => {
      log.push(`error:${event.message}|${String(event.error)}`);
      event.preventDefault();
    });
    const reg = (name, run) => {
      const definition = {
        name,
        description: `Tool ${name}`,
        execute(input) {
          log.push(`execute:${name}`);
          calls.push({ name, args: arguments.length, input: JSON.stringify(input), inputIsArray: Array.isArray(input) });
          thisSeen ??= { thisIsUndefined: this === undefined, thisIsDefinition: this === definition };
          return run(input);
        },
      };
      mc().registerTool(definition);
      return definition;
    };
    reg('r.string', () => 'plain string');
    reg('r.emptyString', () => '');
    reg('r.jsonString', () => '{"a":1}');
    reg('r.object', () => ({ a: 1, nested: { b: [1, 2] }, u: undefined, f() {} }));
    reg('r.array', () => [1, 'x', null, undefined]);
    reg('r.number', () => 42);
    reg('r.nan', () => NaN);
    reg('r.true', () => true);
    reg('r.null', () => null);
    reg('r.undefined', () => undefined);
    reg('r.noReturn', () => {});
    reg('r.bigint', () => 1n);
    reg('r.function', () => () => 1);
    reg('r.date', () => new Date(0));
    reg('r.toJSONstring', () => ({ toJSON() { return 'via toJSON'; } }));
    reg('r.toJSONundefined', () => ({ toJSON() { return undefined; } }));
    reg('r.asyncString', async () => 'late');
    reg('r.asyncObject', () => new Promise((done) => setTimeout(() => done({ later: true }), 10)));
    reg('r.throwsError', () => { throw new Error('boom'); });
    reg('r.throwsString', () => { throw 'boom'; }); // eslint-disable-line no-throw-literal
    reg('r.rejects', () => Promise.reject(new TypeError('nope')));
    reg('r.rejectsDOMException', () => Promise.reject(new DOMException('no', 'AbortError')));
    reg('r.echo', () => 'echoed');
    const swapped = reg('r.swapped', () => 'original execute');
    swapped.execute = () => 'replaced execute';

    const CASES = [
      ['string', () => testing().executeTool('r.string', '{}')],
      ['emptyString', () => testing().executeTool('r.emptyString', '{}')],
      ['jsonString', () => testing().executeTool('r.jsonString', '{}')],
      ['object', () => testing().executeTool('r.object', '{}')],
      ['array', () => testing().executeTool('r.array', '{}')],
      ['number', () => testing().executeTool('r.number', '{}')],
      ['nan', () => testing().executeTool('r.nan', '{}')],
      ['true', () => testing().executeTool('r.true', '{}')],
      ['null', () => testing().executeTool('r.null', '{}')],
      ['undefined', () => testing().executeTool('r.undefined', '{}')],
      ['noReturn', () => testing().executeTool('r.noReturn', '{}')],
      ['bigint', () => testing().executeTool('r.bigint', '{}')],
      ['function', () => testing().executeTool('r.function', '{}')],
      ['date', () => testing().executeTool('r.date', '{}')],
      ['toJSONstring', () => testing().executeTool('r.toJSONstring', '{}')],
      ['toJSONundefined', () => testing().executeTool('r.toJSONundefined', '{}')],
      ['asyncString', () => testing().executeTool('r.asyncString', '{}')],
      ['asyncObject', () => testing().executeTool('r.asyncObject', '{}')],
      ['throwsError', () => testing().executeTool('r.throwsError', '{}')],
      ['throwsString', () => testing().executeTool('r.throwsString', '{}')],
      ['rejects', () => testing().executeTool('r.rejects', '{}')],
      ['rejectsDOMException', () => testing().executeTool('r.rejectsDOMException', '{}')],
      ['input.object', () => testing().executeTool('r.echo', '{"q":"x","n":1,"deep":{"k":[true]}}')],
      ['input.array', () => testing().executeTool('r.echo', '[1,2]')],
      ['input.empty', () => testing().executeTool('r.echo', '')],
      ['input.bad', () => testing().executeTool('r.echo', '{bad')],
      ['input.number', () => testing().executeTool('r.echo', '5')],
      ['input.null', () => testing().executeTool('r.echo', 'null')],
      ['input.string', () => testing().executeTool('r.echo', '"str"')],
      ['input.notAString', () => testing().executeTool('r.echo', {})],
      ['input.missing', () => testing().executeTool('r.echo')],
      ['input.thirdArgument', () => testing().executeTool('r.echo', '{}', { extra: true })],
      ['args.none', () => testing().executeTool()],
      ['unknown', () => testing().executeTool('nope', '{}')],
      ['unknown.number', () => testing().executeTool(123, '{}')],
      ['unknown.badInput', () => testing().executeTool('nope', '{bad')],
      ['snapshot.execute', () => testing().executeTool('r.swapped', '{}')],
    ];
    const results = await runCases(CASES, log, calls, 0);
    results.thisInExecute = thisSeen;
    return results;
  }

  // ---- toolchange: when and how often ---------------------------------------

  async function events() {
    const target = testing();
    let count = 0;
    let first = null;
    target.addEventListener('toolchange', function listener(event) {
      count++;
      first ??= {
        type: event.type,
        ctor: event.constructor.name,
        bubbles: event.bubbles,
        cancelable: event.cancelable,
        composed: event.composed,
        targetIsTesting: event.target === target,
        thisIsTesting: this === target,
      };
    });
    let handled = 0;
    const handler = () => handled++;
    target.ontoolchange = handler;
    const out = { handlerReadsBack: target.ontoolchange === handler };

    // Counts the events one action causes: in the same task, after its
    // microtasks, and once everything settled.
    const measure = async (act) => {
      const start = count;
      const acted = attempt(act);
      const sync = count - start;
      await Promise.resolve();
      await Promise.resolve();
      const microtasks = count - start;
      await tick(100);
      return { threw: acted.threw, sync, microtasks, settled: count - start };
    };

    const a = new AbortController();
    out.registerTwo = await measure(() => {
      mc().registerTool(tool('ev.a'), { signal: a.signal });
      mc().registerTool(tool('ev.b'));
    });
    out.abortOne = await measure(() => a.abort());
    out.duplicate = await measure(() => mc().registerTool(tool('ev.b')));
    out.invalid = await measure(() => mc().registerTool(tool('')));
    out.alreadyAborted = await measure(() => mc().registerTool(tool('ev.c'), { signal: AbortSignal.abort() }));
    const shared = new AbortController();
    out.threeThenAbortTwo = await measure(() => {
      mc().registerTool(tool('ev.d'));
      mc().registerTool(tool('ev.e'), { signal: shared.signal });
      mc().registerTool(tool('ev.f'), { signal: shared.signal });
      shared.abort();
    });
    out.abortAgain = await measure(() => shared.abort());
    out.first = first;
    out.total = count;
    out.handled = handled;
    target.ontoolchange = null;
    out.handlerCleared = target.ontoolchange === null;
    out.afterClear = await measure(() => mc().registerTool(tool('ev.g')));
    out.handledAfterClear = handled;
    out.names = list().map((entry) => entry.name);
    return out;
  }

  // ---- AbortSignal: unregistration -------------------------------------------

  async function abort() {
    const out = {};
    const names = () => list().map((entry) => entry.name);
    const has = (name) => names().includes(name);

    const a = new AbortController();
    out.register = attempt(() => mc().registerTool(tool('ab.a'), { signal: a.signal }));
    out.listedBefore = has('ab.a');
    a.abort();
    out.listedRightAfterAbort = has('ab.a');

    out.alreadyAborted = attempt(() => mc().registerTool(tool('ab.pre'), { signal: AbortSignal.abort(new Error('why')) }));
    out.alreadyAbortedListed = has('ab.pre');

    const shared = new AbortController();
    mc().registerTool(tool('ab.s1'), { signal: shared.signal });
    mc().registerTool(tool('ab.s2'), { signal: shared.signal });
    out.sharedBefore = [has('ab.s1'), has('ab.s2')];
    shared.abort();
    out.sharedAfter = [has('ab.s1'), has('ab.s2')];

    out.reRegister = attempt(() => mc().registerTool(tool('ab.a', { description: 'again' })));
    out.reRegisteredEntry = list().filter((entry) => entry.name === 'ab.a').map(entryOf);

    // A later tool of the same name is not removed by the first one's signal.
    const old = new AbortController();
    mc().registerTool(tool('ab.r'), { signal: old.signal });
    old.abort();
    const fresh = new AbortController();
    mc().registerTool(tool('ab.r', { description: 'second' }), { signal: fresh.signal });
    old.abort();
    out.laterSameNameKept = has('ab.r');

    // A failed duplicate's signal does not remove the original.
    mc().registerTool(tool('ab.dup'));
    const dupSignal = new AbortController();
    out.duplicate = attempt(() => mc().registerTool(tool('ab.dup'), { signal: dupSignal.signal }));
    dupSignal.abort();
    out.originalKept = has('ab.dup');

    // A tool that unregisters itself while running still returns its result.
    const self = new AbortController();
    mc().registerTool(tool('ab.self', { execute: () => { self.abort(); return 'done'; } }), { signal: self.signal });
    out.selfAbortResult = await testing().executeTool('ab.self', '{}').then((value) => value, (error) => errorOf(error));
    out.selfAbortListed = has('ab.self');

    // Unregistering does not cancel a pending execution.
    const pending = new AbortController();
    let finish;
    mc().registerTool(tool('ab.pending', { execute: () => new Promise((done) => { finish = done; }) }), { signal: pending.signal });
    const running = testing().executeTool('ab.pending', '{}');
    pending.abort();
    out.pendingListed = has('ab.pending');
    finish('late result');
    out.pendingResult = await running.then((value) => value, (error) => errorOf(error));

    mc().registerTool(tool('ab.timeout'), { signal: AbortSignal.timeout(20) });
    out.timeoutBefore = has('ab.timeout');
    await tick(150);
    out.timeoutAfter = has('ab.timeout');
    out.names = names();
    return out;
  }

  // ---- Results nothing can serialise (never run on the native side alone) ---

  // Read only, so that on side C the browser's own agent's calls of
  // Toolgate's native copies run without a card (localhost: a chat starts
  // at "read-only tools" there): what is tested is the result, not the gate.
  function registerUnserializable() {
    const readOnly = { annotations: { readOnlyHint: true } };
    mc().registerTool(tool('un.cyclic', { execute: () => cyclic(), ...readOnly }));
    mc().registerTool(tool('un.symbol', { execute: () => Symbol('s'), ...readOnly }));
    mc().registerTool(tool('un.bigint', { execute: () => ({ n: 1n }), ...readOnly }));
    mc().registerTool(tool('un.toJSONthrows', { execute: () => ({ toJSON() { throw new Error('toJSON'); } }), ...readOnly }));
    mc().registerTool(tool('un.ok', { execute: () => 'still fine', ...readOnly }));
    return list().map((entry) => entry.name);
  }

  // Chromium reports an execute that fails to the page as an uncaught error:
  // recorded, and cancelled so that it stays off the console.
  function recordErrorEvents() {
    const errors = [];
    window.addEventListener('error', (event) => {
      errors.push(`${event.message}|${String(event.error)}`);
      event.preventDefault();
    });
    return errors;
  }

  async function executeAll(api, names) {
    const results = {};
    for (const name of names) {
      results[name] = await api.executeTool(name, '{}').then((value) => ({ resolved: value }), (error) => ({ rejected: errorOf(error) }));
    }
    return results;
  }

  async function unserializable() {
    const errors = recordErrorEvents();
    const names = registerUnserializable();
    const results = await executeAll(testing(), names);
    return {
      results,
      okAfter: await testing().executeTool('un.ok', '{}'),
      listedAfter: list().map((entry) => entry.name),
      errorEvents: errors,
    };
  }

  // ---- Toolgate's native copies (side C): what the browser's own API holds ----

  // The native testing API, captured by the test's init script before Toolgate's shim ran.
  const nativeTesting = () => window.__nativeTestingGet?.call(navigator) ?? null;

  // Toolgate mirrors a task's registrations together, once the worker has
  // classed them: when one shows up natively, the others that will are there.
  async function waitNative() {
    const api = nativeTesting();
    for (let i = 0; i < 100 && api.listTools().length === 0; i++) await tick(50);
    await tick(50);
    return api.listTools();
  }

  async function nativeUnserializable() {
    const api = nativeTesting();
    const errors = recordErrorEvents();
    const out = { distinct: api !== testing() && Object.getPrototypeOf(api) !== Object.getPrototypeOf(testing()) };
    const names = registerUnserializable();
    out.nativeNames = (await waitNative()).map((entry) => entry.name);
    out.results = await executeAll(api, names);
    out.okAfter = await api.executeTool('un.ok', '{}');
    out.listedAfter = list().map((entry) => entry.name);
    out.errorEvents = errors;
    return out;
  }

  async function mirror() {
    const api = nativeTesting();
    mc().registerTool(tool('m.plain'));
    mc().registerTool(tool('m.schema', { inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }));
    mc().registerTool(tool('m.title', { title: 'Title' }));
    mc().registerTool(tool('m.array', { inputSchema: [] }));
    mc().registerTool(tool('m.date', { inputSchema: new Date(0) }));
    mc().registerTool(tool('m.toJSONstring', { inputSchema: { toJSON() { return 'x'; } } }));
    mc().registerTool(tool('m.ann', { annotations: { readOnlyHint: true } }));
    const gone = new AbortController();
    mc().registerTool(tool('m.aborted'), { signal: gone.signal });
    const native = await waitNative();
    gone.abort();
    await tick(50);
    return {
      toolgate: list().map(entryOf),
      native: api.listTools().map(entryOf),
      nativeBeforeAbort: native.map((entry) => entry.name),
    };
  }

  const GROUPS = {
    register, listing, execute, events, abort, unserializable, nativeUnserializable, mirror,
  };

  window.diff = {
    // The groups, which document-context.js, document-execute.js and tree.js
    // add to; helpers they share.
    groups: GROUPS,
    errorOf,
    tick,
    runCases,
    cyclic,
    tool,
    // Runs one group; resolves to its outcomes as JSON text.
    async run(group) {
      return JSON.stringify(await GROUPS[group]());
    },
  };
})();
