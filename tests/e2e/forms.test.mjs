// Form tools (<form toolname>), run as WebMCP's declarative API runs them
// (docs/classes.md, "Form tools"): by the page's own executeTool and by an
// agent through Toolgate's agent console, on Toolgate's polyfill (B) and on
// Toolgate wrapping the browser's own WebMCP (C). On Chromium 156, whose
// native WebMCP runs form tools itself, every outcome is held to the
// browser's own (A), case by case.
//
// Run: node --test tests/e2e/forms.test.mjs
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BROWSER_VERSION, entries, launch } from '../support/browser.mjs';
import { serve } from '../support/server.mjs';
import { latest, openConsoleOn, result, toolButton } from '../support/console.mjs';
import { cardWatcher, choose, isCard } from '../support/cards.mjs';

const NATIVE_FORMS = BROWSER_VERSION >= 156;
const NO_NATIVE_FORMS = NATIVE_FORMS ? false
  : `Chromium ${BROWSER_VERSION}'s own WebMCP runs no form tools to compare with (156's does)`;
const SIDES = {
  ...(NATIVE_FORMS ? { A: { extension: false, native: true } } : {}),
  B: { extension: true, native: false },
  C: { extension: true, native: true },
};
const TOOLGATE = ['B', 'C'];

describe('form tools run by the page\'s executeTool', () => {
  let server;
  const browsers = {};
  const outcomes = {};
  before(async () => {
    server = await serve('tests/pages/forms');
    await Promise.all(Object.entries(SIDES).map(async ([side, options]) => {
      browsers[side] = await launch(options);
      const page = await browsers[side].newPage(server.url('forms.localhost', '/forms.html'));
      outcomes[side] = JSON.parse(await page.evaluate(() => window.formCases()));
      const navigated = JSON.parse(await page.evaluate(() => window.navigates()));
      await page.waitForURL(/\/landed\.html/);
      outcomes[side].navigated = navigated;
      await page.close();
    }));
  });
  after(async () => {
    for (const [side, browser] of Object.entries(browsers)) {
      await browser.close();
      assert.deepStrictEqual(browser.errors, [], `side ${side}: uncaught errors`);
    }
    await server?.close();
  });

  for (const side of TOOLGATE) {
    test(`[${side}] the controls are filled from the input, with input and change, and respondWith's value is the result`, () => {
      const out = outcomes[side];
      assert.deepStrictEqual(out.responded, { value: JSON.stringify({ status: 'shipped', order: 'ABC123' }) });
      assert.deepStrictEqual(out.filled, {
        order: 'ABC123', qty: '3', gift: 'on', speed: 'fast', box: 'large', extras: ['wrap', 'card'], note: 'ring twice',
        day: '2026-12-24', at: '09:30', twice: '', fixed: '', secret: 'kept',
      });
      const edits = out.respondedLog.filter((line) => / (input|change) /.test(line));
      assert.deepStrictEqual(edits, ['order', 'qty', 'gift', 'speed', 'box', 'extras', 'note', 'day', 'at']
        .flatMap((name) => [`${name} input bubbles=true`, `${name} change bubbles=true`]));
      assert.ok(out.respondedLog.includes('modelContext toolactivated track bubbles=false'), out.respondedLog.join('\n'));
      assert.match(out.respondedLog.find((line) => line.startsWith('submit')), /^submit agentInvoked=true /);
      // WPT's declarative/select-multiple-events: a control that already
      // holds its value gets no events; a checkbox or radio button, `change`
      // alone (as 156, which the comparison below holds it to).
      assert.deepStrictEqual(out.sameAgainEdits, ['gift change bubbles=true', 'speed change bubbles=true']);
      assert.deepStrictEqual(out.sameAgain, out.responded);
    });

    test(`[${side}] the schema comes from the controls: patterns, bounds, choices, dates; disabled, read-only and shared names left out`, () => {
      const { track } = outcomes[side].schemas;
      assert.deepStrictEqual(Object.keys(track.properties), ['order', 'qty', 'gift', 'speed', 'box', 'extras', 'note', 'day', 'at']);
      assert.deepStrictEqual(track.required, ['order']);
      assert.deepStrictEqual(track.properties.order, { type: 'string', pattern: '[A-Z]{3}[0-9]+', description: 'Order' });
      assert.deepStrictEqual(track.properties.qty, { type: 'number', minimum: 1, maximum: 9, multipleOf: 1 });
      assert.deepStrictEqual(track.properties.extras.type, 'array');
      assert.deepStrictEqual(track.properties.box.enum, ['small', 'large']);
      assert.deepStrictEqual(track.properties.day.format, 'date');
      assert.deepStrictEqual(track.properties.note.description, 'A note for the courier');
    });

    test(`[${side}] a value the form cannot take, or its constraints failing, fails the call; nothing is submitted`, () => {
      const out = outcomes[side];
      assert.deepStrictEqual(out.badChoice, { error: 'UnknownError: Invalid value "huge" for parameter box' });
      assert.match(out.constraints.error, /^UnknownError: Form validation failed: order: /);
      assert.ok(!out.constraintsLog.some((line) => line.startsWith('submit')), 'submitted anyway');
    });

    test(`[${side}] a call waiting for the person: aborting it rejects with the reason and fires toolcancel; resetting or removing the form cancels it`, () => {
      const out = outcomes[side];
      assert.equal(out.personFilled, 'hello');
      assert.deepStrictEqual(out.aborted, { error: 'AbortError: signal is aborted without reason' });
      // toolcancel comes once the cancelling is done, in a later task.
      const later = [...out.abortedLog, ...out.resetLog];
      assert.ok(later.includes('modelContext toolcancel ask_person bubbles=false'), later.join('\n'));
      assert.match(out.reset.error ?? String(out.reset), /^UnknownError: /);
      assert.deepStrictEqual(out.removed, { error: 'UnknownError: Tool execution cancelled, since tool definition was updated' });
      assert.deepStrictEqual(out.toolsAfter, ['resettable', 'submit_from_js', 'track']);
    });

    // WPT's declarative/execute_tool_submit_from_js: a page that waits for
    // its form tool while it is parsing hears the toolchange that follows
    // its getTools(), and its submit handler's form.submit() answers the call.
    test(`[${side}] a form tool waited for while the page parses is found, and a submit handler's form.submit() answers the call`, () => {
      const out = outcomes[side].submitFromScript;
      assert.equal(out.submitted, true, JSON.stringify(out));
      assert.ok('resolved' in out, JSON.stringify(out));
    });

    test(`[${side}] a submission nobody answers navigates, and the call gives null`, () => {
      assert.deepStrictEqual(outcomes[side].navigated, { value: null });
    });
  }

  // Where Toolgate's polyfill (B) runs a form, the browser has no
  // :tool-form-active / :tool-submit-active (a selector it cannot parse);
  // wrapping the browser's own (C), they are the browser's. And the
  // polyfill, not knowing which browser it is in, fires toolactivated and
  // toolcancel at window too, as 148 does (ARCHITECTURE.md, "Where the
  // native API and the draft differ").
  const POLYFILL_STATES = (native, toolgate) => {
    const strip = (value) => {
      const lines = Array.isArray(value) ? value.filter((line) => !line.startsWith('window ')) : value;
      return typeof lines === 'boolean' || String(lines).startsWith('no :tool-') ? '(the state)'
        : JSON.parse(JSON.stringify(lines).replace(/(formActive|submitActive)=(true|false|null|no :tool-\w+-active: SyntaxError)/g, "$1=?"));
    };
    return [strip(native), strip(toolgate)];
  };
  for (const side of TOOLGATE) {
    test(`[${side}] every outcome equals Chromium's own form tools (A)`, { skip: NO_NATIVE_FORMS }, async (t) => {
      const a = outcomes.A;
      const out = outcomes[side];
      assert.deepStrictEqual(Object.keys(out), Object.keys(a));
      for (const key of Object.keys(a)) await t.test(key, () => {
        if (side === 'B' && /active|Log$/i.test(key)) {
          const [native, toolgate] = POLYFILL_STATES(a[key], out[key]);
          // Event classes aside (B's browser has no ToolActivatedEvent), the same.
          assert.deepStrictEqual(toolgate, native, `${key}: side B differs from native`);
        } else {
          assert.deepStrictEqual(out[key], a[key], `${key}: side ${side} differs from native`);
        }
      });
    });
  }
});

describe('an agent\'s call of a form tool nobody answers', () => {
  test('the submission navigates, and the agent gets null once the card allowed it', async () => {
    const server = await serve('tests/pages/forms');
    const browser = await launch();
    try {
      const cards = cardWatcher(browser.context);
      const page = await browser.newPage(server.url('forms.localhost', '/forms.html'));
      await browser.waitForPalette(page, (p) => entries(p).length === 4, 'the form tools');
      await page.evaluate(() => window.answerWith('navigate'));
      const tabId = await browser.tabId(page);
      const worker = await browser.worker();
      const request = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'browser_call_webmcp_tool', arguments: { tabId, name: 'track', arguments: { order: 'XYZ9' } } } };
      const reply = worker.evaluate((r) => self.toolgate.agent('forms-test', r), request);
      await choose(await cards.next(), 'Allow this call only');
      const answered = await reply;
      assert.equal(answered.result?.isError, false, JSON.stringify(answered));
      assert.equal(answered.result.content[0].text, 'null');
      await page.waitForURL(/\/landed\.html\?order=XYZ9/);
    } finally {
      await browser.close();
      await server.close();
    }
  });
});

describe('the order-tracking example, through the agent console', () => {
  let server;
  before(async () => { server = await serve('examples/orders'); });
  after(async () => { await server?.close(); });

  for (const native of [false, true]) {
    test(`an agent's call fills and submits the form once the card allows it, and gets the page's answer${native ? ' (native WebMCP on)' : ''}`, async () => {
      const browser = await launch({ native });
      try {
        const orders = await browser.newPage(server.url('orders.localhost', '/'));
        const palette = await browser.waitForPalette(orders, (p) => entries(p).length === 1, 'the form tool');
        assert.equal(entries(palette)[0].class, 'Consequential');
        const page = await openConsoleOn(browser, orders, 'Order tracking');
        await toolButton(page, 'track_order').click();
        // The form's pattern is its schema's: checked before any card (docs/agents.md).
        const cards = [];
        const onPage = (p) => { if (isCard(p)) cards.push(p); };
        browser.context.on('page', onPage);
        await page.getByRole('textbox', { name: 'order_number (required)' }).fill('nope');
        await page.getByRole('button', { name: 'Call track_order' }).click();
        const refused = await result(page, 1);
        assert.match(refused.error, /^Error: invalid arguments for track_order: arguments\.order_number: /);
        assert.equal(cards.length, 0, 'arguments the schema refuses ask no card');
        browser.context.off('page', onPage);
        await page.getByRole('textbox', { name: 'order_number (required)' }).fill('AB-1234');
        const opened = browser.context.waitForEvent('page', { predicate: isCard });
        await page.getByRole('button', { name: 'Call track_order' }).click();
        const card = await opened;
        await card.getByRole('heading', { name: 'track_order' }).waitFor();
        assert.equal(await orders.locator('#status').innerText(), '', 'nothing ran before the answer');
        await card.getByRole('button', { name: 'Allow this call only', exact: true }).click()
          .catch((error) => { if (!card.isClosed()) throw error; });
        const shown = await result(page, 2);
        assert.equal(shown.decision, 'Ran: you allowed this call only');
        assert.deepStrictEqual(JSON.parse(shown.output), { order_number: 'AB-1234', status: 'shipped', carrier: 'Parcelway', arrives: '2026-12-04' });
        assert.equal(await orders.locator('#status').innerText(), 'AB-1234: shipped, arrives 2026-12-04');
        assert.equal(await orders.inputValue('input[name=order_number]'), 'AB-1234');
        assert.equal(await latest(page).locator('.error-line').count(), 0);
        assert.equal(await orders.locator('#status').innerText(), 'AB-1234: shipped, arrives 2026-12-04');
      } finally {
        await browser.close();
      }
    });
  }
});
