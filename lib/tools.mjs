// A page's tools as Toolgate classes them (docs/ci.md): the palette the
// worker gives (`self.toolgate.palette`), read once the page's registrations
// have settled, and what in it fails a site's CI.
import { readFileSync } from 'node:fs';
import { initSync, ruleWords } from '../pkg/toolgate.js';

// The id Chromium gave the tab showing `page`.
export async function tabIdOf(worker, page) {
  const url = page.url();
  const id = await worker.evaluate(async (u) => (await chrome.tabs.query({})).find((t) => t.url === u)?.id, url);
  if (id === undefined) throw new Error(`Toolgate sees no tab showing ${url}`);
  return id;
}

// Every entry of a palette, tools and skills, in the palette's order.
export const entriesOf = (palette) => palette.groups.flatMap((g) => g.entries);

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// The palette of the tab showing `page`, once nothing in it has changed for
// `settleMs` (a page may register tools after it loads: from a script that
// runs late, a fetch, a form parsed later), or after `timeoutMs` at most.
// Resolves to `{ palette, settled, waitedMs }`; `settled` is false when it
// was still changing at the timeout.
export async function settledPalette(worker, page, { settleMs = 1000, timeoutMs = 15_000 } = {}) {
  const started = Date.now();
  const tabId = await tabIdOf(worker, page);
  let last = null;
  let lastText = null;
  let since = Date.now();
  for (;;) {
    last = await worker.evaluate((id) => self.toolgate.palette(id), tabId);
    const text = JSON.stringify(last.groups);
    if (text !== lastText) {
      lastText = text;
      since = Date.now();
    } else if (Date.now() - since >= settleMs) {
      return { palette: last, settled: true, waitedMs: Date.now() - started };
    }
    if (Date.now() - started >= timeoutMs) return { palette: last, settled: false, waitedMs: Date.now() - started };
    await sleep(100);
  }
}

// Waits until the tab `tabId` publishes the tool or skill `name` (a page
// registers its tools from its own scripts, and their report reaches the
// worker after the page's load event), at most `timeoutMs`. Resolves to
// whether it did; a caller that goes on regardless gets Toolgate's own
// answer for a tool it does not have.
export async function publishes(worker, tabId, name, { timeoutMs = 10_000 } = {}) {
  const started = Date.now();
  for (;;) {
    const palette = await worker.evaluate((id) => self.toolgate.palette(id), tabId);
    if (entriesOf(palette).some((e) => e.name === name)) return true;
    if (Date.now() - started >= timeoutMs) return false;
    await sleep(50);
  }
}

// What the badge of an entry is: its class, or "Skill", in the core's words
// (src/views/rule_words.rs): the core the package ships, loaded here once.
initSync({ module: readFileSync(new URL('../pkg/toolgate_bg.wasm', import.meta.url)) });
export const CLASSES = JSON.parse(ruleWords()).classes;

// The warnings `--strict` fails (docs/ci.md): a hint left out (except on a
// form, which cannot declare hints), and the notes on texts that talk to the
// agent: hidden or control characters, a description over Chrome's budget,
// words addressed to the model (docs/classes.md, "Lint notes").
const STRICT_KINDS = new Set(['undeclared', 'hidden_characters', 'long_description', 'addressed_to_model']);

// Why `entry` fails a site's CI, one sentence each: its lint notes of the
// error kind (a class left to a default, an unreadable declaration…;
// docs/classes.md, "Lint notes"), and a class other than `expected` (when
// given). With `strict`, the warnings of STRICT_KINDS fail too. An empty
// list: it passes.
export function findingsOf(entry, expected = undefined, { strict = false } = {}) {
  const failsStrictly = (l) => STRICT_KINDS.has(l.kind) && !(l.kind === 'undeclared' && entry.path === 'declarative');
  const fails = (l) => l.severity === 'error' || (strict && failsStrictly(l));
  const found = entry.lints.filter(fails).map((l) => l.text);
  if (expected !== undefined && expected !== entry.badge) {
    found.push(`expected ${expected}, but Toolgate classes it ${entry.badge}`);
  }
  return found;
}

// The lint notes of `entry` that do not fail it, as one sentence.
export const warningsOf = (entry, findings) => entry.lints.map((l) => l.text).filter((t) => !findings.includes(t)).join('; ');
