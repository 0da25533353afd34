// Toolgate's polyfill held to Chromium's native WebMCP (M148), input for input.
//
// The same page script (tests/pages/differential/diff.js) runs the same cases on
//   A: Chromium's own API alone (--enable-features=WebMCP,WebMCPTesting, no Toolgate);
//   B: Toolgate's polyfill alone;
//   C: Toolgate wrapping the native API;
// and every outcome on B and on C must equal A's, case by case. Where
// Toolgate differs on purpose, because docs/classes.md ("What a page may
// register") decides so, the case asserts that documented difference instead.
// Cases that crash the native renderer are never run on A; a separate test
// shows B and C survive them.
//
// Chromium 156 has no native navigator.modelContext or modelContextTesting
// (its native API is document.modelContext): there, the tests that compare
// with them are skipped, and document.modelContext is compared with 156's own.
//
// Run: node --test tests/e2e/differential.test.mjs
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSER_VERSION, launch } from '../support/browser.mjs';
import { serve } from '../support/server.mjs';

const SIDES = {
  A: { extension: false, native: true },
  B: { extension: true, native: false },
  C: { extension: true, native: true },
};
const TOOLGATE = ['B', 'C'];
// Whether the native API is document.modelContext (156), not 148's navigator.modelContext.
const DOCUMENT_NATIVE = BROWSER_VERSION >= 156;
const NO_LEGACY_NATIVE = DOCUMENT_NATIVE
  ? `Chromium ${BROWSER_VERSION} has no native navigator.modelContext or navigator.modelContextTesting to compare with (its native API is document.modelContext)`
  : false;
const REGISTER = "Failed to execute 'registerTool' on 'ModelContext': ";
const INVOCATION_FAILED = 'Tool was executed but the invocation failed. For example, the script function threw an error';

let server;
const browsers = {};

before(async () => {
  server = await serve('tests/pages/differential');
  await Promise.all(Object.entries(SIDES).map(async ([side, options]) => {
    browsers[side] = await launch(options);
  }));
});

after(async () => {
  await Promise.all(Object.values(browsers).map((browser) => browser.close()));
  await server?.close();
});

// Keeps the getter of the native `navigator.modelContextTesting` before
// Toolgate's shim replaces it (Playwright's init scripts run first), so the
// page can reach the copies Toolgate registers with the browser.
function captureNative() {
  const desc = Object.getOwnPropertyDescriptor(Navigator.prototype, 'modelContextTesting');
  if (desc?.get) window.__nativeTestingGet = desc.get;
}

// One group of cases on one side, in a fresh page; outcomes are memoised so
// that tests can share them.
const outcomes = new Map();
function run(side, group) {
  const key = `${side}/${group}`;
  if (!outcomes.has(key)) {
    outcomes.set(key, (async () => {
      const page = await browsers[side].context.newPage();
      try {
        if (side === 'C' && (group.startsWith('native') || group === 'mirror')) await page.addInitScript(captureNative);
        await page.goto(server.url('diff.localhost', '/diff.html'));
        return JSON.parse(await page.evaluate((name) => window.diff.run(name), group));
      } finally {
        await page.close();
      }
    })());
  }
  return outcomes.get(key);
}

// Runs a test's body, then fails on any uncaught error or console error the
// sides saw, even when the body failed; then forgets them, so that one test's
// failure is not every later test's.
async function checked(sides, body) {
  let failure = null;
  try {
    await body();
  } catch (error) {
    failure = error;
  }
  const seen = [];
  for (const side of sides) {
    try {
      await browsers[side].assertNoErrors();
    } catch (error) {
      seen.push(`side ${side}: ${error.message}`);
      browsers[side].errors.length = 0;
    }
  }
  if (failure && seen.length) failure.message += `\n${seen.join('\n')}`;
  if (failure) throw failure;
  if (seen.length) assert.fail(seen.join('\n'));
}

// Compares B and C with A, one subtest per case and side; `documented`
// holds the cases where Toolgate differs on purpose.
async function compare(t, group, documented = {}) {
  const [a, ...others] = await Promise.all(['A', ...TOOLGATE].map((side) => run(side, group)));
  for (const id of Object.keys(a)) {
    for (const [index, side] of TOOLGATE.entries()) {
      const toolgate = others[index];
      await t.test(`${id} [${side}]`, () => {
        if (documented[id]) {
          documented[id](a[id], toolgate[id], side);
        } else {
          assert.deepStrictEqual(toolgate[id], a[id], `${group} ${id}: side ${side} differs from native`);
        }
      });
    }
  }
  for (const [index, side] of TOOLGATE.entries()) {
    assert.deepStrictEqual(Object.keys(others[index]), Object.keys(a), `side ${side} ran other cases than native`);
  }
  return { a, b: others[0], c: others[1] };
}

const entry = (name, description = `Tool ${name}`, inputSchema = '') => [
  ['description', description], ['inputSchema', inputSchema], ['name', name],
];

// docs/classes.md, "What a page may register" (names): a name is 1 to 128
// characters of [A-Za-z0-9_.-]. Chromium checks only that the name is not
// empty.
function nameRule(native, toolgate) {
  assert.equal(native.threw, false, 'native registers this name');
  assert.equal(native.added.length, 1, 'native lists this name');
  assert.equal(toolgate.threw, true, 'Toolgate refuses this name');
  assert.equal(toolgate.ctor, 'DOMException');
  assert.equal(toolgate.name, 'InvalidStateError');
  assert.ok(toolgate.message.startsWith(`${REGISTER}Tool name must be 1 to 128 characters`), toolgate.message);
  assert.deepStrictEqual(toolgate.added, []);
}

// docs/classes.md, "What a page may register" (positional registration):
// registerTool(name, description, inputSchema, execute, annotations?) is
// taken. Chromium takes only the object form.
function positional(native, toolgate) {
  assert.deepStrictEqual(
    [native.threw, native.ctor, native.message],
    [true, 'TypeError', `${REGISTER}The provided value is not of type 'ModelContextTool'.`],
  );
  assert.deepStrictEqual(toolgate.threw, false);
  assert.deepStrictEqual(toolgate.added, [entry('tool.positional', 'Positional')]);
}

// A lone string is a positional name without a description: both refuse it,
// with a TypeError, for different reasons.
function positionalIncomplete(native, toolgate) {
  assert.deepStrictEqual(
    [native.threw, native.ctor, native.message],
    [true, 'TypeError', `${REGISTER}The provided value is not of type 'ModelContextTool'.`],
  );
  assert.deepStrictEqual(
    [toolgate.threw, toolgate.ctor, toolgate.message],
    [true, 'TypeError', `${REGISTER}Failed to read the 'description' property from 'ModelContextTool': Required member is undefined.`],
  );
  assert.deepStrictEqual(toolgate.added, []);
}

// docs/classes.md, "What a page may register" (unreadable declarations):
// hints that cannot be read never reject; the tool registers as
// Consequential with a lint note (the native API alone would reject a
// throwing getter).
function unreadableHints(id) {
  return (native, toolgate) => {
    assert.equal(native.threw, true, 'native refuses these annotations');
    assert.deepStrictEqual(native.added, []);
    assert.equal(toolgate.threw, false, 'Toolgate registers the tool anyway');
    assert.deepStrictEqual(toolgate.added, [entry(id)]);
  };
}

const DOCUMENTED_REGISTER = {
  'name.129': nameRule,
  'name.space': nameRule,
  'name.eacute': nameRule,
  'tool.positional': positional,
  'tool.string': positionalIncomplete,
  'ann.number': unreadableHints('ann.number'),
  'ann.getterThrows': unreadableHints('ann.getterThrows'),
};

test('registerTool: same sync throw, error and listTools() gain as native, input for input', { skip: NO_LEGACY_NATIVE }, (t) => checked(['A', 'B', 'C'], async () => {
    const { a } = await compare(t, 'register', DOCUMENTED_REGISTER);
    // The native facts the comparison leans on, so that a Chromium change shows here.
    assert.equal(a['name.empty'].name, 'InvalidStateError');
    assert.equal(a['dup.plain'].message, `${REGISTER}Duplicate tool name`);
    assert.deepStrictEqual(a['valid.basic'].added, [entry('valid.basic')]);
}));

test('listTools(): same entries, key order, value types, sorting and copies as native', { skip: NO_LEGACY_NATIVE }, (t) => checked(['A', 'B', 'C'], async () => {
    const { a } = await compare(t, 'listing');
    assert.deepStrictEqual(a.keys[0], ['description', 'inputSchema', 'name']);
    assert.deepStrictEqual(a.names, [...a.names].sort());
}));

test('executeTool(name, json): same results, rejections and calls of execute as native', { skip: NO_LEGACY_NATIVE }, (t) => checked(['A', 'B', 'C'], async () => {
    const { a } = await compare(t, 'execute');
    assert.equal(a.string.resolved, 'plain string');
    assert.equal(a.throwsError.rejected.message, INVOCATION_FAILED);
}));

test('toolchange: same counts as native, never in the registering task', { skip: NO_LEGACY_NATIVE }, (t) => checked(['A', 'B', 'C'], async () => {
    const { a, b, c } = await compare(t, 'events');
    for (const [side, out] of Object.entries({ A: a, B: b, C: c })) {
      for (const [step, measured] of Object.entries(out)) {
        if (measured && typeof measured === 'object' && 'sync' in measured) {
          assert.equal(measured.sync, 0, `side ${side}, ${step}: toolchange fired synchronously`);
        }
      }
    }
    assert.equal(a.registerTwo.settled, 2);
}));

test('AbortSignal: unregisters synchronously; an aborted one registers nothing and throws nothing', { skip: NO_LEGACY_NATIVE }, (t) => checked(['A', 'B', 'C'], async () => {
    const { a } = await compare(t, 'abort');
    assert.equal(a.listedRightAfterAbort, false);
    assert.deepStrictEqual(a.alreadyAborted, { threw: false, returned: 'undefined' });
}));

// Chromium 156's document.modelContext.executeTool, input for input: the
// results, the rejections, how `execute` is called, the caller's signal, and
// where toolactivated and toolcancel fire (ARCHITECTURE.md, "Where the native
// API and the draft differ").
const NO_DOCUMENT_NATIVE = DOCUMENT_NATIVE ? false
  : `Chromium ${BROWSER_VERSION} has no native document.modelContext to compare with (156's is)`;
test('document.modelContext.executeTool(tool, input, {signal}): same results, rejections, events and calls of execute as native', { skip: NO_DOCUMENT_NATIVE }, (t) => checked(['A', 'B', 'C'], async () => {
    // Toolgate's polyfill (B) cannot tell which browser it is in, and fires
    // the two events at window too, as 148 does; wrapping 156's (C), it
    // fires them where 156 does. Every case: all else equal.
    const withoutWindow = (outcome) => ({ ...outcome, log: outcome.log.filter((line) => !line.startsWith('window:')) });
    const polyfillWindow = (native, toolgate) => assert.deepStrictEqual(withoutWindow(toolgate), withoutWindow(native));
    // 156 logs an execute that throws or rejects to the console (no page
    // error, which the cases' logs would show); Toolgate does not.
    const loggedByNative = browsers.A.expectErrors(/ WebMCP tool execution failed: /);
    // JSON text as input: 156 refuses it, and so does Toolgate wrapping it;
    // its polyfill runs it, as the page polyfills it stands in for do
    // (page-polyfills.test.mjs).
    const text = (native, toolgate, side) => {
      if (side === 'C') return polyfillWindow(native, toolgate);
      assert.equal(native.rejected.ctor, 'TypeError');
      return assert.equal(toolgate.resolved, 'echoed');
    };
    const { a, c } = await compare(t, 'documentExecute', new Proxy({}, { get: (_, id) => (id === 'input.text' ? text : polyfillWindow) }));
    for (const [id, outcome] of Object.entries(c)) assert.deepStrictEqual(outcome.log, a[id].log, `${id}: C fires events where 156 does not`);
    assert.deepStrictEqual(loggedByNative().map((line) => line.replace(/^.*: WebMCP/, 'WebMCP')),
      ['WebMCP tool execution failed: Uncaught Error: boom', 'WebMCP tool execution failed: Uncaught TypeError: nope']);
    // The native facts the comparison leans on.
    assert.equal(a.string.resolved, 'plain string');
    assert.equal(a.object.resolved, '{"a":1}');
    assert.deepStrictEqual(a.echo.calls[0].options, ['signal']);
    assert.equal(a['signal.abortedMidRun'].rejected.name, 'AbortError');
    assert.ok(a['signal.abortedMidRun'].log.includes('modelContext:toolcancel:x.slow:false:false'), a['signal.abortedMidRun'].log.join('\n'));
}));

// WPT's declarative/execute_tool_submit_from_js waits for its form tool so:
// getTools(), then a toolchange listener. The toolchange queued after the
// answer must come after the page's reaction to it (events.js, queueTask).
test('document.modelContext: a toolchange queued after getTools() answers is heard by a listener added on the answer, as native', (t) => checked(['A', 'B', 'C'], async () => {
  const expected = ['getTools answered: none', 'toolchange after the answer: heard', 'registerTool resolved'];
  if (DOCUMENT_NATIVE) {
    const { a } = await compare(t, 'documentOrder');
    assert.deepStrictEqual(a.order, expected);
  }
  for (const side of TOOLGATE) assert.deepStrictEqual((await run(side, 'documentOrder')).order, expected, `side ${side}`);
}));

// The same cases on Toolgate's document.modelContext on either browser: the
// draft's facts, which on 156 the comparison above holds to the browser's own.
test('Toolgate (B, C): executeTool gives execute its own signal, an aborted caller rejects with the reason and fires toolcancel', (t) => checked(['B', 'C'], async () => {
  for (const side of TOOLGATE) {
    await t.test(`side ${side}`, async () => {
      const out = await run(side, 'documentExecute');
      assert.deepStrictEqual([out.string.resolved, out.object.resolved, out.number.resolved], ['plain string', '{"a":1}', '42']);
      assert.deepStrictEqual(out.echo.calls[0], { args: 2, input: '{}', keys: [], options: ['signal'], signal: true });
      assert.deepStrictEqual(out['input.object'].calls[0].input, '{"q":"x","deep":{"k":[true]}}');
      assert.equal(out['input.number'].rejected.ctor, 'TypeError');
      assert.deepStrictEqual(out['signal.alreadyAborted'], { threw: false, isPromise: true, rejected: { ctor: 'DOMException', name: 'AbortError', message: 'signal is aborted without reason' }, log: ['returned'], calls: [] });
      const mid = out['signal.abortedMidRun'];
      assert.equal(mid.rejected.name, 'AbortError');
      assert.ok(mid.log.includes("execute's signal aborted: AbortError"), mid.log.join('\n'));
      assert.ok(mid.log.includes('modelContext:toolcancel:x.slow:false:false'), mid.log.join('\n'));
      assert.deepStrictEqual(out['signal.reason'].rejected, { ctor: 'RangeError', name: 'RangeError', message: 'changed my mind' });
      assert.equal(out.throwsError.rejected.name, 'UnknownError');
    });
  }
}));

// A tool's inputSchema at document.modelContext (document-schemas.js).
// Every schema registers, as 156 registers it: a schema outside the subset
// an unmerged proposal (PR 289) would allow gets a lint note in the palette,
// never a TypeError. And executeTool runs every input, as 156 runs it: the
// DataError that proposal adds for input the schema refuses is never an
// error a page sees (docs/classes.md, "What a page may register").
const REFUSED_BY_THE_PROPOSAL = ['missingRequired', 'wrongType', 'overMaximum', 'notInteger', 'notInEnum',
  'patternMismatch', 'tooShort', 'unknownProperty', 'badItem', 'notADate'];
test('document.modelContext takes every schema 156 takes, and runs every input 156 runs, those a proposed check would refuse among them', (t) => checked(['A', 'B', 'C'], async () => {
  const native = DOCUMENT_NATIVE ? await run('A', 'documentSchemas') : null;
  for (const side of TOOLGATE) {
    await t.test(`side ${side}`, async () => {
      const { registered, executed } = await run(side, 'documentSchemas');
      // Those outside the proposed subset (`no.*`: format, $ref, $defs,
      // additionalProperties, a pattern JavaScript cannot read …) among them.
      assert.ok(Object.keys(registered).filter((id) => id.startsWith('no.')).length >= 10);
      for (const [id, outcome] of Object.entries(registered)) {
        assert.deepStrictEqual(outcome, { rejected: null, listed: true }, `${id}: registered, as 156 registers it`);
      }
      assert.deepStrictEqual(REFUSED_BY_THE_PROPOSAL.filter((id) => !executed[id]), [], 'every refused input was tried');
      for (const [id, outcome] of Object.entries(executed)) {
        assert.equal(outcome.resolved, 'ran', `${id}: runs (${JSON.stringify(outcome)})`);
        assert.equal(outcome.calls.length, 1, id);
        assert.deepStrictEqual(outcome.log, ['returned', 'toolactivated:e.strict'], id);
      }
      if (native) {
        for (const [id, outcome] of Object.entries(native.registered)) {
          assert.deepStrictEqual(outcome, { rejected: null, listed: true }, `156 ${id}`);
        }
        for (const [id, outcome] of Object.entries(native.executed)) {
          assert.deepStrictEqual(executed[id], outcome, `${id}: as 156 runs it`);
        }
      }
    });
  }
}));

// document.modelContext across the frame tree (tree.js): a parent and its
// same-origin child list each other's tools, get each other's toolchange,
// and run each other's tools where they were registered; and exposedTo.
// On 156, held to the browser's own; on both, to the draft's facts.
const treeFacts = (out, side) => {
  assert.deepStrictEqual(out.parentSees, ['c.tool@child', 'p.tool@parent'], `side ${side}`);
  assert.deepStrictEqual(out.childSees, ['c.tool@child', 'p.tool@parent'], `side ${side}`);
  assert.ok(out.afterChildRegisters.includes('parent:toolchange') && out.afterChildRegisters.includes('child:toolchange'), `side ${side}: ${out.afterChildRegisters}`);
  assert.deepStrictEqual(out.parentRunsChildTool, { value: 'child ran with {"x":1}' }, `side ${side}`);
  assert.ok(out.runLog.includes('child:toolactivated:c.tool') && !out.runLog.includes('parent:toolactivated:c.tool'), `side ${side}: ${out.runLog}`);
  assert.deepStrictEqual(out.afterFrameRemoved, ['p.tool@parent'], `side ${side}`);
};
test('document.modelContext across same-origin frames: getTools lists the tree, toolchange reaches it, executeTool runs where the tool lives', (t) => checked(['A', 'B', 'C'], async () => {
  for (const side of TOOLGATE) treeFacts(await run(side, 'tree'), side);
  if (DOCUMENT_NATIVE) {
    const a = await run('A', 'tree');
    treeFacts(a, 'A');
    // 156 itself sometimes gives a frame that has just loaded no toolchange
    // for its parent's first registration (seen twice in about six runs, however
    // long the page waits): that one step may lack the child's event on A;
    // Toolgate always fires it, as the draft says.
    const PARENT_FIRST = ['parent:toolchange', 'child:toolchange'];
    assert.ok([PARENT_FIRST.join(), 'parent:toolchange'].includes(a.afterParentRegisters.join()), a.afterParentRegisters.join());
    for (const side of TOOLGATE) {
      await t.test(`every outcome equals 156's own [${side}]`, async () => {
        const { afterParentRegisters, ...rest } = await run(side, 'tree');
        assert.deepStrictEqual(afterParentRegisters, PARENT_FIRST);
        const { afterParentRegisters: _first, ...native } = a;
        assert.deepStrictEqual(rest, native);
      });
    }
  }
}));

test('registerTool\'s exposedTo: a sequence of secure origins, else TypeError or SecurityError, and nothing registered', (t) => checked(['A', 'B', 'C'], async () => {
  for (const side of TOOLGATE) {
    const out = await run(side, 'exposedTo');
    for (const id of ['empty', 'self', 'https', 'path', 'localhostPort', 'iterable']) assert.deepStrictEqual(out[id], { value: '<undefined>', listed: true }, `side ${side}: ${id}`);
    for (const id of ['insecure', 'star', 'notAUrl', 'number']) {
      assert.deepStrictEqual([out[id].error.name, out[id].error.message, out[id].listed], ['SecurityError', 'Only secure origins are allowed in the exposedTo list.', false], `side ${side}: ${id}`);
    }
    for (const id of ['string', 'object', 'nullValue']) assert.deepStrictEqual([out[id].error.name, out[id].listed], ['TypeError', false], `side ${side}: ${id}`);
    assert.equal(out.badNameAndOrigin, 'InvalidStateError', `side ${side}`);
  }
  if (DOCUMENT_NATIVE) await compare(t, 'exposedTo');
}));

// The permissions policy's "tools" feature (default 'self'): a cross-origin
// frame may use document.modelContext only with allow="tools", where the
// browser knows the feature (156 with its WebMCP on: A and C). Elsewhere
// nothing says it is not allowed, and Toolgate lets every frame use it.
async function framePolicy(side) {
  const page = await browsers[side].context.newPage();
  try {
    await page.goto(server.url('diff.localhost', '/diff.html'));
    const hosts = { plain: 'other.localhost', allowed: 'third.localhost' };
    await page.evaluate(async ([plain, allowed]) => {
      for (const [src, allow] of [[plain, ''], [allowed, 'tools']]) {
        const frame = document.createElement('iframe');
        if (allow) frame.allow = allow;
        frame.src = src;
        await new Promise((done) => { frame.onload = done; document.body.append(frame); });
      }
    }, [server.url(hosts.plain, '/child.html'), server.url(hosts.allowed, '/child.html')]);
    const out = {};
    for (const [which, host] of Object.entries(hosts)) {
      const frame = page.frames().find((f) => f.url().includes(host));
      out[which] = await frame.evaluate(async () => {
        const settle = (p) => p.then(() => 'ok', (error) => `${error.name}: ${error.message}`);
        return {
          register: await settle(document.modelContext.registerTool({ name: 'f.tool', description: 'A frame tool', execute: () => 'ran' })),
          getTools: await settle(document.modelContext.getTools()),
        };
      });
    }
    return out;
  } finally {
    await page.close();
  }
}
test('a cross-origin frame uses WebMCP only where the permissions policy allows "tools"', (t) => checked(['A', 'B', 'C'], async () => {
  const refused = 'NotAllowedError: Access to the feature "tools" is disallowed by permissions policy.';
  const open = { register: 'ok', getTools: 'ok' };
  const policed = DOCUMENT_NATIVE ? ['A', 'C'] : [];
  for (const side of DOCUMENT_NATIVE ? ['A', ...TOOLGATE] : TOOLGATE) {
    await t.test(`side ${side}`, async () => {
      const out = await framePolicy(side);
      assert.deepStrictEqual(out.allowed, open);
      assert.deepStrictEqual(out.plain, policed.includes(side) ? { register: refused, getTools: refused } : open);
    });
  }
}));

// exposedTo across origins (156): a frame of another origin, allowed "tools",
// exposes a tool to its parent and the parent one to it. The browser lists
// them in getTools({fromOrigins}) and fires toolchange for them; wrapping it,
// Toolgate (C) takes both from the browser's own object (cross-origin.js). A
// tool exposed to a third origin is listed to neither. (Toolgate's polyfill, B,
// reaches same-origin frames only: docs/classes.md.)
async function crossOrigin(side) {
  const page = await browsers[side].context.newPage();
  try {
    await page.goto(server.url('diff.localhost', '/diff.html'));
    const childUrl = server.url('third.localhost', '/child.html');
    const parentOrigin = new URL(page.url()).origin;
    const childOrigin = new URL(childUrl).origin;
    await page.evaluate(async (src) => {
      window.xoLog = [];
      document.modelContext.addEventListener('toolchange', () => window.xoLog.push('toolchange'));
      const frame = document.createElement('iframe');
      frame.allow = 'tools';
      frame.src = src;
      await new Promise((done) => { frame.onload = done; document.body.append(frame); });
    }, childUrl);
    const child = page.frames().find((f) => f.url() === childUrl);
    await child.evaluate(() => {
      window.xoLog = [];
      document.modelContext.addEventListener('toolchange', () => window.xoLog.push('toolchange'));
    });
    const names = (tools) => tools.map((tool) => `${tool.name}@${tool.origin}`);
    const heard = page.evaluate(() => new Promise((done) => document.modelContext.addEventListener('toolchange', done, { once: true })));
    await child.evaluate(async ([parent]) => {
      await document.modelContext.registerTool({ name: 'x.hidden', description: 'Exposed to a third origin', execute: () => 'no' }, { exposedTo: ['http://nowhere.localhost'] });
      await document.modelContext.registerTool({ name: 'x.child', description: 'Exposed to the parent', execute: () => 'child ran' }, { exposedTo: [parent] });
    }, [parentOrigin]);
    await heard;
    const out = {};
    out.parentSees = await page.evaluate(async ([from]) => (await document.modelContext.getTools({ fromOrigins: [from] }))
      .map((tool) => `${tool.name}@${tool.origin}`), [childOrigin]);
    out.parentSeesWithout = names(await page.evaluate(async () => (await document.modelContext.getTools()).map(({ name, origin }) => ({ name, origin }))));
    const childHeard = child.evaluate(() => new Promise((done) => document.modelContext.addEventListener('toolchange', done, { once: true })));
    await page.evaluate(async ([to]) => {
      await document.modelContext.registerTool({ name: 'x.parent', description: 'Exposed to the child', execute: () => 'parent ran' }, { exposedTo: [to] });
    }, [childOrigin]);
    await childHeard;
    out.childSees = await child.evaluate(async ([from]) => (await document.modelContext.getTools({ fromOrigins: [from] }))
      .map((tool) => `${tool.name}@${tool.origin}`), [parentOrigin]);
    out.badOrigins = await page.evaluate(() => document.modelContext.getTools({ fromOrigins: ['not a url'] })
      .then((tools) => tools.map((tool) => tool.name), (error) => `${error.name}: ${error.message}`));
    return { out, parentOrigin, childOrigin };
  } finally {
    await page.close();
  }
}
test('exposedTo across origins: a frame of another origin and its parent list and hear what they expose to each other, as the browser does', { timeout: 60_000, skip: !DOCUMENT_NATIVE && 'Chromium 148 has no document.modelContext of its own to hold Toolgate to' }, (t) => checked(['A', 'C'], async () => {
  const native = await crossOrigin('A');
  const { parentOrigin: p, childOrigin: c } = native;
  assert.deepStrictEqual(native.out.parentSees, [`x.child@${c}`], 'the browser itself: the parent sees the exposed tool');
  assert.deepStrictEqual(native.out.childSees, [`x.child@${c}`, `x.hidden@${c}`, `x.parent@${p}`], 'the browser itself: the child sees its own and the exposed tool');
  const wrapped = await crossOrigin('C');
  assert.deepStrictEqual(wrapped.out, native.out);
}));

// Results the native API cannot serialise crash its renderer (notes/webmcp-native.md):
// never on A. Through Toolgate they reject, and the page lives on.
test('Toolgate (B, C): unserialisable results make executeTool reject; the page keeps working', (t) => checked(['B', 'C'], async () => {
    const UNSERIALISABLE = ['un.bigint', 'un.cyclic', 'un.symbol', 'un.toJSONthrows'];
    const check = (out, where) => {
      for (const name of UNSERIALISABLE) {
        assert.deepStrictEqual(out.results[name], {
          rejected: { ctor: 'DOMException', name: 'UnknownError', message: INVOCATION_FAILED },
        }, `${where}: ${name}`);
      }
      assert.deepStrictEqual(out.results['un.ok'], { resolved: 'still fine' }, where);
      assert.equal(out.okAfter, 'still fine', where);
      assert.deepStrictEqual(out.listedAfter, [...UNSERIALISABLE.slice(0, 2), 'un.ok', ...UNSERIALISABLE.slice(2)], where);
    };
    for (const side of TOOLGATE) {
      await t.test(`through navigator.modelContextTesting [${side}]`, async () => check(await run(side, 'unserializable'), side));
    }
    // On C the browser's own agent calls Toolgate's native copies: the real crash risk.
    // The timeout: since native calls are gated (a card asks the person), a call no card answers waits for ever.
    await t.test('through the native API, on Toolgate\'s native copies [C]', { skip: NO_LEGACY_NATIVE, timeout: 20_000 }, async () => {
      const out = await run('C', 'nativeUnserializable');
      assert.equal(out.distinct, true, 'the init script did not capture the native modelContextTesting');
      assert.deepStrictEqual(out.nativeNames, out.listedAfter, 'Toolgate registered a copy of each tool natively');
      check(out, 'native API on C');
      // Chromium reports an execute that fails to the page as an uncaught error
      // (an ErrorEvent the page cancels): one per refused result, nothing else.
      assert.equal(out.errorEvents.length, UNSERIALISABLE.length, out.errorEvents.join('\n'));
    });
}));

test('Toolgate (C): the native API lists the same tools as Toolgate, and loses an aborted one', { skip: NO_LEGACY_NATIVE }, () => checked(['C'], async () => {
    const out = await run('C', 'mirror');
    assert.ok(out.nativeBeforeAbort.includes('m.aborted'), `native copies: ${out.nativeBeforeAbort.join(', ')}`);
    const names = (list) => list.map((e) => Object.fromEntries(e).name);
    assert.deepStrictEqual(names(out.native), names(out.toolgate), 'tools Toolgate lists but did not register natively, or the reverse');
    assert.deepStrictEqual(out.native, out.toolgate);
}));

test('Toolgate (B, C): document.modelContext rejects as native throws, and getTools() lists the draft\'s shape', (t) => checked(['A', 'B', 'C'], async () => {
    // 148: the errors its navigator.modelContext throws; 156: its own document.modelContext.
    const nativeDocument = DOCUMENT_NATIVE ? await run('A', 'document') : null;
    const native = nativeDocument
      ? Object.fromEntries(Object.entries(nativeDocument.cases).map(([id, outcome]) => [id, outcome.rejected ?? {}]))
      : await run('A', 'register');
    for (const side of TOOLGATE) {
      await t.test(`side ${side}`, async () => {
        const out = await run(side, 'document');
        assert.equal(out.present, true);
        assert.deepStrictEqual(out.first, { syncThrew: false, isPromise: true, resolved: '<undefined>' });
        for (const [id, outcome] of Object.entries(out.cases)) {
          assert.equal(outcome.syncThrew, false, `${id}: threw instead of rejecting`);
          assert.equal(outcome.isPromise, true, id);
          assert.ok(outcome.rejected, `${id}: did not reject`);
          assert.deepStrictEqual(
            [outcome.rejected.ctor, outcome.rejected.name],
            [native[id].ctor, native[id].name],
            `${id}: rejects with another error than native throws`,
          );
        }
        if (nativeDocument) assert.deepStrictEqual(out.annotations, nativeDocument.annotations, 'annotations read as 156 reads them');
        else assert.equal(Object.keys(out.annotations).length, 4, 'every annotations case listed');
        const listed = out.getTools;
        assert.equal(listed.syncThrew, false);
        assert.equal(listed.isPromise, true);
        assert.deepStrictEqual(listed.names, ['Dm.z', 'dm.B', 'dm.a', 'dm.b', 'dm.c']);
        const byName = Object.fromEntries(listed.entries.map((e) => [e.name, e]));
        const { hasInputSchema, ...plain } = byName['dm.a'];
        assert.deepStrictEqual(plain, {
          name: 'dm.a', title: '', description: 'Tool dm.a', inputSchemaType: 'undefined',
          inputSchema: '<undefined>', schemaIsCopy: true, windowIsWindow: true, origin: listed.origin,
        });
        assert.equal(byName['dm.B'].title, '');
        assert.equal(byName['dm.b'].title, '');
        assert.equal(byName['dm.c'].title, 'Pretty C');
        assert.deepStrictEqual(byName['dm.c'].inputSchema, listed.schemaGiven);
        assert.equal(byName['dm.c'].inputSchemaType, 'object');
        assert.equal(byName['dm.c'].schemaIsCopy, true);
        assert.deepStrictEqual(byName['Dm.z'].inputSchema, {});
        if (nativeDocument) {
          // Toolgate's entries have an inputSchema member even when it is undefined.
          const shape = (entries) => entries.map(({ hasInputSchema, ...rest }) => rest);
          assert.deepStrictEqual(shape(listed.entries), shape(nativeDocument.getTools.entries), 'getTools() differs from native');
        }
      });
    }
}));
