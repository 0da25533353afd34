// `self.toolgate`: for tests, web developers' own CI, and agent transports:
// the palette, the one agent entry, and the settings. Tests call through the
// service worker by these names; they and their results stay as they are.
import { agent, openChat, withdraw } from './agents.js';
import {
  auditCalls, auditChain, auditEntries, auditStored, flushAudit,
} from './audit.js';
import { stallChecker } from './checker.js';
import { ready } from './core.js';
import { errors } from './errors.js';
import { agentsStatus } from './outside.js';
import { auditQueueBound, auditSending } from './otlp.js';
import { palette } from './palette.js';
import { changeRules } from './rules.js';
import { configure } from './settings.js';
import { watchCalls } from './watch.js';

export const toolgateApi = {
  palette,
  agent,
  openChat,
  withdraw,
  agents: agentsStatus,
  errors,
  ready: () => ready.then(() => true),
  // The audit (docs/rules.md, "Every site, side by side, and the audit"):
  // every entry, oldest first, with its link in the chain; whether each log
  // is whole; what appending it has cost storage since the worker started.
  auditEntries,
  auditChain,
  auditStored,
  flushAudit,
  // The audit on or off: only the benchmark of what it costs a call turns it
  // off (benches/README.md, figure 15); a worker always starts with it on.
  auditCalls,
  // Settings: {callTimeoutMs, resultCapBytes}, each a whole number of at
  // least 1. Bad settings are refused with the reason, and change nothing.
  configure,
  // One change of a site's rules, as the settings page makes it
  // (docs/rules.md): `changes` are [{target: 'kind', kind, level} |
  // {target: 'tool', name, level} | {target: 'area', area, level}], checked
  // by the core against the limits and the tools seen on `site`, stored whole
  // or not at all; refused, it throws the reason. `toolgate check --call`
  // sets the tools it calls apart as Allowed with it (docs/ci.md).
  changeRules,
  // Watching calls for what they change (docs/classes.md, "Hints held to
  // their word") on or off: only the benchmark of its cost (figure 12) and the
  // test that freezes the worker in the debugger (tests/README.md,
  // worker-stops) turn it off.
  watchCalls,
  // The arguments' checker's next checks never end (true) or end again:
  // only the test of its 250 ms deadline stalls it (ARCHITECTURE.md, "The
  // arguments' checker"), to see the check stopped and the call refused.
  stallChecker,
  // Reading results for untrusted content (docs/cards.md, "After untrusted
  // content") on or off: only the benchmark of what the guard costs turns it
  // off (benches/README.md); a worker always starts with it on.
  guardUntrusted: async (on) => {
    (await ready).guardUntrusted(on === true);
  },
  // Sending the audit to the administrator's OTLP endpoint (docs/rules.md,
  // "Sending the audit where your team collects it"): where, and its counts;
  // the queue's bound, which only the test of a receiver that is down for a
  // while makes small.
  auditSending,
  auditQueueBound,
};
