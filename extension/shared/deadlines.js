// Every running call's deadline, watched by one timer: a timer per call
// costs a native round trip on the call's own path (README, figure 4).
const deadlines = new Set();
let sweep = { timer: null, at: Infinity };

function checkDeadlines() {
  sweep = { timer: null, at: Infinity };
  const now = performance.now();
  let next = Infinity;
  for (const deadline of deadlines) {
    if (deadline.at <= now) deadline.expire();
    else next = Math.min(next, deadline.at);
  }
  if (next < Infinity) watch(next);
}

// Timers take at most 2^31 − 1 ms (24.8 days): a longer delay fires at once.
// A timer capped there finds nothing due, and is set again.
const LONGEST_TIMER_MS = 2 ** 31 - 1;
function watch(at) {
  if (at >= sweep.at) return;
  clearTimeout(sweep.timer);
  sweep = { timer: setTimeout(checkDeadlines, Math.min(LONGEST_TIMER_MS, Math.max(0, at - performance.now()))), at };
}

// `promise`, or a rejection with `message` (and `timedOut`) after `ms`.
export function withTimeout(promise, ms, message) {
  return new Promise((resolve, reject) => {
    const deadline = {
      at: performance.now() + ms,
      expire: () => {
        deadlines.delete(deadline);
        reject(Object.assign(new Error(message), { timedOut: true }));
      },
    };
    deadlines.add(deadline);
    watch(deadline.at);
    const settle = (then) => (value) => {
      deadlines.delete(deadline);
      then(value);
    };
    promise.then(settle(resolve), settle(reject));
  });
}
