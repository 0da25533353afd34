// `toolgate/playwright` (docs/ci.md): @playwright/test's `test` and `expect`,
// extended. Each test's `context` is headless Chromium with Toolgate loaded
// (a fresh profile), and its `toolgate` fixture reads a page's tools as
// Toolgate classes them and calls them as an agent, answering any card by
// its label. A test fails when Toolgate hit an uncaught error, or a page
// did (Toolgate's shim runs in every page; `failOnPageErrors: false` in
// `toolgateOptions` lets a page's own errors pass). `toKeepItsHints` holds a
// tool to its hints (docs/classes.md, "Hints held to their word"), and its
// result to `untrustedContentHint` (docs/ci.md, "Results that speak to the
// agent's model").
import { chromium, expect as baseExpect, test as base } from '@playwright/test';
import { callAnswering, callRequest, openChat } from '../lib/agent.mjs';
import { cardWatcher } from '../lib/cards.mjs';
import { findChromium, launchToolgate, toolgateWorker } from '../lib/chromium.mjs';
import { resultSpeaks, verdictOf } from '../lib/conduct.mjs';
import { entriesOf, publishes, settledPalette, tabIdOf } from '../lib/tools.mjs';

// The page's tools and skills, once they have settled (lib/tools.mjs).
async function toolsOf(page, { settleMs = 500, timeoutMs = 10_000 } = {}) {
  const worker = await toolgateWorker(page.context());
  const { palette } = await settledPalette(worker, page, { settleMs, timeoutMs });
  return entriesOf(palette);
}

let chats = 0;

// What `toKeepItsHints` answers on a card: the narrowest yes, for this call
// only: "Allow this call only" (the site question, the per-call card) or
// "Allow once" (a rule's Ask first card; docs/rules.md). It watches the
// tool, and remembers nothing the test's next calls would find.
const ONCE = ['Allow this call only', 'Allow once'];
const allowOnce = (offered) => ONCE.find((label) => offered.face.includes(label)) ?? null;

class Toolgate {
  constructor(context) {
    this.context = context;
    this.cards = cardWatcher(context);
    this.chat = null;
    this.requests = 0;
  }

  // The page's tools and skills: name, title, kind ('tool' or 'skill'),
  // class, badge (the class, or 'Skill'), badges, rule (the deciding rule in
  // words), lints ({kind, severity, text}), site; as Toolgate's palette has them.
  tools(page, options) {
    return toolsOf(page, options);
  }

  // Calls the page's tool `name` with `args` as an agent does (through
  // Toolgate's one agent entry, in a chat of this test's). Each card the call
  // opens is answered with the next of `answer` (a label, or a list of them,
  // as the card shows it: 'Allow this call only', 'Deny this call'…). A card
  // with no answer left is closed, which refuses, and the call throws.
  // Resolves to { decision: 'run' | 'refuse', why, result, isError, text,
  // untrusted, cards }: `untrusted`, why Toolgate holds the result for
  // untrusted content ({ because, phrase, excerpt }, the reply's
  // `result_untrusted`: docs/agents.md), else null. A tool the page has not
  // yet published is waited for, up to 10 s.
  async call(page, name, args = {}, { answer = [] } = {}) {
    const { reply, cards } = await this.#send(page, name, args, answer);
    const { result } = reply;
    const meta = result._meta?.toolgate ?? {};
    const text = result.content?.map((c) => c.text ?? '').join('') ?? '';
    return {
      decision: meta.decision,
      why: meta.why,
      isError: result.isError === true,
      result: result.structuredContent ?? text,
      text,
      untrusted: meta.result_untrusted ?? null,
      cards,
    };
  }

  // Calls the tool as `call` does, answering each card "Allow this call
  // only" (or "Allow once"), and resolves to its verdict (lib/conduct.mjs):
  // { decision, why, isError, text, seen, overlapped, broke, untrusted,
  // declaresUntrusted, cards }, `broke` the flag's text once Toolgate has had
  // the time to see what it started.
  // The call is made in a chat of its own: what its tool returned (content
  // it marks untrusted, say) is not the test's chat's to remember
  // (docs/cards.md, "After untrusted content").
  async conduct(page, name, args = {}) {
    const { worker, tabId, reply, cards } = await this.#send(page, name, args, allowOnce, false);
    return { ...await verdictOf(worker, tabId, name, reply), cards };
  }

  // The request, its cards answered with `answer`, in the test's chat (else
  // in a chat of its own): { worker, tabId, reply, cards }.
  async #send(page, name, args, answer, testsChat = true) {
    const worker = await toolgateWorker(this.context);
    const tabId = await tabIdOf(worker, page);
    await publishes(worker, tabId, name);
    let chat = testsChat ? this.chat : null;
    if (!chat) {
      chat = `playwright-${process.pid}-${++chats}`;
      await openChat(worker, chat, 'Playwright test');
      if (testsChat) this.chat = chat;
    }
    const request = callRequest(++this.requests, tabId, name, args);
    const { reply, cards, unanswered } = await callAnswering(worker, this.cards, chat, request, answer);
    if (unanswered) {
      const labels = unanswered.labels.map((l) => `"${l}"`).join(', ');
      throw new Error(`calling ${name} opened the card "${unanswered.heading}", and no answer was given for it: pass { answer } with one of ${labels}`);
    }
    if (reply.error) throw new Error(`Toolgate refused the request: ${reply.error.message}`);
    return { worker, tabId, reply, cards };
  }
}

// The Toolgate of each context: the `toolgate` fixture's, which the
// matchers, given only a page, use too (its chat, its cards).
const toolgates = new WeakMap();
function toolgateOf(context) {
  if (!toolgates.has(context)) toolgates.set(context, new Toolgate(context));
  return toolgates.get(context);
}

export const test = base.extend({
  // browser: the Chromium to run (else as `toolgate check` finds one);
  // native: turn on Chromium's own WebMCP as well.
  toolgateOptions: [{ browser: undefined, native: false, failOnPageErrors: true }, { option: true }],
  context: async ({ toolgateOptions, headless }, use) => {
    const { browser: path, native = false, failOnPageErrors = true } = toolgateOptions;
    const executablePath = findChromium({ browser: path, chromium });
    const browser = await launchToolgate(chromium, { executablePath, headless, native });
    const errors = [];
    const watch = (page) => page.on('pageerror', (error) => errors.push(`on ${page.url()}: ${error.stack ?? error}`));
    if (failOnPageErrors) {
      browser.context.pages().forEach(watch);
      browser.context.on('page', watch);
    }
    try {
      await use(browser.context);
      errors.push(...await (await browser.worker()).evaluate(() => self.toolgate.errors));
      if (errors.length) throw new Error(`uncaught errors in Toolgate or the page:\n${errors.join('\n')}`);
    } finally {
      await browser.close();
    }
  },
  toolgate: async ({ context }, use) => {
    await use(toolgateOf(context));
  },
});

const quote = (items) => items.map((i) => `  ${i}`).join('\n');

export const expect = baseExpect.extend({
  // Toolgate classes the page's tool `name` as `expected` ('Read only',
  // 'Mutating', 'Consequential', or 'Skill').
  async toHaveToolClass(page, name, expected) {
    const tools = await toolsOf(page);
    const tool = tools.find((t) => t.name === name);
    const pass = tool?.badge === expected;
    const message = () => (!tool
      ? `the page registered no tool ${name}; it has: ${tools.map((t) => t.name).join(', ') || 'none'}`
      : `${name}: expected ${this.isNot ? 'not ' : ''}${expected}, Toolgate classes it ${tool.badge} (${tool.rule ?? 'a skill'})`);
    return { pass, message, name: 'toHaveToolClass', expected, actual: tool?.badge };
  },
  // Every tool on the page declares all five class hints, inside
  // `annotations`, readably. Form tools are left out: a form cannot declare
  // hints. A page with no tools does not pass.
  async toDeclareAllHints(page) {
    const tools = (await toolsOf(page)).filter((t) => t.kind === 'tool' && t.path !== 'declarative');
    const notes = tools.flatMap((t) => t.lints
      .filter((l) => ['undeclared', 'outside_annotations', 'unreadable'].includes(l.kind))
      .map((l) => `${t.name}: ${l.text}`));
    const pass = tools.length > 0 && notes.length === 0;
    const message = () => {
      if (tools.length === 0) return 'the page registered no tools Toolgate could check';
      return this.isNot ? `every tool declares all five hints: ${tools.map((t) => t.name).join(', ')}`
        : `not every hint is declared:\n${quote(notes)}`;
    };
    return { pass, message, name: 'toDeclareAllHints' };
  },
  // The page's tool `name`, called with `args` as an agent calls it (every
  // card answered "Allow this call only"), keeps its hints: Toolgate saw it
  // change nothing while it said Read only, and reach no other site while it
  // said openWorldHint: false, and its result holds nothing addressed to the
  // agent's model and no hidden text unless it declares
  // untrustedContentHint: true (as `toolgate check --call` judges it).
  // Fails naming what it did, or what its result said. A call that did not
  // run, or failed (the tool threw), fails whatever `.not` says: its hints
  // were not put to the test.
  async toKeepItsHints(page, name, args = {}) {
    const verdict = await toolgateOf(page.context()).conduct(page, name, args);
    const seen = verdict.seen.length ? `it ${verdict.seen.join(', ')}` : 'Toolgate saw it change nothing';
    if (verdict.broke === null && verdict.decision !== 'run') {
      throw new Error(`${name}: the call did not run, so its hints were not put to the test: ${verdict.why || verdict.text}`);
    }
    if (verdict.broke === null && verdict.isError) {
      throw new Error(`${name}: the call failed, so its hints were not put to the test: ${verdict.text}; before that, ${seen}`);
    }
    const speaks = resultSpeaks(verdict);
    const failures = [
      ...(verdict.broke === null ? [] : [`${name} broke its hints: it ${verdict.broke}`]),
      ...(speaks?.fails ? [`${name}: ${speaks.text}`] : []),
    ];
    const pass = failures.length === 0;
    const said = speaks ? `; ${speaks.text}` : '';
    const message = () => (pass ? `${name} kept its hints: during the call ${seen}${said}` : failures.join('\n'));
    return { pass, message, name: 'toKeepItsHints', actual: verdict.broke ?? (speaks?.fails ? speaks.text : verdict.seen) };
  },
});
