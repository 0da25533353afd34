// What WPT's webmcp/ tests check that a page script can do, held to Chromium
// 156's own WebMCP: the same page script (tests/pages/differential/wpt.js)
// runs on
//   A: Chromium's own document.modelContext alone (no Toolgate);
//   B: Toolgate's polyfill alone;
//   C: Toolgate wrapping the browser's own;
// and B and C must give what A gives, but where the polyfill differs on
// purpose (docs/differences.md). tests/README.md's WPT
// section says which subtests each case stands for. The page is served on a
// real host name that the browser is told to treat as secure, as wptserve's
// web-platform.test is; a second such origin and a third, insecure one are
// what `exposedTo` names.
//
// On Chromium 148, which has no document.modelContext of its own, B alone
// runs, held to what 156 gives (or, for exposedTo-cross-origin-child, to
// what WPT expects, which 156 gives).
//
// Run: TOOLGATE_BROWSER=156 node --test tests/e2e/wpt-differential.test.mjs
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSER_VERSION, launch } from '../support/browser.mjs';
import { serve } from '../support/server.mjs';
import { until } from '../support/until.mjs';
import { auditOnce } from '../support/audit.mjs';
import { browserAgent } from '../support/browser-agent.mjs';
import { cardWatcher, closeCard, readCard } from '../support/cards.mjs';
import { sendAsFrame } from '../support/relay-world.mjs';

const NATIVE = BROWSER_VERSION >= 156;
const SIDES = NATIVE
  ? { A: { extension: false, native: true }, B: { extension: true, native: false }, C: { extension: true, native: true } }
  : { B: { extension: true, native: false } };
const TOOLGATE = NATIVE ? ['B', 'C'] : ['B'];
const NOT_AN_OBJECT = "Failed to execute 'executeTool' on 'ModelContext': invalid input object: value is not an object";

let server;
const browsers = {};

before(async () => {
  server = await serve('tests/pages/differential');
  const secure = `--unsafely-treat-insecure-origin-as-secure=${server.url('one.test', '')},${server.url('two.test', '')}`;
  await Promise.all(Object.entries(SIDES).map(async ([side, options]) => {
    browsers[side] = await launch({ ...options, args: [secure, '--host-resolver-rules=MAP *.test 127.0.0.1'] });
  }));
});

after(async () => {
  await Promise.all(Object.values(browsers).map((browser) => browser.close()));
  await server?.close();
});

// One group on one side, in a fresh page; then no page error or console
// error may have come.
async function run(side, group, arg) {
  const page = await browsers[side].context.newPage();
  try {
    await page.goto(server.url('one.test', '/wpt.html'));
    await page.waitForFunction(() => document.modelContext !== undefined);
    return JSON.parse(await page.evaluate(([name, given]) => window.wpt.run(name, given), [group, arg]));
  } finally {
    await page.close();
    await browsers[side].assertNoErrors();
  }
}

// A's outcome where 156 runs, else what 156 was measured to give (`measured`).
async function native(group, measured, arg) {
  if (!NATIVE) return measured;
  const got = await run('A', group, arg);
  assert.deepStrictEqual(got, measured, `Chromium ${BROWSER_VERSION} itself`);
  return got;
}

const typeError = { rejected: { ctor: 'TypeError', name: 'TypeError', message: NOT_AN_OBJECT }, seen: [] };

test('imperative/object-arguments: executeTool takes an object (arrays too) and refuses a primitive with a TypeError, as 156', async () => {
  const expected = await native('inputs', {
    text: typeError, objectText: typeError, arrayText: typeError, stringText: typeError, empty: typeError,
    number: typeError, boolean: typeError, null: typeError,
    array: { resolved: 'ran', seen: ['[1,2,3]'] },
    toJsonUndefined: { rejected: { ctor: 'TypeError', name: 'TypeError', message: "Failed to execute 'executeTool' on 'ModelContext': invalid input object: toJSON() returns undefined" }, seen: [] },
  });
  for (const side of TOOLGATE) {
    const got = await run(side, 'inputs');
    if (side === 'B') {
      // On purpose: the polyfill also runs an object's JSON text, as the
      // page polyfills it stands in for take it (page-polyfills.test.mjs).
      assert.deepStrictEqual(got.objectText, { resolved: 'ran', seen: ['{"q":1}'] });
      assert.deepStrictEqual(got.arrayText, { resolved: 'ran', seen: ['[1,2]'] });
      assert.deepStrictEqual(got, { ...expected, objectText: got.objectText, arrayText: got.arrayText }, `side ${side}`);
    } else {
      assert.deepStrictEqual(got, expected, `side ${side}`);
    }
  }
});

test('imperative/executeTool-abort: the call rejects with the reason before the tool\'s own signal aborts, then toolcancel fires, as 156', async () => {
  const expected = await native('abortOrder', {
    events: ['tool started', 'execution rejected', 'signal aborted', 'toolcancel'],
    rejection: 'custom reason',
    reason: { ctor: 'DOMException', name: 'AbortError', message: 'signal is aborted without reason' },
  });
  for (const side of TOOLGATE) assert.deepStrictEqual(await run(side, 'abortOrder'), expected, `side ${side}`);
});

test('imperative/executeTool-abort: aborted in the task that called, the tool has run, and the call stays rejected when it resolves, as 156', async () => {
  const expected = await native('abortThenResolve', {
    outcome: { rejected: { ctor: 'DOMException', name: 'AbortError', message: 'signal is aborted without reason' } },
    ran: true,
    lateValue: 'late value',
  });
  for (const side of TOOLGATE) assert.deepStrictEqual(await run(side, 'abortThenResolve'), expected, `side ${side}`);
});

test('imperative/executeTool-abort: two runs of one tool have signals of their own, as 156', async () => {
  const expected = await native('abortOneOfTwo', {
    one: { rejected: { ctor: 'string', value: 'cancel 1' } },
    aborted: [true, false],
    two: { resolved: 'second result' },
  });
  for (const side of TOOLGATE) assert.deepStrictEqual(await run(side, 'abortOneOfTwo'), expected, `side ${side}`);
});

// 156 resolves this call with the page's answer, where the test expects the
// rejection; wrapping 156, Toolgate hands form calls to it (native-forms.js).
test('declarative/form_removal_submit_crash: a form removed as its listener answers cancels the call in the polyfill; wrapping, as 156', async () => {
  const polyfill = await run('B', 'formRemoved');
  assert.deepStrictEqual(polyfill, {
    outcome: { rejected: { ctor: 'DOMException', name: 'UnknownError', message: 'Tool execution cancelled, since tool definition was updated' } },
    submitted: true,
  });
  if (NATIVE) assert.deepStrictEqual(await run('C', 'formRemoved'), await run('A', 'formRemoved'));
});

test('imperative/exposedTo: registerTool takes the origins the browser counts secure, its command line included, as 156', async () => {
  const others = {
    flagged: [server.url('two.test', '')],
    insecure: [server.url('three.test', '')],
    secure: ['https://elsewhere.example', 'http://127.0.0.1:1'],
    mixed: [server.url('two.test', ''), server.url('three.test', '')],
  };
  const securityError = { rejected: { ctor: 'DOMException', name: 'SecurityError', message: 'Only secure origins are allowed in the exposedTo list.' }, listed: false };
  const taken = { listed: true };
  const expected = await native('exposedTo', {
    own: taken, flagged: taken, insecure: securityError, secure: taken, mixed: securityError,
  }, others);
  for (const side of TOOLGATE) {
    const got = await run(side, 'exposedTo', others);
    if (side === 'B') {
      // Without a WebMCP of the browser's to ask, no script can learn
      // whether another origin is on the command line's list: the polyfill
      // refuses it (docs/differences.md).
      assert.deepStrictEqual(got, { ...expected, flagged: securityError }, `side ${side}`);
    } else {
      assert.deepStrictEqual(got, expected, `side ${side}`);
    }
  }
});

// exposedTo-cross-origin-child's first subtest, up to its call, on origins
// the command line marks secure: the child frame hears a toolchange for each
// tool exposed to it and lists them, and nothing of how Toolgate asked the
// browser (native.js, nativeExposedCheck).
// The wpt page, with a child frame of the second origin, allowed "tools".
async function withChild(side) {
  const page = await browsers[side].context.newPage();
  await page.goto(server.url('one.test', '/wpt.html'));
  const childUrl = server.url('two.test', '/child.html');
  await page.evaluate(async (src) => {
    const frame = document.createElement('iframe');
    frame.allow = 'tools';
    frame.src = src;
    await new Promise((done) => { frame.onload = done; document.body.append(frame); });
  }, childUrl);
  return { page, child: page.frames().find((frame) => frame.url() === childUrl) };
}

async function childSees(side) {
  const { page, child } = await withChild(side);
  try {
    await child.evaluate(() => {
      window.heard = 0;
      document.modelContext.addEventListener('toolchange', () => { window.heard += 1; });
    });
    const parentOrigin = new URL(page.url()).origin;
    const childOrigin = new URL(child.url()).origin;
    const heard = child.evaluate(() => new Promise((done) => document.modelContext.addEventListener('toolchange', done, { once: true })));
    const registered = await page.evaluate((to) => document.modelContext.registerTool(
      { name: 'wpt.parent', description: 'Exposed to the child', execute: () => 'hello' }, { exposedTo: [to] },
    ).then(() => 'registered', (error) => `${error.name}: ${error.message}`), childOrigin);
    if (registered !== 'registered') return { registered };
    await heard;
    // A second tool, heard after whatever the first brought.
    await page.evaluate((to) => document.modelContext.registerTool(
      { name: 'wpt.parent.2', description: 'Exposed to the child too', execute: () => 'hello' }, { exposedTo: [to] },
    ), childOrigin);
    await until(child, async (from) => (await document.modelContext.getTools({ fromOrigins: [from] }))
      .some((tool) => tool.name === 'wpt.parent.2'), parentOrigin, 'the child listing wpt.parent.2');
    const listed = await child.evaluate(async (from) => (await document.modelContext.getTools({ fromOrigins: [from] }))
      .map((tool) => `${tool.name}@${tool.origin}`), parentOrigin);
    return { registered, listed, heard: await child.evaluate(() => window.heard) };
  } finally {
    await page.close();
    await browsers[side].assertNoErrors();
  }
}
test('imperative/exposedTo-cross-origin-child: a child of an origin the command line marks secure sees the tool exposed to it, and no more, as 156', { skip: !NATIVE && 'Chromium 148 has no WebMCP of its own to wrap, nor to hold Toolgate to: the polyfill\'s own tests of these subtests run there (below)' }, async () => {
  const expected = await childSees('A');
  assert.equal(expected.registered, 'registered');
  assert.equal(expected.listed.length, 2, expected.listed.join(', '));
  assert.deepStrictEqual(await childSees('C'), expected);
});

// exposedTo-cross-origin-child's first two subtests, their call: a frame
// runs the tool a frame of the other origin exposed to it through
// document.modelContext's executeTool (`parentOwns`: the child runs the
// parent's, else the parent the child's). That is a page's call, not an
// agent's (docs/agents.md, "Pages calling each other's tools"): wrapping 156,
// it resolves as on 156 alone, and no card opens (`cards`, side C: whichever
// comes first). Gives what the caller got, what the tool got, and the
// toolactivated events its frame heard.
async function crossCall(side, { cards = null, parentOwns = true } = {}) {
  const { page, child } = await withChild(side);
  const [owner, caller] = parentOwns ? [page.mainFrame(), child] : [child, page.mainFrame()];
  const ownerOrigin = new URL(owner.url()).origin;
  await owner.evaluate((to) => {
    window.ran = [];
    window.activated = [];
    document.modelContext.addEventListener('toolactivated', (event) => window.activated.push(event.toolName));
    return document.modelContext.registerTool({
      name: 'wpt.exposed',
      description: 'Exposed to the other frame',
      execute: (input, options) => {
        window.ran.push({ input, signal: options?.signal instanceof AbortSignal });
        return 'hello';
      },
    }, { exposedTo: [to] });
  }, new URL(caller.url()).origin);
  await until(caller, async (from) => (await document.modelContext.getTools({ fromOrigins: [from] }))
    .some((tool) => tool.name === 'wpt.exposed'), ownerOrigin, 'the caller listing wpt.exposed');
  const call = caller.evaluate(async (from) => {
    const tools = await document.modelContext.getTools({ fromOrigins: [from] });
    const tool = tools.find((t) => t.name === 'wpt.exposed');
    return document.modelContext.executeTool(tool, { q: 1, words: ['a', 'b'] })
      .then((resolved) => ({ resolved }), (error) => ({ rejected: `${error.name}: ${error.message}` }));
  }, ownerOrigin);
  const outcome = cards ? await cards.race(call) : { reply: await call };
  if (outcome.card) return { page, card: outcome.card };
  await owner.waitForFunction(() => window.activated.length > 0);
  const got = { outcome: outcome.reply, ran: await owner.evaluate(() => window.ran), activated: await owner.evaluate(() => window.activated) };
  return { page, got };
}

// The audit's entries of the agents' log that say `why`, once one is there
// (background/audit.js writes them a moment after the call).
async function audited(browser, why) {
  const entries = await auditOnce(await browser.worker(), { what: 'decision', why, log: 'agents' });
  return entries.filter((entry) => typeof entry.why === 'string' && entry.why.includes(why));
}

test('imperative/exposedTo-cross-origin-child: a frame runs the tool a frame of the other origin exposed to it, as 156, with no card: a page\'s call, not an agent\'s', { skip: !NATIVE && 'Chromium 148 has no WebMCP of its own to wrap, nor to hold Toolgate to: the polyfill\'s own tests of these subtests run there (below)' }, async () => {
  const one = new URL(server.url('one.test', '')).origin;
  const two = new URL(server.url('two.test', '')).origin;
  const cards = cardWatcher(browsers.C.context);
  for (const [parentOwns, caller, site] of [[true, two, one], [false, one, two]]) {
    const alone = await crossCall('A', { parentOwns });
    await alone.page.close();
    assert.deepStrictEqual(alone.got.outcome, { resolved: 'hello' });
    const wrapped = await crossCall('C', { cards, parentOwns });
    try {
      assert.equal(wrapped.card, undefined, `a card opened: ${wrapped.card && JSON.stringify(await readCard(wrapped.card))}`);
      assert.deepStrictEqual(wrapped.got, alone.got);
      const entries = await audited(browsers.C, `called by the page at ${caller}`);
      assert.deepStrictEqual(
        entries.map((entry) => ({ by: entry.by, tool: entry.tool, site: entry.site, decision: entry.decision })),
        [{ by: `the page at ${caller}`, tool: 'wpt.exposed', site, decision: 'run' }],
      );
    } finally {
      if (wrapped.card) await closeCard(wrapped.card);
      await wrapped.page.close();
    }
  }
  await browsers.C.assertNoErrors();
});

test('imperative/exposedTo-cross-origin-child: the browser\'s agent calling the tool the parent exposed, with the child\'s very arguments, is still gated', { skip: !NATIVE && 'no browser agent without a WebMCP of the browser\'s' }, async () => {
  const cards = cardWatcher(browsers.C.context);
  const { page, got, card: early } = await crossCall('C', { cards });
  assert.equal(early, undefined, 'the child\'s own call opened no card');
  assert.deepStrictEqual(got.outcome, { resolved: 'hello' });
  const refused = browsers.C.expectErrors(/Toolgate refused this call/);
  const agent = await browserAgent(browsers.C.context, page);
  try {
    const call = agent.call('wpt.exposed', { q: 1, words: ['a', 'b'] });
    const card = await cards.next();
    assert.equal((await readCard(card)).chat, "Asked by the browser's agent in this tab");
    await closeCard(card);
    const answer = await call;
    assert.equal(answer.ok, false, JSON.stringify(answer));
    assert.equal((await page.evaluate(() => window.ran)).length, 1, 'the tool ran for the child alone');
  } finally {
    refused();
    await agent.detach();
    await page.close();
  }
  await browsers.C.assertNoErrors();
});

// ---- exposedTo-cross-origin-child, all five subtests, with Toolgate's polyfill
// Where the browser has no WebMCP to carry them (148; 156 with its WebMCP
// off), the service worker lists, announces and runs the tools other
// origins' frames expose (exposed-frames.js, background/exposed.js), with
// the permissions policy's "tools" read from each frame's container. Each
// subtest's outcome, in the terms WPT checks, is held to what WPT expects,
// which 156 alone gives (side A, checked where 156 runs). The origins are
// `*.localhost` ones, which the Secure Contexts rules count secure on every
// side (the polyfill cannot learn of an origin the command line adds).
const LOCAL = { parent: 'one.localhost', child: 'two.localhost', other: 'three.localhost' };
const QUIET_MS = 1500; // how long a frame must hear no toolchange
const POLYFILL = NATIVE ? ['A', 'B'] : ['B'];

// The wpt page on the first origin with a child frame of the second,
// `allow`ed "tools" unless `allow` is null.
async function localTree(side, allow = 'tools *') {
  const page = await browsers[side].context.newPage();
  await page.goto(server.url(LOCAL.parent, '/wpt.html'));
  const childUrl = server.url(LOCAL.child, '/child.html');
  await page.evaluate(async ([src, policy]) => {
    const frame = document.createElement('iframe');
    if (policy !== null) frame.allow = policy;
    frame.src = src;
    await new Promise((done) => { frame.onload = done; document.body.append(frame); });
  }, [childUrl, allow]);
  const child = page.frames().find((frame) => frame.url() === childUrl);
  const origin = (frame) => new URL(frame.url()).origin;
  return { page, parent: page.mainFrame(), child, origins: { parent: origin(page.mainFrame()), child: origin(child), other: new URL(server.url(LOCAL.other, '')).origin } };
}

// In `frame`: starts listening for the next toolchange (`window.next`
// settles 'fired', or 'timeout' after QUIET_MS once `quiet()` is called).
const listenNext = (frame) => frame.evaluate((ms) => {
  window.next = new Promise((done) => {
    document.modelContext.addEventListener('toolchange', () => done('fired'), { once: true });
    window.quiet = () => setTimeout(() => done('timeout'), ms);
  });
}, QUIET_MS);
const heardNext = (frame) => frame.evaluate(() => { window.quiet(); return window.next; });
// In `frame`: what getTools({fromOrigins: [from]}) lists of other origins'
// tools (the wpt page's own form tool aside), as name@origin.
const lists = (frame, from) => frame.evaluate((origin) => document.modelContext.getTools({ fromOrigins: [origin] })
  .then((tools) => tools.filter((tool) => tool.origin !== self.origin).map((tool) => `${tool.name}@${tool.origin}`),
    (error) => `${error.name}`), from);
// In `owner`: registers `name` exposed to `to`, its calls kept in
// window.ran and its toolactivated in window.activated; abort() ends it.
const registerExposed = (owner, name, to, result) => owner.evaluate(([tool, origins, value]) => {
  window.ran ??= [];
  window.activated ??= [];
  window.controllers ??= {};
  if (!window.heardActivated) {
    window.heardActivated = true;
    document.modelContext.addEventListener('toolactivated', (event) => window.activated.push(event.toolName));
  }
  window.controllers[tool] = new AbortController();
  return document.modelContext.registerTool({
    name: tool,
    description: `Exposed to ${origins.join(' ')}`,
    inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
    execute: (input, options) => {
      window.ran.push({ tool, input, signal: options?.signal instanceof AbortSignal });
      return value;
    },
  }, { exposedTo: origins, signal: window.controllers[tool].signal }).then(() => 'registered', (error) => `${error.name}: ${error.message}`);
}, [name, [to], result]);
const unregister = (owner, name) => owner.evaluate((tool) => window.controllers[tool].abort(), name);
// In `caller`: runs `name` of the frame of `from` as getTools lists it, or,
// with `window` given (`parent`), as a RegisteredTool made by hand.
const callExposed = (caller, from, name, input, byHand = false) => caller.evaluate(async ([origin, tool, given, hand]) => {
  const found = hand
    ? { name: tool, description: 'made by hand', origin, window: window.parent }
    : (await document.modelContext.getTools({ fromOrigins: [origin] })).find((t) => t.name === tool);
  if (!found) return { missing: tool };
  return document.modelContext.executeTool(found, given)
    .then((resolved) => ({ resolved }), (error) => ({ rejected: error.name }));
}, [from, name, input, byHand]);

async function parentExposesToChild(side) {
  const { page, parent, child, origins } = await localTree(side);
  try {
    await listenNext(child);
    const registered = await registerExposed(parent, 'parent_tool_exposed', origins.child, 'hello');
    const heardRegistration = await heardNext(child);
    const listed = await lists(child, origins.parent);
    const call = await callExposed(child, origins.parent, 'parent_tool_exposed', { query: 'q' });
    const ran = await parent.evaluate(() => window.ran);
    await parent.waitForFunction(() => window.activated.length > 0);
    const activated = await parent.evaluate(() => window.activated);
    await listenNext(child);
    await unregister(parent, 'parent_tool_exposed');
    const heardUnregistration = await heardNext(child);
    return { registered, heardRegistration, listed, call, ran, activated, heardUnregistration, after: await lists(child, origins.parent) };
  } finally {
    await page.close();
  }
}

test('imperative/exposedTo-cross-origin-child "Parent exposes tool to cross-origin child", with the polyfill: heard, listed, run with no card, gone, as 156', async () => {
  const one = new URL(server.url(LOCAL.parent, '')).origin;
  const two = new URL(server.url(LOCAL.child, '')).origin;
  const expected = {
    registered: 'registered',
    heardRegistration: 'fired',
    listed: [`parent_tool_exposed@${one}`],
    call: { resolved: 'hello' },
    ran: [{ tool: 'parent_tool_exposed', input: { query: 'q' }, signal: true }],
    activated: ['parent_tool_exposed'],
    heardUnregistration: 'fired',
    after: [],
  };
  const cards = cardWatcher(browsers.B.context);
  for (const side of POLYFILL) {
    const got = side === 'B' ? await cards.race(parentExposesToChild(side)) : { reply: await parentExposesToChild(side) };
    if (got.card) {
      const text = JSON.stringify(await readCard(got.card));
      await closeCard(got.card);
      assert.fail(`a card opened: ${text}`);
    }
    assert.deepStrictEqual(got.reply, expected, `side ${side}`);
    await browsers[side].assertNoErrors();
  }
  const entries = await audited(browsers.B, `called by the page at ${two}`);
  assert.deepStrictEqual(
    entries.map((entry) => ({ by: entry.by, tool: entry.tool, site: entry.site, decision: entry.decision })),
    [{ by: `the page at ${two}`, tool: 'parent_tool_exposed', site: one, decision: 'run' }],
  );
});

test('imperative/exposedTo-cross-origin-child "Cross-origin child exposes tool to parent", with the polyfill: heard, listed, run, gone, as 156', async () => {
  const two = new URL(server.url(LOCAL.child, '')).origin;
  for (const side of POLYFILL) {
    const { page, parent, child, origins } = await localTree(side);
    try {
      await listenNext(parent);
      assert.equal(await registerExposed(child, 'iframe_tool_exposed', origins.parent, 'hello from iframe'), 'registered');
      assert.equal(await heardNext(parent), 'fired', `side ${side}: the parent heard the child's tool`);
      assert.deepStrictEqual(await lists(parent, origins.child), [`iframe_tool_exposed@${two}`], `side ${side}`);
      assert.deepStrictEqual(await callExposed(parent, origins.child, 'iframe_tool_exposed', {}), { resolved: 'hello from iframe' }, `side ${side}`);
      await listenNext(parent);
      await unregister(child, 'iframe_tool_exposed');
      assert.equal(await heardNext(parent), 'fired', `side ${side}: the parent heard it go`);
      assert.deepStrictEqual(await lists(parent, origins.child), [], `side ${side}`);
    } finally {
      await page.close();
    }
    await browsers[side].assertNoErrors();
  }
});

test('imperative/exposedTo-cross-origin-child "…neither its own nor its iframe\'s" and "…neither its own nor its parent\'s", with the polyfill: nothing listed, heard or run, as 156', async () => {
  for (const side of POLYFILL) {
    const { page, parent, child, origins } = await localTree(side);
    try {
      // The parent's tool, exposed to a third origin.
      await listenNext(child);
      assert.equal(await registerExposed(parent, 'parent_tool', origins.other, 'hello'), 'registered');
      assert.equal(await heardNext(child), 'timeout', `side ${side}: the child heard of a tool not exposed to it`);
      assert.deepStrictEqual(await lists(child, origins.parent), [], `side ${side}`);
      // Asked for by hand, it does not run (156 finds no such tool for the child).
      const byHand = await callExposed(child, origins.parent, 'parent_tool', {}, true);
      assert.ok(byHand.rejected, `side ${side}: ${JSON.stringify(byHand)}`);
      await listenNext(child);
      await unregister(parent, 'parent_tool');
      assert.equal(await heardNext(child), 'timeout', `side ${side}`);
      // The child's tool, exposed to a third origin.
      await listenNext(parent);
      assert.equal(await registerExposed(child, 'iframe_tool', origins.other, 'hello'), 'registered');
      assert.equal(await heardNext(parent), 'timeout', `side ${side}: the parent heard of a tool not exposed to it`);
      assert.deepStrictEqual(await lists(parent, origins.child), [], `side ${side}`);
      assert.deepStrictEqual(await parent.evaluate(() => window.ran), [], `side ${side}: nothing ran`);
    } finally {
      await page.close();
    }
    await browsers[side].assertNoErrors();
  }
});

test('imperative/exposedTo-cross-origin-child "Cross-origin iframe without permissions policy…", with the polyfill: the child hears nothing and cannot run the tool', async () => {
  for (const side of POLYFILL) {
    const { page, parent, child, origins } = await localTree(side, null);
    try {
      await listenNext(child);
      assert.equal(await registerExposed(parent, 'parent_tool_no_policy', origins.child, 'hello'), 'registered');
      assert.equal(await heardNext(child), 'timeout', `side ${side}: a child without allow="tools" heard the tool`);
      const listed = await lists(child, origins.parent);
      // 156 refuses the child's getTools (NotAllowedError); on 148, which
      // knows no "tools" feature, the polyfill lets the child use WebMCP
      // for its own origin's tools, and lists no other origin's.
      if (side === 'A') assert.equal(listed, 'NotAllowedError');
      else assert.deepStrictEqual(listed, [], `side ${side}`);
      const byHand = await callExposed(child, origins.parent, 'parent_tool_no_policy', {}, true);
      assert.ok(byHand.rejected, `side ${side}: ${JSON.stringify(byHand)}`);
      assert.deepStrictEqual(await parent.evaluate(() => window.ran), [], `side ${side}: nothing ran`);
    } finally {
      await page.close();
    }
    await browsers[side].assertNoErrors();
  }
});

// Pages are hostile: a frame that sends the worker what it likes, past its
// shim (relay-world.mjs), lists and runs only the tools other origins'
// frames exposed to its own origin (the browser's sender), in the frame
// they are in; a message with a field of its own is refused whole.
test('with the polyfill, a frame past its shim lists and runs none of another origin\'s tools that were not exposed to it', async () => {
  const { page, parent, child, origins } = await localTree('B');
  try {
    assert.equal(await registerExposed(child, 'child_secret', origins.other, 'secret'), 'registered');
    await listenNext(parent);
    assert.equal(await registerExposed(child, 'child_shared', origins.parent, 'shared'), 'registered');
    assert.equal(await heardNext(parent), 'fired');
    const forge = (message) => sendAsFrame(page, JSON.stringify(message));
    const listed = await forge({ type: 'exposed_tools', call: 1, from_origins: [origins.child, origins.other] });
    assert.deepStrictEqual(listed.tools.map((tool) => `${tool.name}@${tool.origin} ${JSON.stringify(tool.path)}`), [`child_shared@${origins.child} [1]`]);
    for (const [what, forged] of [
      ['a tool not exposed to the caller', { origin: origins.child, name: 'child_secret', path: [1] }],
      ['its frame said to be of another origin', { origin: origins.other, name: 'child_secret', path: [1] }],
      ['another frame than the one it is in', { origin: origins.child, name: 'child_shared', path: [0] }],
      ['a frame that is not there', { origin: origins.child, name: 'child_shared', path: [1, 0] }],
    ]) {
      const answer = await forge({ type: 'exposed_run', call: 2, ...forged, arguments: {} });
      assert.equal(answer.ok, false, `${what}: ${JSON.stringify(answer)}`);
    }
    const extra = await forge({ type: 'exposed_run', call: 3, origin: origins.child, name: 'child_shared', path: [1], arguments: {}, caller: origins.other });
    assert.match(String(extra.error), /unknown field `caller`/);
    assert.deepStrictEqual(await child.evaluate(() => window.ran), [], 'nothing ran');
    assert.deepStrictEqual(await forge({ type: 'exposed_run', call: 4, origin: origins.child, name: 'child_shared', path: [1], arguments: { query: 'q' } }),
      { ok: true, json: '"shared"' });
    assert.deepStrictEqual(await child.evaluate(() => window.ran), [{ tool: 'child_shared', input: { query: 'q' }, signal: true }]);
  } finally {
    await page.close();
  }
  await browsers.B.assertNoErrors();
});
