// Events that prove something did not happen, for tests that would otherwise
// wait a fixed time to show it. Each resolves on something the extension does
// anyway: a reply, a step of the agent entry, the worker's answer to a report.
import { sendAsFrame } from './relay-world.mjs';

// Sends `request` as `chat` through the worker's agent entry, as
// `self.toolgate.agent(chat, request)` does, with an `onWaiting` (the one
// desktop agents use) that hears of the card the request comes to wait on.
// `reply` resolves with the reply; `waitsOn` with the id of the card the
// request was told to wait on (as a string, as card.html?card=<id> gives it).
// A request told to wait on a card opened no card of its own.
let nextWatch = 0;
export async function sendWaiting(worker, chat, request) {
  const key = ++nextWatch;
  await worker.evaluate((k) => {
    self.testWaits ??= new Map();
    let told;
    const card = new Promise((done) => { told = done; });
    self.testWaits.set(k, { card, told });
  }, key);
  const reply = worker.evaluate(([c, r, k]) => self.toolgate.agent(c, r, { onWaiting: self.testWaits.get(k).told }),
    [chat, request, key]);
  const waitsOn = worker.evaluate((k) => self.testWaits.get(k).card.then(String), key);
  return { reply, waitsOn };
}

// Resolves once Toolgate's worker has answered every report `page` sent it
// before this call, with the error it gave this one (null). It sends an
// empty report of its own, as the frame (relay-world.mjs): the worker applies
// and answers a tab's reports one at a time, in the order they came, so the
// answer to this one comes after theirs. (A report the page made while
// another of its reports was in flight waits in the relay, and may come
// after this one: call this once the page has made one report since its last answer.)
const PROBE_BATCH = 1e12; // far above the shim's own batch numbers, which count from 1
let nextProbe = 0;
export async function reportsAnswered(page) {
  const answer = await sendAsFrame(page, JSON.stringify({ type: 'updates', batch: PROBE_BATCH + ++nextProbe, ops: [] }));
  return answer?.error ?? answer?.thrown ?? null;
}
