// Interception and classification in real Chromium with the real extension:
// every registration path, every way a tool goes away, hostile declarations,
// many tools, a strict CSP, a cross-origin iframe, and the palette itself.
// Each test runs twice: with Toolgate's polyfill, and wrapping Chromium's
// native WebMCP (--enable-features=WebMCP,WebMCPTesting).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { entries, launch } from '../support/browser.mjs';
import { serve } from '../support/server.mjs';
import { sendAsFrame } from '../support/relay-world.mjs';

const byName = (palette) => Object.fromEntries(entries(palette).map((e) => [e.name, e]));

for (const native of [false, true]) {
  describe(native ? 'wrapping the native API' : "with Toolgate's polyfill", () => {
    let server;
    let browser;
    let n = 0;
    // A fresh page at a URL of its own (tabs are found by URL).
    const blank = () => browser.newPage(server.url('tools.localhost', `/blank.html?${++n}`));

    before(async () => {
      server = await serve('tests/pages/registration');
      browser = await launch({ native });
    });
    after(async () => {
      await browser?.close();
      await server?.close();
    });

    test('every registration path is intercepted and classed by docs/classes.md', async () => {
      const page = await blank();
      await page.evaluate(async () => {
        const schema = { type: 'object', properties: { q: { type: 'string' } } };
        await document.modelContext.registerTool({
          name: 'doc_object', description: 'd', inputSchema: schema, execute: () => 1,
        });
        await document.modelContext.registerTool('doc_positional', 'd', schema, () => 1);
        navigator.modelContext.registerTool({ name: 'nav_object', description: 'd', execute: () => 1 });
        navigator.modelContext.registerTool('nav_positional', 'd', schema, () => 1, { readOnlyHint: true });
        navigator.modelContext.provideContext({ tools: [{ name: 'provided', description: 'd', execute: () => 1 }] });
        await document.modelContext.registerSkill({ name: 'style', description: 'd', instructions: 'Be brief.' });
        navigator.modelContext.registerSkill({ name: 'legacy_style', description: 'd', instructions: 'Be brief.' });
        const form = document.createElement('form');
        form.setAttribute('toolname', 'search');
        form.setAttribute('tooldescription', 'Search the site');
        form.innerHTML = '<input name="q" required><button>Go</button>';
        document.body.append(form);
      });
      const palette = await browser.waitForPalette(page, (p) => entries(p).length === 8, 'eight entries');
      const tools = byName(palette);
      const expected = {
        doc_object: ['Mutating', 'declared nothing; registered on document.modelContext in the object form → Mutating'],
        doc_positional: ['Consequential', 'declared nothing; registered positionally on document.modelContext → Consequential'],
        nav_object: ['Consequential', 'declared nothing; registered on navigator.modelContext → Consequential'],
        nav_positional: ['Read only', 'readOnlyHint: true → Read only'],
        provided: ['Consequential', 'declared nothing; given to navigator.modelContext.provideContext → Consequential'],
        search: ['Consequential', 'declared nothing; declared by a <form toolname> → Consequential'],
        style: ['Skill', null],
        legacy_style: ['Skill', null],
      };
      for (const [name, [badge, rule]] of Object.entries(expected)) {
        assert.equal(tools[name]?.badge, badge, `${name}'s badge`);
        assert.equal(tools[name].rule, rule, `${name}'s rule`);
      }
      assert.equal(tools.search.input_schema, '{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}');
      assert.ok(tools.nav_object.lints.some((l) => l.kind === 'legacy_api' && l.severity === 'warning' && l.text.includes('legacy navigator.modelContext')), 'legacy use is linted');
      assert.equal(tools.doc_object.site, server.url('tools.localhost', '').replace(/\/$/, ''));
      assert.equal(tools.doc_object.frame_id, 0);

      // The action icon shows the tab's count.
      const sw = await browser.worker();
      const tabId = await browser.tabId(page);
      assert.equal(await sw.evaluate((id) => chrome.action.getBadgeText({ tabId: id }), tabId), '8');
      await page.close();
    });

    test('tools go away by AbortSignal, unregisterTool, clearContext, form removal and navigation', async () => {
      const page = await blank();
      await page.evaluate(() => {
        window.controller = new AbortController();
        document.modelContext.registerTool(
          { name: 'aborted', description: 'd', execute: () => 1 }, { signal: window.controller.signal },
        );
        document.modelContext.registerTool({ name: 'stays', description: 'd', execute: () => 1 });
        navigator.modelContext.registerTool({ name: 'unregistered', description: 'd', execute: () => 1 });
        navigator.modelContext.registerTool({ name: 'cleared', description: 'd', execute: () => 1 });
        const form = document.createElement('form');
        form.id = 'f';
        form.setAttribute('toolname', 'form_tool');
        form.setAttribute('tooldescription', 'A form');
        document.body.append(form);
      });
      const names = (p) => entries(p).map((e) => e.name).sort().join(' ');
      await browser.waitForPalette(page, (p) => names(p) === 'aborted cleared form_tool stays unregistered', 'five tools');

      await page.evaluate(() => window.controller.abort());
      await browser.waitForPalette(page, (p) => names(p) === 'cleared form_tool stays unregistered', 'the aborted tool gone');
      await page.evaluate(() => navigator.modelContext.unregisterTool('unregistered'));
      await browser.waitForPalette(page, (p) => names(p) === 'cleared form_tool stays', 'the unregistered tool gone');
      await page.evaluate(() => navigator.modelContext.clearContext());
      await browser.waitForPalette(page, (p) => names(p) === 'form_tool stays', 'the legacy tools cleared');
      await page.evaluate(() => document.getElementById('f').setAttribute('toolname', 'renamed'));
      await browser.waitForPalette(page, (p) => names(p) === 'renamed stays', 'the form renamed');
      await page.evaluate(() => document.getElementById('f').remove());
      await browser.waitForPalette(page, (p) => names(p) === 'stays', 'the form gone');

      await page.goto(server.url('tools.localhost', `/blank.html?navigated-${n}`));
      const palette = await browser.waitForPalette(page, (p) => entries(p).length === 0, 'no tools after navigating');
      assert.equal(palette.page, 'shimmed', 'the new document has Toolgate, and publishes nothing');
      await page.close();
    });

    test('a tool declared only by a form in the HTML, on a page with no script, is classed', async () => {
      // Nothing reads or defines a modelContext here: the form alone starts Toolgate in the page.
      const page = await browser.newPage(server.url('tools.localhost', `/form-only.html?${++n}`));
      const palette = await browser.waitForPalette(page, (p) => entries(p).length === 1, 'the form tool');
      const [tool] = entries(palette);
      assert.equal(tool.name, 'search');
      assert.equal(tool.class, 'Consequential');
      await page.evaluate(() => document.querySelector('form').remove());
      await browser.waitForPalette(page, (p) => entries(p).length === 0, 'the form gone');
      await page.close();
    });

    test('a re-registration with changed hints is classed anew; the legacy API refuses duplicates', async () => {
      const page = await blank();
      await page.evaluate(() => {
        window.controller = new AbortController();
        document.modelContext.registerTool({
          name: 'changing', description: 'd', annotations: { readOnlyHint: true }, execute: () => 1,
        }, { signal: window.controller.signal });
      });
      await browser.waitForPalette(page, (p) => byName(p).changing?.badge === 'Read only', 'Read only first');
      const duplicate = await page.evaluate(async () => {
        const result = {};
        try {
          await document.modelContext.registerTool({ name: 'changing', description: 'd', execute: () => 1 });
        } catch (error) {
          result.document = `${error.name}: ${error.message}`;
        }
        navigator.modelContext.registerTool({ name: 'legacy', description: 'd', execute: () => 1 });
        try {
          navigator.modelContext.registerTool({ name: 'legacy', description: 'd', execute: () => 1 });
        } catch (error) {
          result.navigator = `${error.name}: ${error.message}`;
        }
        window.controller.abort();
        await document.modelContext.registerTool({
          name: 'changing', description: 'd', annotations: { destructiveHint: true }, execute: () => 1,
        });
        return result;
      });
      assert.match(duplicate.document, /^InvalidStateError: .*Duplicate tool name/);
      assert.match(duplicate.navigator, /^InvalidStateError: .*Duplicate tool name/);
      const palette = await browser.waitForPalette(page, (p) => byName(p).changing?.badge === 'Consequential', 'Consequential after');
      assert.equal(byName(palette).changing.rule, 'destructiveHint: true → Consequential');
      await page.close();
    });

    test('hostile declarations are unreadable or refused, never a crash, and snapshotted once', async () => {
      const page = await blank();
      const outcome = await page.evaluate(async () => {
        const result = {};
        const settle = async (name, register) => {
          try {
            await register();
            result[name] = 'registered';
          } catch (error) {
            result[name] = `${error.name}: ${error.message}`;
          }
        };
        const mc = document.modelContext;
        await settle('throwing_getter', () => mc.registerTool({
          name: 'throwing_getter', description: 'd', execute: () => 1,
          get annotations() { throw new Error('boom'); },
        }));
        await settle('proxy_annotations', () => mc.registerTool({
          name: 'proxy_annotations', description: 'd', execute: () => 1,
          annotations: new Proxy({ readOnlyHint: true }, {
            get(target, key) {
              if (key === 'destructiveHint') throw new Error('trap on a hint');
              return target[key];
            },
          }),
        }));
        // Read as the browser reads a dictionary: through a Proxy and a prototype.
        await settle('proxy_hints', () => mc.registerTool({
          name: 'proxy_hints', description: 'd', execute: () => 1, annotations: new Proxy({ readOnlyHint: true }, {}),
        }));
        await settle('inherited_hints', () => mc.registerTool({
          name: 'inherited_hints', description: 'd', execute: () => 1, annotations: Object.create({ readOnlyHint: true }),
        }));
        await settle('string_hint', () => mc.registerTool({
          name: 'string_hint', description: 'd', execute: () => 1, annotations: { readOnlyHint: 'false' },
        }));
        await settle('number_annotations', () => mc.registerTool({
          name: 'number_annotations', description: 'd', execute: () => 1, annotations: 5,
        }));
        const cyclic = { type: 'object' };
        cyclic.self = cyclic;
        await settle('cyclic_schema', () => mc.registerTool({
          name: 'cyclic_schema', description: 'd', execute: () => 1, inputSchema: cyclic,
        }));
        await settle('throwing_name', () => mc.registerTool({
          description: 'd', execute: () => 1, get name() { throw new RangeError('no name for you'); },
        }));
        await settle('trap_proxy', () => mc.registerTool(new Proxy({}, { get() { throw new Error('trap'); } })));
        await settle('huge_schema', () => mc.registerTool({
          name: 'huge_schema', description: 'd', execute: () => 1,
          inputSchema: { type: 'object', description: 'x'.repeat(100_000) },
        }));
        await settle('not_an_object', () => mc.registerTool('just a string'));
        // The legacy API throws where the draft rejects; a page that catches keeps going.
        try {
          navigator.modelContext.registerTool({ name: 'bad name', description: 'd', execute: () => 1 });
        } catch (error) {
          result.legacy_bad_name = error.name;
        }
        // Later mutation of the page's object changes nothing.
        const tool = {
          name: 'mutated', description: 'before', execute: () => 'original',
          annotations: { readOnlyHint: true },
        };
        await mc.registerTool(tool);
        tool.annotations.readOnlyHint = false;
        tool.annotations.destructiveHint = true;
        tool.description = 'after';
        tool.execute = () => 'replaced';
        result.mutated_runs = await navigator.modelContextTesting.executeTool('mutated', '{}');
        return result;
      });
      assert.equal(outcome.throwing_getter, 'registered');
      assert.equal(outcome.proxy_annotations, 'registered');
      assert.equal(outcome.proxy_hints, 'registered');
      assert.equal(outcome.inherited_hints, 'registered');
      assert.equal(outcome.string_hint, 'registered');
      assert.equal(outcome.number_annotations, 'registered');
      assert.match(outcome.cyclic_schema, /^TypeError: .*circular structure/);
      assert.equal(outcome.throwing_name, 'RangeError: no name for you');
      assert.equal(outcome.trap_proxy, 'Error: trap');
      assert.equal(outcome.huge_schema, 'registered');
      assert.match(outcome.not_an_object, /^TypeError/);
      assert.equal(outcome.legacy_bad_name, 'InvalidStateError');
      assert.equal(outcome.mutated_runs, 'original');

      const palette = await browser.waitForPalette(page, (p) => entries(p).length === 8, 'eight readable-or-not tools');
      const tools = byName(palette);
      for (const [name, reason] of Object.entries({
        throwing_getter: 'reading annotations threw Error: boom',
        proxy_annotations: 'reading annotations.destructiveHint threw Error: trap on a hint',
        string_hint: 'annotations.readOnlyHint is the string "false", not a boolean',
        number_annotations: 'annotations is the number 5, not an object',
        huge_schema: 'inputSchema is longer than 65536 bytes',
      })) {
        assert.equal(tools[name].badge, 'Consequential', name);
        assert.ok(tools[name].rule.startsWith('declaration unreadable ('), `${name}: ${tools[name].rule}`);
        assert.ok(tools[name].rule.includes(reason), `${name}: ${tools[name].rule}`);
      }
      assert.equal(tools.mutated.badge, 'Read only', 'classed as declared at registration');
      assert.equal(tools.proxy_hints.badge, 'Read only', "a Proxy's hints are read");
      assert.equal(tools.inherited_hints.badge, 'Read only', 'inherited hints are read');
      assert.equal(tools.mutated.description, 'before');
      assert.ok(!tools.cyclic_schema && !tools['bad name'], 'refused declarations are not listed');
      await page.close();
    });

    test('a page registering 1,000 tools gets all of them classed', async () => {
      const page = await blank();
      await page.evaluate(async () => {
        const all = [];
        for (let i = 0; i < 1000; i++) {
          all.push(document.modelContext.registerTool({
            name: `tool_${i}`, description: `Tool ${i}`,
            annotations: { readOnlyHint: i % 2 === 0 }, execute: () => i,
          }));
        }
        await Promise.all(all);
      });
      const palette = await browser.waitForPalette(page, (p) => entries(p).length === 1000, '1,000 tools', 30_000);
      const tools = byName(palette);
      assert.equal(tools.tool_0.badge, 'Read only');
      assert.equal(tools.tool_999.badge, 'Mutating');
      assert.equal(
        await page.evaluate(() => navigator.modelContextTesting.listTools().length), 1000,
        'the page sees all of them too',
      );
      await page.close();
    });

    // The draft queues, per registration, a task that fires `toolchange` and
    // then one that resolves its promise. Toolgate runs the steps queued by
    // one task together in one later task: still one event per registration,
    // none in the registering task, each promise after its own event, and a
    // registration made by a listener gets its event in a later task.
    test('a burst of registrations: one toolchange each, after the registering task, each promise after its event', async () => {
      const page = await blank();
      const out = await page.evaluate(async () => {
        const mc = document.modelContext;
        const log = [];
        mc.addEventListener('toolchange', () => log.push('change'));
        const tool = (name) => ({ name, description: 'd', execute: () => 1 });
        const burst = [0, 1, 2].map((i) => mc.registerTool(tool(`burst_${i}`)).then(() => log.push(`resolved ${i}`)));
        const sync = log.length;
        await Promise.resolve();
        await Promise.resolve();
        const microtasks = log.length;
        await Promise.all(burst);
        const afterBurst = [...log];
        // A listener that registers: its own event comes in a later task.
        let nested = null;
        mc.addEventListener('toolchange', function once() {
          mc.removeEventListener('toolchange', once);
          const before = log.length;
          nested = { before, done: mc.registerTool(tool('from_listener')) };
          nested.sameTask = log.length - before;
        });
        await mc.registerTool(tool('trigger'));
        await nested.done;
        // A last registration: its promise resolves after its own event,
        // which comes after every event queued before it, so any event more
        // for the five above has fired by then. Its own is not counted.
        await mc.registerTool(tool('last'));
        const changes = log.filter((e) => e === 'change').length - 1;
        return { sync, microtasks, afterBurst, sameTask: nested.sameTask, changes };
      });
      assert.equal(out.sync, 0, 'no event or resolution in the registering task');
      assert.equal(out.microtasks, 0, 'nor in its microtasks');
      const resolved = out.afterBurst.filter((e) => e.startsWith('resolved'));
      assert.deepStrictEqual(resolved, ['resolved 0', 'resolved 1', 'resolved 2'], 'promises resolve in order');
      for (const [i, entry] of resolved.entries()) {
        const changesBefore = out.afterBurst.slice(0, out.afterBurst.indexOf(entry)).filter((e) => e === 'change').length;
        assert.ok(changesBefore >= i + 1, `burst_${i} resolved after ${changesBefore} toolchange events: ${out.afterBurst.join(', ')}`);
      }
      assert.equal(out.sameTask, 0, "a listener's registration fires nothing in the listener's task");
      assert.equal(out.changes, 5, 'one toolchange per registration: 3 in the burst, the trigger, the one from the listener');
      await page.close();
    });

    test('a page with a strict CSP is intercepted', async () => {
      const page = await browser.newPage(server.url('csp.localhost', `/csp/index.html?${++n}`));
      const palette = await browser.waitForPalette(page, (p) => entries(p).length === 2, 'two tools');
      const tools = byName(palette);
      assert.equal(tools.csp_read.badge, 'Read only');
      assert.equal(tools.csp_legacy.badge, 'Consequential');
      await page.close();
    });

    test("a cross-origin iframe's tools belong to the iframe's site", async () => {
      const page = await browser.newPage(server.url('top.localhost', `/top.html?${++n}`));
      const palette = await browser.waitForPalette(page, (p) => entries(p).length === 2, 'both frames');
      assert.deepEqual(palette.groups.map((g) => new URL(g.site).hostname), ['top.localhost', 'frame.localhost']);
      const tools = byName(palette);
      assert.equal(tools.top_tool.frame_id, 0);
      assert.notEqual(tools.frame_tool.frame_id, 0);
      assert.equal(tools.frame_tool.badge, 'Consequential');

      // Removing the iframe removes its tools, and the icon's count follows
      // without the palette being opened.
      const tabId = await browser.tabId(page);
      const sw = await browser.worker();
      const badge = () => sw.evaluate((id) => chrome.action.getBadgeText({ tabId: id }), tabId);
      assert.equal(await badge(), '2');
      await page.evaluate(() => document.querySelector('iframe').remove());
      for (let i = 0; i < 100 && (await badge()) !== '1'; i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(await badge(), '1');
      await browser.waitForPalette(page, (p) => entries(p).map((e) => e.name).join() === 'top_tool', 'only the top tool');
      await page.close();
    });

    test('the registry survives the service worker being stopped', async () => {
      const page = await blank();
      await page.evaluate(() => document.modelContext.registerTool({
        name: 'durable', description: 'd', annotations: { readOnlyHint: true }, execute: () => 1,
      }));
      await browser.waitForPalette(page, (p) => byName(p).durable?.badge === 'Read only', 'the tool');
      await (await browser.worker()).evaluate(() => { self.beforeStop = true; });
      await browser.stopWorker();
      // Registering while the worker is stopped wakes it.
      await page.evaluate(() => document.modelContext.registerTool({
        name: 'after_stop', description: 'd', execute: () => 1,
      }));
      const palette = await browser.waitForPalette(page, (p) => entries(p).length === 2, 'both tools after the restart');
      assert.equal(byName(palette).durable.badge, 'Read only');
      assert.equal(byName(palette).after_stop.badge, 'Mutating');
      assert.equal(await (await browser.worker()).evaluate(() => self.beforeStop), undefined,
        'a new worker, with none of the old globals, answered');
      await page.close();
    });

    // A worker stopped after it took a frame's report, before it answered,
    // may leave the relay's send resolved with nothing rather than failed
    // (148 and 156 alike; shared/chromium-errors.js, `askWorker`): the relay
    // takes that as no answer and sends the report again, as it does when
    // the send fails. Registering as the worker is stopped, thirty times
    // over: with nothing taken for an answer, about one report in six was
    // lost (the page kept a tool no worker ever heard of).
    test('a report made as the worker stops reaches the next worker, every time', async () => {
      const page = await blank();
      for (let i = 0; i < 30; i++) {
        const name = `stopping_${i}`;
        await Promise.all([
          browser.stopWorker(),
          page.evaluate((n) => document.modelContext.registerTool({
            name: n, description: 'd', annotations: { readOnlyHint: true }, execute: () => 1,
          }), name),
        ]);
        // What the report's own sending again would start, if it was lost.
        await browser.startWorker();
        await browser.waitForPalette(page, (p) => byName(p)[name] !== undefined, `${name}, made as worker stop ${i + 1} began`);
      }
      assert.equal(entries(await browser.palette(page)).length, 30);
      await page.close();
    });

    // The worker ships as one classic script (build.sh): its modules' code
    // must keep the strict mode it was written in. A strict function refuses
    // `.caller`; a sloppy one gives null.
    test('the worker\'s code runs in strict mode, as its modules were written', async () => {
      const strict = await (await browser.worker()).evaluate(() => {
        try {
          void self.toolgate.watchCalls.caller;
          return false;
        } catch (error) {
          return error instanceof TypeError;
        }
      });
      assert.equal(strict, true, 'a worker function refuses .caller');
    });

    // A page cannot reach the shim–relay channel (attacks.test.mjs); what a
    // frame could send the worker if it did is sent here as the frame.
    test('messages a frame sends the worker get a clear error and can only speak for their own frame', async () => {
      const page = await blank();
      const send = async (message) => {
        const answer = await sendAsFrame(page, typeof message === 'string' ? message : JSON.stringify(message));
        return answer.error ?? answer.results;
      };
      assert.match(await send('not json'), /^bad page message: /);
      assert.match(await send({ type: 'palette', tab_id: 1, batch: 900, ops: [] }), /unknown variant `palette`/);
      assert.match(await send({ type: 'updates', batch: 901, ops: [{ op: 'register',
        decl: { name: 'forged', description: 'd', path: 'document_object', class: 'Read only' } }] }), /unknown field `class`/);
      const own = await send({ type: 'updates', batch: 902, ops: [{ op: 'register',
        decl: { name: 'own_tool', description: 'd', path: 'document_object', annotations: { readOnlyHint: true } } }] });
      assert.equal(own[0].class, 'Read only');
      assert.match(await send({ type: 'updates', batch: 903, ops: [{ op: 'unregister', source: 'document', kind: 'tool', name: 'x',
        origin: 'https://bank.example' }] }), /unknown field `origin`/);
      assert.match(await send({ type: 'updates', batch: 904, ops: [], tab_id: 1 }), /unknown field `tab_id`/);
      assert.match(await send({ type: 'native_call', call: 1, source: 'document', name: 'own_tool', document_id: 'D' }),
        /unknown field `document_id`/);
      const object = await sendAsFrame(page, { type: 'updates', batch: 905, ops: [] });
      assert.equal(object.error, 'bad page message: a page message is JSON text');
      const palette = await browser.waitForPalette(page, (p) => entries(p).length === 1, 'only the well-formed report');
      assert.equal(palette.groups[0].site, new URL(page.url()).origin, "the page's own site, from the browser");
      assert.equal(entries(palette)[0].name, 'own_tool');
      await page.close();
    });

    test('a polyfill on navigator that forwards to document.modelContext cannot register one name twice', async () => {
      const page = await blank();
      const out = await page.evaluate(async () => {
        // The page's own polyfill object on navigator, forwarding a cleaned
        // copy of each tool to document.modelContext, as @mcp-b/global does.
        const polyfill = {
          registerTool(tool) {
            return document.modelContext.registerTool({ name: tool.name, description: tool.description, execute: tool.execute });
          },
        };
        Object.defineProperty(navigator, 'modelContext', { value: polyfill, configurable: true });
        const tool = { name: 'twice', description: 'd', annotations: { readOnlyHint: true }, execute: () => 1 };
        const first = await navigator.modelContext.registerTool(tool).then(() => 'registered', (e) => `${e.name}: ${e.message}`);
        const second = await navigator.modelContext.registerTool(tool).then(() => 'registered', (e) => `${e.name}: ${e.message}`);
        return { first, second };
      });
      assert.deepEqual(out, {
        first: 'registered',
        second: "InvalidStateError: Failed to execute 'registerTool' on 'ModelContext': Duplicate tool name",
      });
      const palette = await browser.waitForPalette(page, (p) => entries(p).length === 1, 'the tool, once');
      assert.equal(entries(palette)[0].class, 'Read only', "the page's own hints, read through its polyfill");
      await page.close();
    });

    // The shim captures the language's built-ins it uses before the page
    // runs: a page that replaces them later breaks nothing of Toolgate's.
    test('a page that replaces built-ins still registers its tools, and nothing throws into it', async () => {
      const page = await blank();
      const thrown = await page.evaluate(() => {
        const boom = () => { throw new Error('replaced by the page'); };
        Array.prototype.map = boom;
        WeakSet.prototype.has = boom;
        WeakSet.prototype.add = boom;
        const thrownBy = (fn) => {
          try {
            fn();
            return null;
          } catch (error) {
            return String(error);
          }
        };
        return {
          // Any `modelContext` definition makes the shim look for a polyfill's object.
          define: thrownBy(() => Object.defineProperty({}, 'modelContext', { value: 1 })),
          provide: thrownBy(() => navigator.modelContext.provideContext({ tools: [
            { name: 'first', description: 'd', annotations: { readOnlyHint: true }, execute: () => 1 },
            { name: 'second', description: 'd', execute: () => 2 },
          ] })),
        };
      });
      assert.deepEqual(thrown, { define: null, provide: null });
      const palette = await browser.waitForPalette(page, (p) => entries(p).length === 2, 'both provided tools');
      assert.deepEqual(entries(palette).map((e) => e.name).sort(), ['first', 'second']);
      await page.close();
    });

    test('a page that removes or breaks a DOM built-in before it first uses WebMCP gets no WebMCP from Toolgate, and nothing throws into it', async () => {
      // Removed, or replaced by something that is not an interface at all.
      for (const sabotage of ['delete window.AbortSignal', 'window.CustomEvent = 5']) {
        const page = await blank();
        await page.evaluate(sabotage);
        const out = await page.evaluate(() => {
          const thrownBy = (fn) => {
            try {
              return { value: typeof fn() };
            } catch (error) {
              return { error: String(error) };
            }
          };
          return {
            document: thrownBy(() => document.modelContext),
            navigator: thrownBy(() => navigator.modelContext),
            testing: thrownBy(() => navigator.modelContextTesting),
            define: thrownBy(() => Object.defineProperty({}, 'modelContext', { value: 1 })),
          };
        });
        assert.deepEqual(out, {
          document: { value: 'undefined' },
          navigator: { value: 'undefined' },
          testing: { value: 'undefined' },
          define: { value: 'object' },
        }, sabotage);
        await page.close();
      }
    });

    test('closing a tab forgets its tools', async () => {
      const page = await blank();
      await page.evaluate(() => document.modelContext.registerTool({ name: 't', description: 'd', execute: () => 1 }));
      await browser.waitForPalette(page, (p) => entries(p).length === 1, 'the tool');
      const tabId = await browser.tabId(page);
      const sw = await browser.worker();
      // One key per tool (src/page/registry/stored.rs): `tool:<tab>:<n>`.
      const stored = () => sw.evaluate(async (id) => Object.keys(await chrome.storage.session.get(null))
        .filter((key) => key.startsWith(`tool:${id}:`)), tabId);
      assert.equal((await stored()).length, 1);
      await page.close();
      for (let i = 0; i < 50 && (await stored()).length; i++) await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(await stored(), []);
    });

    test('a page restored from the back/forward cache shows its tools again', async () => {
      const page = await blank();
      await page.evaluate(() => document.modelContext.registerTool({ name: 'first_page', description: 'd', execute: () => 1 }));
      await browser.waitForPalette(page, (p) => entries(p).length === 1, 'the first page');
      await page.evaluate(() => { window.stillThisDocument = true; });
      await page.goto(server.url('tools.localhost', `/blank.html?second-${n}`));
      await browser.waitForPalette(page, (p) => entries(p).length === 0, 'nothing on the second page');
      // A page restored from the cache fires no load event.
      await page.goBack({ waitUntil: 'commit' });
      assert.equal(await page.evaluate(() => window.stillThisDocument), true, 'restored from the cache, not reloaded');
      await browser.waitForPalette(page, (p) => entries(p).map((e) => e.name).join() === 'first_page', 'the first page again');
      await page.close();
    });

    test('the palette popup shows badges, rules and lints, and renders page text as text', async () => {
      const page = await blank();
      await page.evaluate(() => document.modelContext.registerTool({
        name: 'html_tool',
        title: '<img src=x onerror="window.pwned=1">Title',
        description: '<b>bold?</b><script>window.pwned=1</script>',
        annotations: { readOnlyHint: true, openWorldHint: true },
        execute: () => 1,
      }));
      await browser.waitForPalette(page, (p) => entries(p).length === 1, 'the tool');
      const tabId = await browser.tabId(page);
      const sw = await browser.worker();
      const popup = await browser.newPage(
        await sw.evaluate((id) => chrome.runtime.getURL(`extension/ui/palette.html?tab=${id}`), tabId),
      );
      const button = popup.getByRole('button', { name: /Title/ });
      await button.waitFor();
      assert.equal(await popup.locator('.group h2').innerText(), new URL(page.url()).host);
      assert.deepEqual(await button.locator('.badge').allInnerTexts(), ['Read only', 'off-site']);
      await button.click();
      assert.equal(await popup.locator('#detail-description').innerText(), '<b>bold?</b><script>window.pwned=1</script>');
      assert.equal(await popup.locator('#detail-rule').innerText(), 'readOnlyHint: true → Read only');
      assert.ok((await popup.locator('#detail-lints').innerText()).includes('consequentialHint is not declared'));
      assert.equal(await popup.locator('img, b, script:not([src])').count(), 0, 'no element came from page text');
      await popup.close();
      await page.close();
    });
  });
}
