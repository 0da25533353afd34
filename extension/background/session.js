// Saving the agent session (chats, answers, pending cards, running calls,
// kept replies) to chrome.storage.session, under its own key. It shares that
// area (10 MB, ended with the browser) with the tools pages publish, which
// the core holds to a budget no page can pass (src/page/registry/stored.rs),
// so the rest is the session's: no page can make an answer's write fail.
//
// The session is stored after every change, but its writes are coalesced: a
// change schedules one write a moment later (after the reply that change
// produced went out), except before a tool runs: `run` (calls.js) writes the
// scheduled save at once, so a call is recorded before it starts and a worker
// stopped mid-call never runs it twice (a Read-only tool's call, which is
// harmless to repeat, does not wait for that). Writes reach the browser in the
// order they are issued, and a worker stopped after issuing one does not take
// it back. What a person is shown or told waits for the write that stores it
// (`saveNow`): a card's window opens once its card is stored, and a card hears
// that its answer was taken once the answer is stored, so a worker stopped in
// between loses neither (the card sends its answer again to the next worker).
import { SESSION_KEY, loaded, ready, serially } from './core.js';
import { keepError } from './errors.js';

let saveScheduled = false;
// The last write issued: once it is done, everything changed before it is stored.
let lastWrite = Promise.resolve();

// Schedules the one write that stores what the last change did.
function scheduleSave(core) {
  // The core says, without writing the session out, whether anything that
  // must be stored changed: after most agent calls to Read-only tools,
  // nothing did, and they cost no timer and no write (README, figure 4).
  if (saveScheduled || !core.sessionUnsaved()) return;
  saveScheduled = true;
  setTimeout(() => writeScheduledSave(core), 0);
}

// Writes the save a change scheduled, if it is not written yet; with none
// scheduled, it writes nothing.
function writeScheduledSave(core) {
  if (!saveScheduled) return;
  saveScheduled = false;
  // Undefined when what is stored would not change. A write costs the
  // browser's UI thread, which every message to a page goes through.
  const record = core.sessionRecord();
  if (record === undefined) return;
  lastWrite = chrome.storage.session.set({ [SESSION_KEY]: record })
    .catch((error) => keepError('storing the agent session', error));
}

// Runs `change(core)` in turn, then schedules the save of the session it
// changed.
export function changeSession(change) {
  return serially(async () => {
    const core = loaded ?? await ready;
    const result = change(core);
    scheduleSave(core);
    return result;
  });
}

// Before a tool that must not run twice starts. The order is: the change that
// gave the run step (`changeSession`) scheduled a save, then this writes that
// save at once instead of at its timer; it relies on that schedule, since it
// writes only a save some change scheduled.
export function recordBeforeRun(core) {
  // The call is on record before the page is asked to run it.
  writeScheduledSave(core);
}

// Writes the scheduled save at once, if there is one; resolves once every
// change made so far is stored (writes land in the order they are issued).
// For what must be stored before a person sees or hears of it.
export function saveNow(core) {
  writeScheduledSave(core);
  return lastWrite;
}
