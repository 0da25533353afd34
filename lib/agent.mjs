// An agent's calls as a test makes them (docs/ci.md; tests/README.md): a
// request sent through the worker's one agent entry (`self.toolgate.agent`,
// which only whoever drives the browser through the DevTools protocol can
// reach), and the cards it opens, met as a person meets them. Shared by the
// Playwright fixture (playwright/index.mjs) and the repository's own tests.
import { answersOf, choose, labelsOf } from './cards.mjs';

// A `tools/call` of `browser_call_webmcp_tool`: the page tool `name` of tab
// `tabId`, with `args`.
export const callRequest = (id, tabId, name, args = {}) => ({
  jsonrpc: '2.0', id, method: 'tools/call',
  params: { name: 'browser_call_webmcp_tool', arguments: { tabId, name, arguments: args } },
});

// A `tools/call` of `browser_list_webmcp_tools` for tab `tabId`.
export const listRequest = (id, tabId) => ({
  jsonrpc: '2.0', id, method: 'tools/call',
  params: { name: 'browser_list_webmcp_tools', arguments: { tabId } },
});

// Opens the chat `chat`, named `label` on its cards.
export const openChat = (worker, chat, label) => worker.evaluate(([c, l]) => self.toolgate.openChat(c, { label: l }), [chat, label]);

// Sends `request` as `chat`; resolves with the reply.
export const send = (worker, chat, request) => worker.evaluate(([c, r]) => self.toolgate.agent(c, r), [chat, request]);

// Sends `request` as `chat` and resolves with whichever comes first: its
// reply ({ reply }), or a card it opens ({ card, reply }: the card once it
// takes answers, the reply still to come). `cards` is a `cardWatcher`.
export const start = (worker, cards, chat, request) => cards.race(send(worker, chat, request));

// Sends `request` as `chat` and answers each card it opens with the next of
// `answers` (labels as the card shows them), clicked as a person clicks; or,
// when `answers` is a function, with what it picks from the card's answers
// (`answersOf`'s), null for none. A card with no answer left is closed,
// which refuses (docs/cards.md), and the first such is told in `unanswered`
// ({ heading, labels }). Resolves with { reply, cards: [{ heading, answer }],
// unanswered } once the reply has come.
export async function callAnswering(worker, cards, chat, request, answers = []) {
  const left = [answers].flat();
  const pick = typeof answers === 'function' ? answers : () => left.shift() ?? null;
  const answered = [];
  let unanswered = null;
  let reply = send(worker, chat, request);
  for (;;) {
    const got = await cards.race(reply);
    if (!got.card) return { reply: got.reply, cards: answered, unanswered };
    reply = got.reply;
    const offered = await answersOf(got.card);
    const label = pick(offered);
    if (label === null) {
      unanswered ??= { heading: offered.heading, labels: labelsOf(offered) };
      await got.card.close();
      continue;
    }
    answered.push({ heading: offered.heading, answer: label });
    await choose(got.card, label);
  }
}
