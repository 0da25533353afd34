// An agent's arguments checked off this worker's thread (ARCHITECTURE.md,
// "The arguments' checker"). The checker is an offscreen document whose
// workers run the validator, each check stopped at its deadline
// (extension/checker/). This worker only hands it the schema's and the
// arguments' texts and takes back the verdict, so no page's schema holds
// this thread, or any other tab's agent, for as long as its check would take.
import { withTimeout } from '../shared/deadlines.js';

const CHECKER = 'extension/checker/checker.html';
const CHECKER_URL = chrome.runtime.getURL(CHECKER);
// Past this with no verdict (the document closed, its worker never started),
// the call is refused as unchecked; the checker's own deadline for a check
// is far shorter (extension/checker/checker.js).
const NO_ANSWER_MS = 15_000;

// This worker start's port to the checker, as a promise; null until the first check.
let port = null;
const waiting = new Map();
let nextId = 1;

// Opens the checker's document if it is not open (one a profile: it outlives
// this worker's stops, so a worker's first check after a restart finds it).
async function openChecker() {
  const open = await chrome.runtime.getContexts({ contextTypes: ['OFFSCREEN_DOCUMENT'], documentUrls: [CHECKER_URL] });
  if (open.length > 0) return;
  try {
    await chrome.offscreen.createDocument({
      url: CHECKER,
      reasons: ['WORKERS'],
      justification: 'checks agents\u2019 arguments against pages\u2019 schemas off the service worker\u2019s thread, each check stopped at a deadline',
    });
  } catch (error) {
    // Another of this worker's starts opened it meanwhile.
    if (!/single offscreen document/i.test(String(error?.message ?? error))) throw error;
  }
}

// A port to the checker's document: a channel whose other end is handed to
// the document through the Clients API (the document is one of this
// extension's, so only its own service worker can post to it).
async function connect() {
  await openChecker();
  const clients = await self.clients.matchAll({ includeUncontrolled: true, type: 'window' });
  const checker = clients.find((client) => client.url === CHECKER_URL);
  if (!checker) throw new Error('its document did not open');
  const channel = new MessageChannel();
  channel.port1.onmessage = ({ data }) => {
    const settle = waiting.get(data?.id);
    if (!settle) return;
    waiting.delete(data.id);
    settle(data.verdict);
  };
  checker.postMessage({ type: 'toolgate:checker-port' }, [channel.port2]);
  return channel.port1;
}

const unchecked = (why) => ({ verdict: 'unchecked', why });

// The checker's verdict on `asked` (the core's `CheckAsked`: the schema's and
// the arguments' JSON text, and the tool's site), as the core's `Verdict`
// reads it. A checker that cannot start or answer gives "unchecked": the
// call is refused, never run unchecked.
export async function checkOffThread(asked) {
  let verdict;
  try {
    const to = await connected();
    const id = nextId++;
    const answer = new Promise((resolve) => waiting.set(id, resolve));
    to.postMessage({ id, schema: asked.schema, arguments: asked.arguments, site: asked.site });
    verdict = await withTimeout(answer, NO_ANSWER_MS, 'the checker did not answer').finally(() => waiting.delete(id));
  } catch (error) {
    // Open it again at the next check (a port that stopped answering too).
    port = null;
    verdict = unchecked(`the checker failed (${error?.message ?? error})`);
  }
  return verdict;
}

// This worker start's port to the checker, connecting once; a connection
// that failed is tried again at the next check.
function connected() {
  if (port === null) {
    port = connect();
    port.catch(() => { port = null; });
  }
  return port;
}

// The checker's next checks never end (`on`), or end again: for the test
// of its deadline only (tests/e2e/costly-schemas.test.mjs), through the CI API.
export async function stallChecker(on) {
  (await connected()).postMessage({ type: 'stall', on: on === true });
}

// Opens the checker ahead of the first call that needs it, so that call
// does not wait for the document and its workers to start.
export function warmChecker() {
  connected();
}
