// What the guard after untrusted content costs benign use (docs/cards.md,
// "After untrusted content"; issue 38, "Measure it"): ten scripted agent
// tasks on honest sites, each in a chat of its own, run through the built
// extension, and the cards a person meets counted per task.
//
//   node benches/tasks.mjs           the ten tasks, guarded and not: a table
//   node benches/tasks.mjs --json    the same, as JSON on stdout
//   node benches/tasks.mjs --smoke   three of them (fails only if something errors)
//   node benches/tasks.mjs --cdn     the same, each site's script served from
//                                    cdn.test (another site), guarded only: what
//                                    the card about other sites' scripts costs
//
// The sites (benches/pages/tasks.js) are served under real host names
// (`*.test`, mapped to this machine), so that the site question is asked as
// on any website. The person answers it "Allow non-consequential read/write
// tools on this website", and every per-call card "Allow this call only";
// each answer is clicked on the card, as a person does. A task runs twice:
// guarded (as Toolgate ships), and with the guard off
// (`self.toolgate.guardUntrusted(false)`, which exists for measuring only:
// no result is read for untrusted content, so no chat remembers any, which is
// Toolgate before the guard). A card is the guard's when the core says so
// (`after_untrusted`, read from the card's own page as it shows it).
import { launch } from '../tests/support/browser.mjs';
import { serve } from '../tests/support/server.mjs';
import { callRequest, openChat, send } from '../lib/agent.mjs';
import { cardWatcher, choose } from '../lib/cards.mjs';
import { tabIdOf, waitForCount } from './run.mjs';

const argv = process.argv.slice(2);
const SMOKE = argv.includes('--smoke');
const JSON_OUT = argv.includes('--json');
// Each site's bundle from a CDN of another name (docs/cards.md, "Tools
// registered by other sites' scripts"): its card is answered for the chat.
const CDN = argv.includes('--cdn');
const SCRIPT_ANSWER = "Allow tools from cdn.test's scripts in this chat";

const SITE_ANSWER = 'Allow non-consequential read/write tools on this website';
const CALL_ANSWER = 'Allow this call only';

// Each task: what a person asked, and the agent's calls, [site, tool, args].
const TASKS = [
  ['Add a note', [['notes', 'list_notes'], ['notes', 'add_note', { title: 'Eggs' }]]],
  ['Delete the old draft', [['notes', 'list_notes'], ['notes', 'delete_note', { title: 'Old draft' }]]],
  ['Put a kettle in the cart', [['shop', 'search_products', { query: 'kettle' }], ['shop', 'add_to_cart', { id: 7 }]]],
  ['Read the reviews, then put the better kettle in the cart',
    [['shop', 'search_products', { query: 'kettle' }], ['shop', 'read_reviews', { id: 7 }], ['shop', 'add_to_cart', { id: 7 }]]],
  ['Buy a kettle', [['shop', 'search_products', { query: 'kettle' }], ['shop', 'add_to_cart', { id: 9 }], ['shop', 'checkout']]],
  ['Reply to Ann', [['mail', 'read_inbox'], ['mail', 'send_reply', { to: 'ann@mail.test', body: 'Noon is fine.' }]]],
  ['Archive the newsletter', [['mail', 'read_inbox'], ['mail', 'archive_message', { from: 'news@shop.test' }]]],
  ["Put Ann's lunch in the calendar",
    [['mail', 'read_inbox'], ['calendar', 'list_events'], ['calendar', 'add_event', { what: 'Lunch with Ann', day: 'Friday' }]]],
  ['Add a meeting', [['calendar', 'list_events'], ['calendar', 'add_event', { what: 'Review', day: 'Monday' }]]],
  ["Note the forum's descaling tip", [['forum', 'read_thread'], ['notes', 'add_note', { title: 'Descale monthly' }]]],
];
const SITES = ['notes', 'shop', 'mail', 'calendar', 'forum'];

const log = (...words) => process.stderr.write(`${words.join(' ')}\n`);

// The card the core shows on `card` (its window's page), as its page loads it.
const shown = (card) => card.evaluate(() => chrome.runtime.sendMessage({
  type: 'card', card_id: Number(new URLSearchParams(location.search).get('card')),
}));

// Sends `request` as `chat`, answering each card as the person does;
// resolves to { reply, cards: [{ kind, guard }] }.
async function call(sw, cards, chat, request) {
  const met = [];
  let reply = send(sw, chat, request);
  for (;;) {
    const got = await cards.race(reply);
    if (!got.card) return { reply: got.reply, cards: met };
    reply = got.reply;
    const card = await shown(got.card);
    met.push({ kind: card.kind, guard: card.after_untrusted === true });
    const answer = { site: SITE_ANSWER, script: SCRIPT_ANSWER }[card.kind] ?? CALL_ANSWER;
    await choose(got.card, answer);
  }
}

async function main() {
  const server = await serve('benches/pages');
  const browser = await launch({ args: ['--host-resolver-rules=MAP *.test 127.0.0.1'] });
  const results = [];
  try {
    const sw = await browser.worker();
    const tabs = {};
    for (const site of SITES) {
      const url = server.url(`${site}.test`, CDN ? '/tasks-cdn.html' : '/tasks.html');
      await browser.newPage(url);
      const tabId = await tabIdOf(sw, url);
      await waitForCount(sw, tabId, (n) => n > 0);
      tabs[site] = tabId;
    }
    const cards = cardWatcher(browser.context);
    const tasks = SMOKE ? TASKS.filter((_, i) => [0, 3, 7].includes(i)) : TASKS;
    let id = 0;
    for (const guarded of CDN ? [true] : [true, false]) {
      await sw.evaluate((on) => self.toolgate.guardUntrusted(on), guarded);
      for (const [what, steps] of tasks) {
        const chat = `task-${++id}`;
        await openChat(sw, chat, what);
        const met = [];
        for (const [site, tool, args = {}] of steps) {
          const { reply, cards: seen } = await call(sw, cards, chat, callRequest(++id, tabs[site], tool, args));
          if (reply?.result?.isError !== false || reply.result._meta?.toolgate?.decision !== 'run') {
            throw new Error(`${what}: ${tool} did not run: ${JSON.stringify(reply).slice(0, 400)}`);
          }
          met.push(...seen);
        }
        const count = (f) => met.filter(f).length;
        const row = {
          task: what, guarded, calls: steps.length,
          site: count((c) => c.kind === 'site'),
          call: count((c) => c.kind !== 'site' && c.kind !== 'script'),
          guard: count((c) => c.guard),
          script: count((c) => c.kind === 'script'),
        };
        results.push(row);
        log(`${guarded ? 'guarded  ' : 'unguarded'} ${what}: ${row.site} site, ${row.script} about other sites' scripts, ${row.call} per-call (${row.guard} the guard's)`);
      }
    }
    await sw.evaluate(() => self.toolgate.guardUntrusted(true));
    await browser.assertNoErrors();
  } finally {
    await browser.close().catch(() => {});
    await server.close();
  }
  if (CDN) {
    const scripts = results.reduce((n, r) => n + r.script, 0);
    const rows = results.map((r) => `| ${r.task} | ${r.calls} | ${r.site} | ${r.script} | ${r.call} |`);
    const text = ['| task (bundle from cdn.test) | calls | site cards | cards about other sites\' scripts | per-call cards |', '|---|---|---|---|---|', ...rows,
      '', `${(scripts / results.length).toFixed(2)} cards about other sites' scripts a task (${results.length} tasks, a chat each)`];
    process.stdout.write(JSON_OUT ? `${JSON.stringify({ tasks: results }, null, 2)}\n` : `${text.join('\n')}\n`);
    return;
  }
  const side = (guarded) => results.filter((r) => r.guarded === guarded);
  const sum = (rows, key) => rows.reduce((n, r) => n + r[key], 0);
  const summary = (rows) => ({
    tasks: rows.length,
    cardsPerTask: (sum(rows, 'site') + sum(rows, 'call')) / rows.length,
    perCallCardsPerTask: sum(rows, 'call') / rows.length,
    tasksWithNoPerCallCard: rows.filter((r) => r.call === 0).length,
    guardCards: sum(rows, 'guard'),
  });
  const before = summary(side(false));
  const after = summary(side(true));
  if (JSON_OUT) {
    process.stdout.write(`${JSON.stringify({ tasks: results, before, after }, null, 2)}\n`);
    return;
  }
  const lines = ['| task | calls | before: site + per-call cards | after: site + per-call cards (the guard\'s) |', '|---|---|---|---|'];
  for (const r of side(true)) {
    const b = side(false).find((x) => x.task === r.task);
    lines.push(`| ${r.task} | ${r.calls} | ${b.site} + ${b.call} | ${r.site} + ${r.call} (${r.guard}) |`);
  }
  const said = (s) => `${s.cardsPerTask.toFixed(2)} cards a task, ${s.perCallCardsPerTask.toFixed(2)} of them per-call; ${s.tasksWithNoPerCallCard} of ${s.tasks} tasks with no per-call card`;
  lines.push('', `before (the guard off): ${said(before)}`, `after (guarded): ${said(after)}; ${after.guardCards} cards the guard's`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
