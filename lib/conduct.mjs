// Hints held to their word, as a web developer's CI checks them (docs/ci.md;
// docs/classes.md, "Hints held to their word"): a tool called as an agent
// calls it, and what its tab was seen doing while it ran. Shared by
// `toolgate check --call` (lib/check.mjs) and the Playwright fixture's
// `toKeepItsHints` (playwright/index.mjs).
import { pageText } from '../pkg/toolgate.js';
import { entriesOf } from './tools.mjs';

// How long after its reply a call's verdict may still come. The worker
// listens to a tab for half a second after a call answers, since what the
// call started as it answered (a beacon, a form submission, a navigation)
// reaches it later (ARCHITECTURE.md, the code map: `watch.js`); such a flag
// is then only in the palette. The rest is margin for the browser's events.
export const VERDICT_MS = 1000;

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// One thing a call was seen doing, in words: "sent POST /api/notes/delete",
// with "(another site)" and "(cannot tell: why)" where they apply
// (docs/classes.md, "What a call is judged on").
export const seenText = (seen) => [
  `${seen.done} ${seen.to}`.trim(),
  ...(seen.off_site ? ['(another site)'] : []),
  ...(seen.cannot_tell ? [`(cannot tell: ${seen.why ?? 'another call ran in the tab at the same time'})`] : []),
].join(' ');

// The flag the palette of tab `tabId` shows on tool `name`, if any: null
// when it has none, undefined when the tab no longer shows the tool (it
// navigated away).
async function flagShown(worker, tabId, name) {
  const palette = await worker.evaluate((id) => self.toolgate.palette(id), tabId);
  const entry = entriesOf(palette).find((e) => e.name === name);
  return entry === undefined ? undefined : (entry.broke ?? null);
}

// The verdict on a call of `name` in tab `tabId` whose reply is `reply`
// (`self.toolgate.agent`'s): { decision, why, isError, text, seen, overlapped,
// broke, untrusted, declaresUntrusted }: `untrusted` is the reply's
// `result_untrusted` ({ because, phrase, excerpt }: docs/agents.md) or null,
// `declaresUntrusted` whether the tool declares `untrustedContentHint: true`. `broke` is the flag's text ("said Read only; during a call it
// sent POST …"), from the reply when the observation came before the tool
// answered, else from the palette, which is read until it shows a flag or
// VERDICT_MS have passed since the reply. `reopen()`, when given, is called
// if the tab no longer shows the tool by then (the call navigated it away),
// and should bring the tool back, so that its flag can be read; the palette
// is read once more after it.
export async function verdictOf(worker, tabId, name, reply, { reopen = null, waitMs = VERDICT_MS } = {}) {
  const result = reply.result ?? {};
  const meta = result._meta?.toolgate ?? {};
  const verdict = {
    decision: meta.decision ?? 'refuse',
    why: meta.why ?? reply.error?.message ?? '',
    isError: result.isError === true || reply.error !== undefined,
    text: result.content?.map((c) => c.text ?? '').join('') ?? reply.error?.message ?? '',
    seen: (meta.seen ?? []).map(seenText),
    overlapped: meta.overlapped === true,
    broke: meta.broke?.text ?? null,
    untrusted: meta.result_untrusted ?? null,
    declaresUntrusted: meta.untrusted_content === true,
  };
  if (verdict.broke !== null) return verdict;
  const until = Date.now() + waitMs;
  let flag = await flagShown(worker, tabId, name);
  while (!flag && Date.now() < until) {
    await sleep(50);
    flag = await flagShown(worker, tabId, name);
  }
  if (flag === undefined && reopen) {
    await reopen();
    flag = await flagShown(worker, tabId, name);
  }
  verdict.broke = flag ?? null;
  return verdict;
}

// What a flag says the call did: its text after "during a call it ".
export const didText = (broke) => broke.replace(/^said [^;]*; during a call it /, '');

// What a call's result says to the agent's model, as a web developer's CI
// reports it (docs/ci.md, "Results that speak to the agent's model"): a
// phrase addressed to the model, text the learned detector reads as
// instructions to the agent, or text people cannot see, in what the tool
// returned (the reply's `result_untrusted`, `because` addressed,
// reads_as_instructions or hidden), with the excerpt escaped as Toolgate's
// pages show page text.
// Resolves `{ text, fails }`, or null when the result holds neither: it
// `fails` unless the tool declares `untrustedContentHint: true`, whose
// result is expected to hold other people's text (then a warning). A result
// untrusted only because its tool declares so, or is flagged, is not one.
export function resultSpeaks({ untrusted, declaresUntrusted }) {
  if (!untrusted) return null;
  const SAID = {
    addressed: `its result speaks to the agent's model ("${untrusted.phrase}")`,
    reads_as_instructions: 'its result reads as instructions to the agent',
    hidden: 'its result holds text people cannot see',
  };
  if (!Object.hasOwn(SAID, untrusted.because)) return null;
  const said = SAID[untrusted.because];
  const quoted = `“${pageText(untrusted.excerpt, 'value')}”`;
  return declaresUntrusted
    ? { text: `${said}: ${quoted}; expected, as it declares untrustedContentHint: true`, fails: false }
    : { text: `${said}: ${quoted}; it does not declare untrustedContentHint: true`, fails: true };
}
