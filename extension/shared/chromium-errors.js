// Chromium's error texts, read in one place. Chromium's APIs fail with an
// Error whose message is all that says why; each function here recognises one
// kind of failure from those words, so that a change in Chromium's wording is
// mended here once.

// The frame's document went away while a message to it was out: the tab
// closed, the page navigated, or it went into the back/forward cache
// (chrome.tabs.sendMessage to a frame and document).
export function saysDocumentGone(text) {
  return /Receiving end does not exist|message (port|channel) (is )?closed|No tab with id|Frame with ID|document/i.test(text);
}

// The native-messaging host is not installed, or this extension may not
// start it (chrome.runtime.connectNative, or its port's lastError).
export function saysHostNotInstalled(text) {
  return /not found|forbidden/i.test(text);
}

// No service worker took a message, or none answered it: it stopped, or is
// starting (chrome.runtime.sendMessage from a relay or one of Toolgate's
// pages). Sent again, it starts one.
export function saysWorkerUnreachable(text) {
  return /message (port|channel) closed|Receiving end does not exist|Could not establish connection|stopped before it answered/i.test(text);
}

// Sends `message` to Toolgate's service worker; resolves with its answer.
// A worker that stops after it took the message, before it answered, does
// not fail the send: Chromium resolves it with nothing, as if it had been
// answered (seen on 148 and 156; tests/e2e/registration.test.mjs). The
// worker answers every message of its relays and pages with something, at
// least null (background/routing.js), so nothing here means no answer, and
// fails with words `saysWorkerUnreachable` knows: whoever sends may send again.
export async function askWorker(message) {
  const answer = await chrome.runtime.sendMessage(message);
  if (answer === undefined) throw new Error("Toolgate's service worker stopped before it answered");
  return answer;
}

// Runs `attempt` (given its try's number, from 1) until a worker answers it:
// again while it fails as `saysWorkerUnreachable` reads it, six tries in all,
// 0.1, 0.2, 0.4, 0.8 and 1.6 s apart (a stopped worker's successor is
// running well within that). Any other failure, or the last, is its own.
const TRIES = 6;
export async function untilAWorkerAnswers(attempt) {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt(tries);
    } catch (error) {
      if (tries >= TRIES || !saysWorkerUnreachable(String(error?.message ?? error))) throw error;
    }
    await new Promise((done) => setTimeout(done, 50 * 2 ** tries));
  }
}
