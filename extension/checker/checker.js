// The arguments' checker (ARCHITECTURE.md, "The arguments' checker"): an
// offscreen document whose workers check agents' arguments against pages'
// schemas, off the service worker's thread, each check stopped at a deadline.
// A worker running a check past it is terminated, which stops whatever the
// validator was doing, and the call is refused as too costly to check: the
// bound holds whatever the validator does, not because a count of its work
// says so.
//
// The service worker hands this document a MessagePort at each of its starts
// (`toolgate:checker-port`); on it come checks ({id, schema, arguments, site})
// and go verdicts ({id, verdict}). One check a site runs at a time, so that a
// site's costly checks wait behind each other and never hold up another
// site's.
'use strict';

// How long one check may take once its worker has it. An honest check takes
// a few milliseconds at most (benches/README.md, "The arguments' budget").
const DEADLINE_MS = 250;
// How long a worker may take to start (load the core) before its check is
// refused; only a worker that had to be started for the check waits for it.
const START_MS = 10_000;
// The most checks running at once, each on its own worker; the rest queue.
const MOST_RUNNING = 4;
// Workers kept started, idle or checking: a check that finds them all busy
// starts one of its own, ended with its check. Counting the busy ones is what
// keeps the pool from starting a worker (loading the core: tens of
// milliseconds of both cores) each time two checks overlap, and then ending
// one (benches/JOURNAL.md, issue 53: figure 13b's load did, once a call).
const KEPT = 2;

// A site whose check ran long waits before its next: WAIT_FOR_LONG times
// what its check took past HONEST_MS, which an honest check does not reach
// (benches/README.md, "The arguments' budget"). So a site's checks take at
// most a quarter of one core, however an agent calls them, and an agent
// calling a page's costly tool in a loop cannot take the cores every other
// tab's agent needs (figure 13a). Counted as the check really took, where it
// ran (ARCHITECTURE.md, "Budgets").
const HONEST_MS = 2;
const WAIT_FOR_LONG = 3;

const TOO_COSTLY = `its schema is too costly to check: the check ran past ${DEADLINE_MS} ms`;

const idle = [];
const running = new Map(); // site -> the check running for it
const queued = [];
const heldUntil = new Map(); // site -> when its next check may start
let wake = null; // the timer that starts the first check held
let alive = 0; // workers started and not terminated, idle or checking

// A worker, and a promise of its start (the core loaded: the worker says so).
function startWorker() {
  alive += 1;
  const worker = new Worker('../../pkg/checker-worker.js');
  const started = new Promise((resolve, reject) => {
    worker.onmessage = ({ data }) => (data?.started ? resolve() : reject(new Error(data?.failed ?? 'it did not start')));
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(event.message));
    };
  });
  started.catch(() => {}); // A start that failed is told by the check that waits on it.
  const one = { worker, started, ready: false };
  started.then(() => { one.ready = true; }, () => {
    // One that failed while idle is dropped (one a check holds is ended by it).
    const at = idle.indexOf(one);
    if (at < 0) return;
    idle.splice(at, 1);
    stopWorker(one);
  });
  return one;
}

function stopWorker(one) {
  alive -= 1;
  one.worker.terminate();
}

function fillIdle() {
  while (alive < KEPT) idle.push(startWorker());
}

// An idle worker for a check, one that has started first (the newest of
// them), else one still starting, else a new one.
function idleWorker() {
  const at = idle.findLastIndex((one) => one.ready);
  if (at >= 0) return idle.splice(at, 1)[0];
  return idle.pop() ?? startWorker();
}

function take(check) {
  queued.push(check);
  next();
}

// Starts what can run: a site's next check once its last one ended, and
// any wait its last one earned is over.
function next() {
  const now = performance.now();
  let soonest = Infinity;
  for (const [site, until] of heldUntil) if (until <= now) heldUntil.delete(site);
  for (let i = 0; i < queued.length && running.size < MOST_RUNNING;) {
    const { site } = queued[i];
    if (running.has(site) || heldUntil.has(site)) {
      if (heldUntil.has(site)) soonest = Math.min(soonest, heldUntil.get(site));
      i += 1;
      continue;
    }
    const [check] = queued.splice(i, 1);
    run(check);
  }
  if (soonest < Infinity) {
    clearTimeout(wake);
    wake = setTimeout(next, soonest - now);
  }
}

function run(check) {
  const one = idleWorker();
  const job = { check, one, timer: null, done: false, began: null };
  running.set(check.site, job);
  const end = (verdict, { stop = false } = {}) => {
    if (job.done) return;
    job.done = true;
    clearTimeout(job.timer);
    running.delete(check.site);
    const took = job.began === null ? 0 : performance.now() - job.began;
    if (took > HONEST_MS) heldUntil.set(check.site, performance.now() + WAIT_FOR_LONG * (took - HONEST_MS));
    if (stop || alive > KEPT) stopWorker(one);
    else idle.push(one);
    check.port.postMessage({ id: check.id, verdict });
    fillIdle();
    next();
  };
  const unchecked = (why) => end({ verdict: 'unchecked', why }, { stop: true });
  // The deadline counts from when a started worker has the check; a worker
  // started for it gets START_MS to start first.
  const startBy = setTimeout(() => unchecked('the checker did not start'), START_MS);
  one.started.then(() => {
    clearTimeout(startBy);
    if (job.done) return;
    one.worker.onmessage = ({ data }) => end(data.verdict);
    one.worker.onerror = (event) => {
      event.preventDefault();
      unchecked(`the validator failed (${event.message})`);
    };
    job.timer = setTimeout(() => unchecked(TOO_COSTLY), DEADLINE_MS);
    job.began = performance.now();
    one.worker.postMessage({ schema: check.schema, arguments: check.arguments, stall: stalling });
  }, (error) => {
    clearTimeout(startBy);
    unchecked(`the checker did not start (${error.message})`);
  });
}

// Whether the next checks never end (the test of the deadline, through the
// service worker's `stallChecker`): each is stopped at its deadline.
let stalling = false;

// Only this extension's own service worker can post to its document.
navigator.serviceWorker.onmessage = (event) => {
  if (event.data?.type !== 'toolgate:checker-port' || !event.ports[0]) return;
  const [port] = event.ports;
  port.onmessage = ({ data }) => {
    if (data?.type === 'stall') {
      stalling = data.on === true;
      return;
    }
    if (typeof data?.id !== 'number' || typeof data.schema !== 'string' || typeof data.arguments !== 'string') return;
    take({ id: data.id, schema: data.schema, arguments: data.arguments, site: String(data.site), port });
  };
};

fillIdle();
