// Chromium with the real unpacked extension, driven by playwright-core.
//
// Every launch collects uncaught errors and console errors from every page
// and from the service worker, and every test of a file that imports this
// fails on any of them: a hook after each test (`afterEach` at the root of
// the file's tests) checks every browser launched, or closed, since.
//
// Which Chromium: TOOLGATE_BROWSER=148 (Debian 12's /usr/bin/chromium, the
// default) or TOOLGATE_BROWSER=156 (Debian 13's, what users run: the Debian 13
// root build.sh makes, through tests/support/chromium-156.sh). CHROMIUM=path
// overrides the executable. `BROWSER_VERSION` is the major version that
// executable reports, for tests that apply to one browser only:
//   test('…', { skip: BROWSER_VERSION === 148 ? 'why' : false }, …)
import { afterEach } from 'node:test';
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  EXTENSION, extensionArgs, IGNORE_DEFAULT_ARGS, startChromium, TOOLGATE_ID, toolgateWorker,
} from '../../lib/chromium.mjs';
import { entriesOf, tabIdOf } from '../../lib/tools.mjs';

export { EXTENSION, TOOLGATE_ID };
const BROWSERS = {
  148: '/usr/bin/chromium',
  156: fileURLToPath(new URL('./chromium-156.sh', import.meta.url)),
};
const WANTED = process.env.TOOLGATE_BROWSER || '148';
if (!Object.hasOwn(BROWSERS, WANTED)) {
  throw new Error(`TOOLGATE_BROWSER=${WANTED}: expected one of ${Object.keys(BROWSERS).join(', ')}`);
}
export const CHROMIUM = process.env.CHROMIUM || BROWSERS[WANTED];
// The folder the browser sees as its root, where it reads machine policy
// (`etc/chromium/policies/managed`): the Debian 13 root for 156's wrapper,
// which runs it there; else this machine's. Told by the executable, not by
// its version: Debian 12's own Chromium may be 156 too.
export const BROWSER_ROOT = CHROMIUM === BROWSERS[156] ? (process.env.TOOLGATE_TRIXIE_ROOT || '/opt/toolgate/trixie') : '';

// "Chromium 156.0.8078.114 built on Debian GNU/Linux 13 (trixie)" -> 156.
export const BROWSER_VERSION = (() => {
  let text;
  try {
    text = execFileSync(CHROMIUM, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    throw new Error(`cannot run ${CHROMIUM} --version (run ./build.sh test to install it): ${error.stderr || error.message}`);
  }
  const major = Number(/Chrom(?:e|ium) (\d+)\./.exec(text)?.[1]);
  if (!major) throw new Error(`${CHROMIUM} --version gave no version: ${text}`);
  if (!process.env.CHROMIUM && String(major) !== WANTED) {
    process.emitWarning(`TOOLGATE_BROWSER=${WANTED} runs ${CHROMIUM}, which is Chromium ${major}`);
  }
  return major;
})();

// Browsers to check after the running test: every open one, and those
// closed since the last check (their worker's errors read as they closed).
// Only in a test file's process: the example and the benchmarks launch
// browsers too, and a hook of node:test would print a test report on their
// standard output (NODE_TEST_CONTEXT cannot tell: their processes inherit it
// when a test starts them).
const UNDER_TEST = /\.test\.m?js$/.test(process.argv[1] ?? '');
const toCheck = new Set();
if (UNDER_TEST) {
  afterEach(async () => {
    const found = [];
    for (const browser of toCheck) {
      found.push(...await browser.takeErrors());
      if (browser.closed) toCheck.delete(browser);
    }
    if (found.length) throw new Error(`uncaught errors:\n${found.join('\n')}`);
  });
}

// Launches Chromium. Options:
//   extension: load Toolgate (default true);
//   native: turn on Chromium's own WebMCP (--enable-features=WebMCP,WebMCPTesting;
//     default: TOOLGATE_NATIVE=1);
//   headless: default true;
//   args: more Chromium switches, e.g. '--host-resolver-rules=MAP *.test 127.0.0.1'
//     to reach the test server under a real (non-localhost) host name.
// With `extension: false`, `loadExtension()` installs Toolgate later, as a
// person installing it into a browser with tabs already open would.
//   alsoLoad: more unpacked extensions to load beside Toolgate (paths);
//   beforeStart(profileDir): runs before the browser starts, e.g. to install
//     a native-messaging host manifest into the fresh profile;
//   env: the browser's environment (a native host it starts inherits it);
//   profile: a profile directory of the caller's, to start the browser on
//     again (kept at close), instead of a fresh one.
// TOOLGATE_NATIVE=1 turns native WebMCP on wherever a test does not choose
// (build.sh runs the whole suite both ways).
const NATIVE_BY_DEFAULT = process.env.TOOLGATE_NATIVE === '1';
export async function launch({
  extension = true, native = NATIVE_BY_DEFAULT, headless = true, args: more = [], alsoLoad = [], beforeStart = null, env = undefined,
  profile: given = null,
} = {}) {
  const profile = given ?? await mkdtemp(join(tmpdir(), 'toolgate-'));
  if (beforeStart) await beforeStart(profile);
  // lib/chromium.mjs: the switches `toolgate check` and the Playwright fixture use too.
  const args = [...extensionArgs([...(extension ? [EXTENSION] : []), ...alsoLoad], { native }), ...more];
  const start = () => chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless,
    args,
    env: env ? { ...process.env, ...env } : undefined,
    ignoreDefaultArgs: IGNORE_DEFAULT_ARGS,
  });
  // lib/chromium.mjs: a start that Chromium's zygote kills is tried once more.
  const context = await startChromium(start);
  const errors = [];
  // Errors a test said it expects (`expectErrors`) are kept apart.
  const expected = [];
  const record = (line) => {
    const expectation = expected.find(({ pattern }) => pattern.test(line));
    (expectation ? expectation.seen : errors).push(line);
  };
  const watch = (page) => {
    page.on('pageerror', (error) => record(`page error on ${page.url()}: ${error.stack ?? error}`));
    page.on('console', (message) => {
      if (message.type() === 'error') record(`console error on ${page.url()}: ${message.text()}`);
    });
    page.on('crash', () => record(`renderer crashed on ${page.url()}`));
  };
  context.pages().forEach(watch);
  context.on('page', watch);

  if (extension) await toolgateWorker(context);

  // The worker's own (self.toolgate.errors), moved into `errors` once each.
  const workerErrors = async () => {
    const sw = context.serviceWorkers().at(-1);
    if (sw) {
      (await sw.evaluate(() => (self.toolgate?.errors ?? []).splice(0)).catch(() => [])).forEach(record);
    }
  };
  const browser = {
    context,
    errors,
    closed: false,
    // From now on, errors matching `pattern` are expected: they fail no
    // test. Returns a function that ends the expectation and gives the
    // errors it took.
    expectErrors(pattern) {
      const expectation = { pattern, seen: [] };
      expected.push(expectation);
      return () => {
        expected.splice(expected.indexOf(expectation), 1);
        return expectation.seen;
      };
    },
    // The current service worker (a new one after a restart).
    worker: () => toolgateWorker(context),
    // Installs Toolgate now, through CDP's Extensions.loadUnpacked.
    async loadExtension() {
      const cdp = await context.browser().newBrowserCDPSession();
      await cdp.send('Extensions.loadUnpacked', { path: EXTENSION });
      await cdp.detach();
      return this.worker();
    },
    async newPage(url) {
      const page = await context.newPage();
      if (url) await page.goto(url);
      return page;
    },
    // The id Chromium gave the tab showing `page`.
    async tabId(page) {
      return tabIdOf(await this.worker(), page);
    },
    // The palette of the tab showing `page`, as `self.toolgate.palette` gives it.
    async palette(page) {
      const tabId = await this.tabId(page);
      const sw = await this.worker();
      return sw.evaluate((id) => self.toolgate.palette(id), tabId);
    },
    // Waits until `test(palette)` holds (the worker hears of registrations
    // asynchronously); returns the palette. Fails with the last palette seen.
    async waitForPalette(page, test, what = 'the expected palette', timeout = 10_000) {
      const deadline = Date.now() + timeout;
      let last;
      for (;;) {
        last = await this.palette(page);
        if (test(last)) return last;
        if (Date.now() > deadline) {
          throw new Error(`timed out waiting for ${what}; last palette: ${JSON.stringify(summary(last))}`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    // Stops the service worker, as Chromium does after 30 s idle, through
    // CDP; resolves once it has stopped. The next event starts a new one,
    // which Playwright's worker handle then reaches.
    async stopWorker() {
      const page = context.pages()[0] ?? await context.newPage();
      const cdp = await context.newCDPSession(page);
      const stopped = new Promise((done) => {
        cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
          if (versions.some((v) => v.runningStatus === 'stopped')) done();
        });
      });
      await cdp.send('ServiceWorker.enable');
      await cdp.send('ServiceWorker.stopAllWorkers');
      await stopped;
      await cdp.detach();
    },
    // Starts the stopped service worker, as the next event for it would (an
    // agent's message, a card's answer), through CDP; resolves with it. After
    // `stopWorker()`, `worker()` waits until something starts a new one: a
    // test that plays that something (an agent sending its request again)
    // starts it here first.
    async startWorker() {
      const page = context.pages()[0] ?? await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('ServiceWorker.enable');
      await cdp.send('ServiceWorker.startWorker', { scopeURL: `chrome-extension://${TOOLGATE_ID}/` });
      await cdp.detach();
      return this.worker();
    },
    // Puts a debugger on Toolgate's running service worker: from then on, a
    // `debugger` statement it reaches freezes it right there, as if it had
    // stopped at that point: nothing after it runs, and what it sent before
    // it (a storage write, a message) has gone. `paused` resolves once it is
    // frozen, after the errors it kept are added to this browser's (stopping
    // it takes its `self.toolgate.errors` with it). Stop it with
    // `stopWorker()`, then `detach()`: detached first, it would run on.
    async debugWorker() {
      const cdp = await context.browser().newBrowserCDPSession();
      const { targetInfos } = await cdp.send('Target.getTargets');
      const target = targetInfos.find((t) => t.type === 'service_worker' && t.url.startsWith(`chrome-extension://${TOOLGATE_ID}/`));
      if (!target) throw new Error('debugWorker: Toolgate\'s worker is not running');
      // Playwright's CDP sessions speak to one target each; the worker's is
      // reached through the browser's, one message at a time.
      const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: target.targetId, flatten: false });
      const answers = new Map();
      let nextId = 0;
      let onPaused;
      const paused = new Promise((done) => { onPaused = done; });
      const call = (method, params = {}) => new Promise((done, fail) => {
        const id = ++nextId;
        answers.set(id, (m) => (m.error ? fail(new Error(`${method}: ${m.error.message}`)) : done(m.result)));
        cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) }).catch(fail);
      });
      cdp.on('Target.receivedMessageFromTarget', (event) => {
        if (event.sessionId !== sessionId) return;
        const message = JSON.parse(event.message);
        if (answers.has(message.id)) {
          answers.get(message.id)(message);
          answers.delete(message.id);
        } else if (message.method === 'Debugger.paused') {
          call('Runtime.evaluate', { expression: 'JSON.stringify(self.toolgate?.errors ?? [])', returnByValue: true })
            .then(({ result }) => JSON.parse(result.value).forEach(record), (error) => record(`reading a frozen worker's errors: ${error.message}`))
            .then(onPaused);
        }
      });
      await call('Debugger.enable');
      return { paused, detach: () => cdp.detach().catch(() => {}) };
    },
    // Fails on any error seen since the last check, which takes them: for a
    // test that must know at a given point (every test is checked at its end).
    async assertNoErrors() {
      const found = await this.takeErrors();
      if (found.length) throw new Error(`uncaught errors:\n${found.join('\n')}`);
    },
    // Every error seen since the last call, taken out of `errors`.
    async takeErrors() {
      if (!this.closed) await workerErrors();
      return errors.splice(0);
    },
    async close() {
      if (this.closed) return;
      await workerErrors();
      this.closed = true;
      await context.close();
      if (!given) await rm(profile, { recursive: true, force: true });
    },
  };
  if (UNDER_TEST) toCheck.add(browser);
  return browser;
}

// Every entry of a palette as "site name: badge".
export function entries(palette) {
  return entriesOf(palette).map((e) => ({ ...e, host: new URL(e.site).host }));
}

export function summary(palette) {
  return entries(palette ?? { groups: [] }).map((e) => `${e.host} ${e.name}: ${e.badge}`);
}
