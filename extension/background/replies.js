// Agents waiting for their replies. A request that needs a person waits on a
// card; the wait lives in this worker's memory, but the pending call lives in
// the stored session: if the worker stops, the agent sends the same request
// (same id) again and waits on the same card, and a card answered meanwhile
// still runs its call, its reply kept for the agent.
import { pageText, untrustedWhy } from '../../pkg/toolgate.js';
import { aboutRequest, recordDecision } from './audit.js';
import { toJson } from './core.js';
import { changeSession } from './session.js';

// "chat\0id" -> functions waiting for that request's reply.
const waiters = new Map();
// "chat\0id" -> told when that request comes to wait on a card.
const watchers = new Map();
const keyOf = (chat, id) => `${chat}\u0000${JSON.stringify(id)}`;

// The reply to request `id` of `chat`, when it comes. `onWaiting` hears of
// each card the request comes to wait on (desktop agents tell their client).
export function waitFor(chat, id, onWaiting) {
  const key = keyOf(chat, id);
  if (onWaiting) watchers.set(key, onWaiting);
  return new Promise((resolve) => {
    waiters.set(key, [...(waiters.get(key) ?? []), resolve]);
  });
}

// Whether an agent waits here for request `id` of `chat`.
export const isWaitedFor = (chat, id) => waiters.has(keyOf(chat, id));

// Tells request `id` of `chat`'s watcher, if any, that it waits on card `cardId`.
export function tellWaiting(chat, id, cardId) {
  watchers.get(keyOf(chat, id))?.(cardId);
}

// What the agent was told, for the audit: the decision, or the error. A
// result that made its chat untrusted (docs/cards.md, "After untrusted
// content") adds why, in the cards' words, and its excerpt shown as page
// text is (the settings page has no core to ask). The chat's sources, which
// each later reply repeats, are left out: each was kept once, as it was read.
function audited(reply) {
  const meta = reply?.result?._meta?.toolgate;
  if (!meta || typeof meta !== 'object') return reply?.error ? { error: reply.error.message } : null;
  const told = { ...meta };
  delete told.chat_read_untrusted;
  const found = meta.result_untrusted;
  if (found && typeof found === 'object') {
    try {
      told.untrusted_why = untrustedWhy(JSON.stringify(found));
      told.untrusted_excerpt = pageText(String(found.excerpt ?? ''), 'value');
    } catch {
      // The entry keeps what the reply said; the settings page shows that.
    }
  }
  return told;
}

// Hands `reply` to the agents waiting for it. `kept`: the core kept the reply
// for an agent that lost its wait; taken here, the core is told it was.
export function deliver(chat, id, reply, kept) {
  // Read for the audit as its batch is written, not on the reply's path.
  const about = aboutRequest(chat, id);
  recordDecision(() => {
    const told = audited(reply);
    return told && { what: 'decision', chat, request_id: id, ...about, ...told };
  });
  const key = keyOf(chat, id);
  const waiting = waiters.get(key);
  if (!waiting) return undefined; // Kept in the session until the agent asks again.
  waiters.delete(key);
  watchers.delete(key);
  for (const resolve of waiting) resolve(reply);
  if (!kept) return undefined;
  return changeSession((core) => core.collected(chat, toJson(id, 'request id')));
}
