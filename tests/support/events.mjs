// Events that prove something did not happen, for tests that would otherwise
// wait a fixed time to show it. Each resolves on something the extension does
// anyway: a reply, a step of the agent entry, an answer on the relay's channel.
//
// The relay's channel is two CustomEvents on the page's window carrying JSON
// text (extension/content/relay.js): `toolgate:to-relay` from the page's world
// (reports, `call_result`), `toolgate:to-page` back (`results`, `call`). The
// relay listens from document_start, so by the time a listener a test adds
// hears an event, the relay has handled it.

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

// Resolves once Toolgate's worker has answered every report `page` made
// before this call, with the error it gave this one (null). It sends an
// empty report of its own: the relay forwards reports in the order the page
// made them, and the worker applies and answers them one at a time in the
// order they came, so the answer to this one comes after theirs.
const PROBE_BATCH = 1e12; // far above the shim's own batch numbers, which count from 1
let nextProbe = 0;
export function reportsAnswered(page) {
  return page.evaluate((batch) => new Promise((done) => {
    const answered = (event) => {
      let message;
      try {
        message = JSON.parse(event.detail);
      } catch {
        return;
      }
      if (message?.type !== 'results' || message.batch !== batch) return;
      window.removeEventListener('toolgate:to-page', answered);
      done(message.error);
    };
    window.addEventListener('toolgate:to-page', answered);
    window.dispatchEvent(new CustomEvent('toolgate:to-relay', { detail: JSON.stringify({ type: 'updates', batch, ops: [] }) }));
  }), PROBE_BATCH + ++nextProbe);
}

// From now on, listens for `page` handing its next call's answer to the relay
// (the shim's `call_result`); `answered()` resolves once it has, with whether
// the tool answered with a result.
export async function nextCallAnswer(page) {
  await page.evaluate(() => {
    window.testNextAnswer = new Promise((done) => {
      const heard = (event) => {
        let message;
        try {
          message = JSON.parse(event.detail);
        } catch {
          return;
        }
        if (message?.type !== 'call_result') return;
        window.removeEventListener('toolgate:to-relay', heard);
        done(message.ok);
      };
      window.addEventListener('toolgate:to-relay', heard);
    });
  });
  return { answered: () => page.evaluate(() => window.testNextAnswer) };
}
