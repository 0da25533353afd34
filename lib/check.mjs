// `toolgate check`: loads each URL in headless Chromium with Toolgate in
// unattended mode, waits until the page's tools have settled, prints the
// palette, and fails on what a developer must fix (docs/ci.md).
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { openChat, send, callRequest } from './agent.mjs';
import { BrowserNotFound, findChromium, launchToolgate } from './chromium.mjs';
import { didText, resultSpeaks, verdictOf } from './conduct.mjs';
import { ExpectFileError, readExpect, writeExpect } from './expect.mjs';
import { junit, table } from './report.mjs';
import { entriesOf, findingsOf, publishes, settledPalette, tabIdOf, warningsOf } from './tools.mjs';

// Exit codes (docs/ci.md): when several apply, the largest.
export const EXIT = { ok: 0, failed: 1, usage: 2, browser: 3, load: 4, noTools: 5 };

export const USAGE = `usage: toolgate check URL... [options]

Loads each URL in headless Chromium with Toolgate, waits until its WebMCP
tools have settled, prints how Toolgate classes them, and fails when a class
is left to a default, a declaration cannot be read, a lint note is an error,
a class differs from --expect, or a tool named by --call changes state while
it says Read only, reaches another site while it says openWorldHint: false,
or returns text addressed to the agent's model (or hidden from people) without
declaring untrustedContentHint: true. Other lint notes (a hint left out that did
not decide the class, the legacy API) are shown as warnings.

options:
  --expect FILE        a JSON or YAML file of tool name -> class to hold the tools to
  --write-expect FILE  write the classes found to FILE (YAML for .yaml/.yml, else JSON)
  --call TOOL[=JSON]    call TOOL as an agent would, with the arguments JSON (default {}),
                       and fail it if it broke its hints or its result speaks to the
                       agent's model undeclared; repeatable. Toolgate's rules
                       are set to allow exactly the tools called, each on its site
  --strict             a hint left out fails too, even one that did not decide the class,
                       and so do the notes on texts that talk to the agent (hidden
                       characters, a long description, words addressed to the model),
                       and a called tool that threw (its call failed)
  --json               print the palettes as Toolgate's worker gives them, not a table
  --junit FILE         write JUnit XML, one test case per tool
  --browser PATH       the Chromium to run (else CHROMIUM, PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH,
                       Playwright's own Chromium, the usual install paths)
  --native             turn on Chromium's own WebMCP as well
  --settle MS          how long the tools must stay unchanged (default 1000)
  --timeout MS         how long to wait for a page and its tools (default 15000)

exit codes: 0 every tool passes, 1 a tool fails, 2 bad usage or --expect file,
3 no Chromium could be started, 4 a URL did not load or could not be read,
5 a page published no tools`;

class UsageError extends Error {}

function options(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        expect: { type: 'string' },
        'write-expect': { type: 'string' },
        json: { type: 'boolean' },
        junit: { type: 'string' },
        browser: { type: 'string' },
        native: { type: 'boolean' },
        strict: { type: 'boolean' },
        call: { type: 'string', multiple: true, default: [] },
        settle: { type: 'string', default: '1000' },
        timeout: { type: 'string', default: '15000' },
      },
    });
  } catch (error) {
    throw new UsageError(error.message);
  }
  const { values, positionals: urls } = parsed;
  if (urls.length === 0) throw new UsageError('give at least one URL to check');
  for (const url of urls) {
    let protocol = null;
    try {
      protocol = new URL(url).protocol;
    } catch {
      // Not a URL at all.
    }
    if (!['http:', 'https:', 'file:'].includes(protocol)) {
      throw new UsageError(`${url} is not a URL Toolgate can check: give it whole, as http://localhost:3000/`);
    }
  }
  values.call = values.call.map(callOption);
  for (const key of ['settle', 'timeout']) {
    const ms = Number(values[key]);
    if (!Number.isSafeInteger(ms) || ms < 0) throw new UsageError(`--${key} takes milliseconds, a whole number, not ${values[key]}`);
    values[key] = ms;
  }
  return { ...values, urls };
}

// `--call TOOL[=JSON]` read: { name, args }; the arguments, an object.
function callOption(text) {
  const at = text.indexOf('=');
  const name = at < 0 ? text : text.slice(0, at);
  if (name === '') throw new UsageError(`--call ${text} names no tool: give it as --call TOOL or --call 'TOOL={"key":"value"}'`);
  if (at < 0) return { name, args: {} };
  let args;
  try {
    args = JSON.parse(text.slice(at + 1));
  } catch (error) {
    throw new UsageError(`--call ${name}: its arguments are not JSON (${error.message})`);
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new UsageError(`--call ${name}: its arguments are a JSON object, as {"id": 1}, not ${text.slice(at + 1)}`);
  }
  return { name, args };
}

// The first line of a Playwright error, without the call's name.
const firstLine = (error) => String(error?.message ?? error).split('\n')[0].replace(/^\w+\.\w+: /, '');

// A page that could not be checked: one JUnit case in error (`what`), and its exit code.
const pageError = (what, kind, code, message) => ({ what, kind, code, message });

// The chats `toolgate check` calls tools in (--call), named on the audit:
// one for each call, so that each tool is held to its hints alone. A chat
// that read untrusted content asks before each call of a tool that acts,
// which unattended is refused (docs/cards.md, "After untrusted content"):
// in one chat, an honest tool that reads mail would fail the next call.
const CHAT = 'toolgate-check';

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// Sets `entry` apart as Allowed on its site, as the settings page does
// (docs/rules.md, "Areas and tools set apart"): unattended, what a site's
// rules allow runs, with no card, and nothing else. A site without rules
// starts from the defaults. Resolves once the rule holds in the palette, so
// that the call meets it.
async function allow(worker, tabId, entry, deadline) {
  await worker.evaluate(([site, name]) => self.toolgate.changeRules(site, [{ target: 'tool', name, level: 'allowed' }]), [entry.site, entry.name]);
  for (;;) {
    const palette = await worker.evaluate((id) => self.toolgate.palette(id), tabId);
    const now = entriesOf(palette).find((e) => e.name === entry.name);
    if (now?.agents?.startsWith('What agents may do: Allowed') || Date.now() >= deadline) return;
    await sleep(50);
  }
}

// Calls each tool of `calls` (--call) that the page publishes, one after
// another, as an agent in unattended mode, and holds it to its hints: its
// `call` is the verdict (lib/conduct.mjs), and it fails when it broke its
// hints, when Toolgate did not run it, when its result speaks to the agent's
// model or hides text and the tool does not declare untrustedContentHint
// (`resultSpeaks`), or, with --strict, when its call failed (the tool
// threw). A call that took the tab elsewhere is followed by the page loaded
// again.
async function callTools(browser, page, tools, opts, say) {
  const worker = await browser.worker();
  const tabId = await tabIdOf(worker, page);
  const home = page.url();
  let moved = false; // the tab navigated since the call started
  const isMain = (frame) => frame === page.mainFrame();
  page.on('framenavigated', (frame) => { if (isMain(frame)) moved = true; });
  // Back to the page, once a navigation the call started (`navigates`: its
  // reply or flag says so, or the palette lost the tool) has committed.
  const back = async (name, navigates) => {
    if (!moved && navigates) await page.waitForEvent('framenavigated', { predicate: isMain, timeout: opts.timeout }).catch(() => {});
    if (!moved) return;
    await page.goto(home, { waitUntil: 'load', timeout: opts.timeout });
    await publishes(worker, tabId, name, { timeoutMs: opts.timeout });
  };
  const tellsOfNavigating = (verdict) => [verdict.broke, ...verdict.seen].some((t) => t?.includes('navigated the tab'));
  for (const { name, args } of opts.call) {
    const tool = tools.find((t) => t.entry.name === name);
    if (!tool) continue;
    await publishes(worker, tabId, name, { timeoutMs: opts.timeout });
    await allow(worker, tabId, tool.entry, Date.now() + opts.timeout);
    say(`calling ${name} with ${JSON.stringify(args)}`);
    moved = false;
    const chat = `${CHAT}-${callsMade += 1}`;
    await openChat(worker, chat, 'toolgate check');
    const reply = await send(worker, chat, callRequest(callsMade, tabId, name, args));
    const verdict = await verdictOf(worker, tabId, name, reply, { reopen: () => back(name, true) });
    const speaks = resultSpeaks(verdict);
    tool.call = { args, ...verdict, speaks: speaks?.text ?? null };
    if (verdict.broke) tool.findings.push(verdict.broke);
    else if (verdict.decision !== 'run') tool.findings.push(`Toolgate did not run the call: ${verdict.why}`);
    else if (verdict.isError && opts.strict) tool.findings.push(`the call failed: ${verdict.text}`);
    if (speaks?.fails) tool.findings.push(speaks.text);
    const outcome = verdict.decision !== 'run' ? 'not run' : verdict.isError ? 'the call failed' : 'kept its hints';
    const said = speaks ? `; ${speaks.text}` : '';
    say(`${name}: ${verdict.broke ? `broke its hints: ${didText(verdict.broke)}` : outcome}${said}`);
    await back(name, tellsOfNavigating(verdict));
  }
}
let callsMade = 0;

// Loads `url` and reads its settled palette: `{ url, palette, tools }`, or
// `{ url, error }` when it did not load or published nothing.
async function checkPage(browser, url, opts, expected, say) {
  const page = await browser.context.newPage();
  try {
    say(`loading ${url}`);
    let response;
    try {
      response = await page.goto(url, { waitUntil: 'load', timeout: opts.timeout });
    } catch (error) {
      return { url, error: pageError('loads', 'load', EXIT.load, `${url} did not load: ${firstLine(error)}`) };
    }
    if (response && response.status() >= 400) {
      const message = `${url} did not load: the server answered HTTP ${response.status()} ${response.statusText()}`.trimEnd();
      return { url, error: pageError('loads', 'load', EXIT.load, message) };
    }
    const { palette, settled, waitedMs } = await settledPalette(await browser.worker(), page, {
      settleMs: opts.settle, timeoutMs: opts.timeout,
    });
    const entries = entriesOf(palette);
    const seconds = `${(waitedMs / 1000).toFixed(1)} s`;
    if (entries.length === 0) {
      const why = palette.page === 'shimmed' ? '' : ` (Toolgate's scripts did not run in it: ${palette.page})`;
      return {
        url,
        palette,
        error: pageError('publishes tools', 'no-tools', EXIT.noTools, `${url} published no WebMCP tools or skills within ${seconds}${why}`),
      };
    }
    say(settled ? `${entries.length} tools and skills, settled after ${seconds}`
      : `${entries.length} tools and skills, still changing after ${seconds}: checking these`);
    const tools = entries.map((entry) => ({ entry, findings: findingsOf(entry, expected?.get(entry.name), { strict: opts.strict }) }));
    if (opts.call.length) await callTools(browser, page, tools, opts, say);
    return { url, palette, tools };
  } finally {
    await page.close().catch(() => {});
  }
}

// The classes found, name -> class, for --write-expect; throws UsageError
// when two pages give one name two classes.
function classesFound(pages) {
  const classes = new Map();
  for (const { tools = [] } of pages) {
    for (const { entry } of tools) {
      const had = classes.get(entry.name);
      if (had && had !== entry.badge) {
        throw new UsageError(`two pages register ${entry.name}, as ${had} and as ${entry.badge}: check them with an expect file each`);
      }
      classes.set(entry.name, entry.badge);
    }
  }
  return classes;
}

function print(pages, missing, json, out) {
  if (json) {
    // With --call, each palette gains `calls`: each called tool's verdict.
    const calls = (p) => p.tools?.filter((t) => t.call).map((t) => ({ name: t.entry.name, ...t.call, findings: t.findings }));
    out(JSON.stringify(pages.map((p) => (p.palette && p.tools?.some((t) => t.call) ? { ...p.palette, calls: calls(p) }
      : p.palette ?? { url: p.url, error: p.error.message })), null, 2));
    return;
  }
  for (const page of pages) {
    if (page.error) {
      out(`✗ ${page.error.message}\n`);
      continue;
    }
    out(table(page.palette, page.tools));
    out('');
    for (const { entry, findings, call } of page.tools) {
      if (findings.length) out(`✗ ${entry.name}: ${findings.join('; ')}`);
      const threw = call?.decision === 'run' && call.isError && !findings.includes(`the call failed: ${call.text}`) ? [`the call failed: ${call.text}`] : [];
      // A result that speaks to the model from a tool that declares untrusted content.
      const speaks = call?.speaks && !findings.includes(call.speaks) ? [call.speaks] : [];
      const warnings = [warningsOf(entry, findings), ...threw, ...speaks].filter(Boolean).join('; ');
      if (warnings) out(`! ${entry.name}: ${warnings}`);
    }
    const failing = page.tools.filter((t) => t.findings.length).length;
    const n = page.tools.length;
    out(`${n} ${n === 1 ? 'tool or skill' : 'tools and skills'}: ${failing ? `${failing} failing` : 'all pass'}.\n`);
  }
  for (const { name, finding } of missing) out(`✗ ${name}: ${finding}`);
}

// Runs `toolgate check` with `argv` (after "check"); resolves to the exit code.
export async function check(argv, { out = console.log, err = console.error } = {}) {
  let opts;
  let expected = null;
  try {
    opts = options(argv);
    if (opts.expect) expected = await readExpect(opts.expect);
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof ExpectFileError)) throw error;
    err(`toolgate check: ${error.message}`);
    if (error instanceof UsageError) err(`\n${USAGE}`);
    return EXIT.usage;
  }
  const say = (text) => err(`toolgate: ${text}`);
  let browser;
  try {
    const executablePath = findChromium({ browser: opts.browser, chromium });
    say(`starting headless Chromium (${executablePath}) with Toolgate, unattended`);
    browser = await launchToolgate(chromium, { executablePath, native: opts.native, unattended: true });
    const version = browser.context.browser()?.version();
    say(version ? `Chromium ${version} is ready` : 'Chromium is ready');
  } catch (error) {
    err(`toolgate check: ${error instanceof BrowserNotFound ? error.message : `Chromium did not start: ${firstLine(error)}`}`);
    return EXIT.browser;
  }
  const pages = [];
  try {
    for (const url of opts.urls) {
      pages.push(await checkPage(browser, url, opts, expected, say).catch((error) => ({
        url, error: pageError('is checked', 'check', EXIT.load, `${url} could not be checked: ${firstLine(error)}`),
      })));
    }
  } finally {
    await browser.close();
  }
  const seen = new Set(pages.flatMap((p) => (p.tools ?? []).map((t) => t.entry.name)));
  // Tools an --expect file or --call names that no page registered (when
  // several URLs are checked, each is called on the pages that publish it).
  const missing = [
    ...[...(expected ?? [])].filter(([name]) => !seen.has(name)).map(([name, cls]) => ({
      name, suite: `expected by ${opts.expect}`, finding: `expected ${cls}, but no page checked registered it`,
    })),
    ...[...new Set(opts.call.map((c) => c.name))].filter((name) => !seen.has(name)).map((name) => ({
      name, suite: 'called by --call', finding: 'called by --call, but no page checked publishes it',
    })),
  ];
  print(pages, missing, opts.json, out);
  if (opts.junit) {
    await writeFile(opts.junit, junit(pages, missing));
    say(`wrote JUnit XML to ${opts.junit}`);
  }
  if (opts['write-expect']) {
    try {
      const classes = classesFound(pages);
      await writeExpect(opts['write-expect'], classes);
      say(`wrote the classes of ${classes.size} tools and skills to ${opts['write-expect']}`);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      err(`toolgate check: ${error.message}`);
      return EXIT.usage;
    }
  }
  const failing = pages.flatMap((p) => p.tools ?? []).filter((t) => t.findings.length).length + missing.length;
  const codes = pages.map((p) => p.error?.code ?? EXIT.ok);
  if (failing) codes.push(EXIT.failed);
  const tools = pages.reduce((n, p) => n + (p.tools?.length ?? 0), 0);
  say(`${tools} tools and skills on ${pages.filter((p) => p.tools).length} of ${pages.length} pages; ${failing} failing`);
  return Math.max(...codes);
}
