// A rule's card that nobody answered within its 10 minutes (docs/rules.md,
// "How long a call waits"): the alarm card-windows.js set wakes the worker,
// the core closes what is due, and the agents still waiting are told no.
import { proceed } from './agents.js';
import { closeCardWindow, DEADLINE_ALARM, openWaitingCards, scheduleDeadline } from './card-windows.js';
import { fromJson } from './core.js';
import { keepError } from './errors.js';
import { changeSession } from './session.js';

// chrome.alarms.onAlarm
export async function onAlarm(alarm) {
  if (alarm.name !== DEADLINE_ALARM) return;
  const expired = await changeSession((core) => fromJson(core.expire(Date.now())));
  for (const { chat, request_id: id, window_id: window, step } of expired) {
    if (window !== null) closeCardWindow(window);
    if (step) proceed(chat, id, step, true).catch((error) => keepError('telling an agent its card closed unanswered', error));
  }
  await openWaitingCards();
  await scheduleDeadline();
}
