// Chromium with Toolgate loaded, for `toolgate check` and the Playwright
// fixture (docs/ci.md), and the flags the repository's own tests start it
// with (tests/support/browser.mjs).
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// The unpacked extension: the package's root, where manifest.json is.
export const EXTENSION = resolve(fileURLToPath(new URL('..', import.meta.url)));
// Toolgate's extension id, fixed by the `key` in manifest.json.
export const TOOLGATE_ID = 'ckcdjacnpndbpfeglbpdejjppnhdelmo';

// Without these, Chromium reaches for the network (updates, sync, first-run
// pages), which CI machines often close, and fails in containers without
// /dev/shm room or a GPU.
export const QUIET = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-dev-shm-usage',
];
// Playwright turns extensions and the back/forward cache off; a person's browser has both.
export const IGNORE_DEFAULT_ARGS = ['--disable-extensions', '--disable-back-forward-cache'];
// Chromium's own WebMCP, off by default in 148 and 156.
export const NATIVE_WEBMCP = '--enable-features=WebMCP,WebMCPTesting';

// The switches that load `extensions` (paths) unpacked, with Chromium's own
// WebMCP on when `native`.
export function extensionArgs(extensions, { native = false } = {}) {
  const args = [...QUIET, '--enable-unsafe-extension-debugging'];
  if (extensions.length) {
    const list = extensions.join(',');
    args.push(`--disable-extensions-except=${list}`, `--load-extension=${list}`);
  }
  if (native) args.push(NATIVE_WEBMCP);
  return args;
}

// Toolgate's service worker in `context`, once it has started and read its
// state. Another loaded extension's worker is never taken for it.
export async function toolgateWorker(context, timeout = 30_000) {
  const isToolgate = (sw) => sw.url().startsWith(`chrome-extension://${TOOLGATE_ID}/`);
  const sw = context.serviceWorkers().filter(isToolgate).at(-1)
    ?? await context.waitForEvent('serviceworker', { predicate: isToolgate, timeout });
  await sw.evaluate(() => self.toolgate.ready());
  return sw;
}

export class BrowserNotFound extends Error {}

// The Chromiums `npx playwright install chromium` put in Playwright's cache
// (PLAYWRIGHT_BROWSERS_PATH, else the platform's), newest first: whichever
// Playwright version installed them. Its headless shell cannot load
// extensions, so it is not among them.
function playwrightCache(env) {
  const home = homedir();
  const cache = env.PLAYWRIGHT_BROWSERS_PATH && env.PLAYWRIGHT_BROWSERS_PATH !== '0' ? env.PLAYWRIGHT_BROWSERS_PATH
    : process.platform === 'darwin' ? join(home, 'Library/Caches/ms-playwright')
      : process.platform === 'win32' ? join(env.LOCALAPPDATA ?? home, 'ms-playwright')
        : join(env.XDG_CACHE_HOME ?? join(home, '.cache'), 'ms-playwright');
  let dirs = [];
  try {
    dirs = readdirSync(cache).filter((d) => /^chromium-\d+$/.test(d));
  } catch {
    return [];
  }
  const inside = [
    'chrome-linux64/chrome', 'chrome-linux/chrome', 'chrome-win64/chrome.exe', 'chrome-win/chrome.exe',
    'chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
    'chrome-mac-x64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
    'chrome-mac/Chromium.app/Contents/MacOS/Chromium',
  ];
  return dirs.sort((a, b) => Number(b.split('-')[1]) - Number(a.split('-')[1]))
    .flatMap((d) => inside.map((path) => join(cache, d, path)));
}

// Where Chromium usually is, after what Playwright downloads.
function usualPaths() {
  const local = process.env.LOCALAPPDATA ?? '';
  const programs = [process.env.PROGRAMFILES, process.env['PROGRAMFILES(X86)']].filter(Boolean);
  return [
    '/usr/bin/chromium', '/usr/bin/chromium-browser', '/snap/bin/chromium',
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
    join(homedir(), 'Applications/Chromium.app/Contents/MacOS/Chromium'),
    ...(local ? [join(local, 'Chromium/Application/chrome.exe')] : []),
    ...programs.map((p) => join(p, 'Chromium/Application/chrome.exe')),
  ];
}

// The Chromium to run, the way Playwright users expect: the `browser` given
// (--browser), else CHROMIUM or PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH, else the
// Chromium Playwright installed (`npx playwright install chromium`: the one
// this Playwright wants, else the newest in its cache), else a system Chromium. Google Chrome is not looked for: its release builds no
// longer load unpacked extensions from the command line.
// Throws BrowserNotFound saying where it looked.
export function findChromium({ browser = null, chromium = null, env = process.env } = {}) {
  const named = [
    ['--browser', browser],
    ['CHROMIUM', env.CHROMIUM],
    ['PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH', env.PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH],
  ].find(([, path]) => path);
  if (named) {
    const [where, path] = named;
    if (!existsSync(path)) throw new BrowserNotFound(`${where} names ${path}, which does not exist`);
    return path;
  }
  let playwrights = null;
  try {
    playwrights = chromium?.executablePath() ?? null;
  } catch {
    // This Playwright has no Chromium of its own for this platform.
  }
  const tried = [...new Set([...(playwrights ? [playwrights] : []), ...playwrightCache(env), ...usualPaths()])];
  const found = tried.find((path) => existsSync(path));
  if (found) return found;
  throw new BrowserNotFound([
    'Chromium was not found. Give its path with --browser PATH or CHROMIUM=PATH, or install it',
    '(npx playwright install chromium, or your system\'s chromium package). Looked in:',
    ...tried.map((path) => `  ${path}`),
  ].join('\n'));
}

// Runs `start` (a Playwright launch) and resolves to what it gives.
// Chromium itself may die while it starts, before any page opens: CI
// machines saw its zygote fail to fork ("Zygote could not fork", then
// SIGSEGV), and the browser process end by SIGSEGV with nothing else said.
// A browser process killed by a signal is the machine (no script of a page's
// or of Toolgate's can crash it), so such a start is tried once more, saying
// so on stderr; a second death, or any other error, is thrown.
const DIED_STARTING = /Zygote could not fork|process did exit: exitCode=null, signal=SIG(SEGV|BUS|ILL|ABRT)/;
export async function startChromium(start) {
  try {
    return await start();
  } catch (error) {
    if (!DIED_STARTING.test(error?.message)) throw error;
    process.stderr.write(`Chromium died while starting (${error.message.split('\n')[0]}); starting it once more\n`);
    return start();
  }
}

// Starts `executablePath` with Toolgate, headless unless told otherwise,
// through `chromium` (playwright-core's or @playwright/test's). Resolves to
// `{ context, worker(), close() }` once Toolgate's worker is ready.
export async function launchToolgate(chromium, {
  executablePath, headless = true, native = false, args = [], unattended = false,
} = {}) {
  const profile = await mkdtemp(join(tmpdir(), 'toolgate-'));
  let context;
  try {
    context = await startChromium(() => chromium.launchPersistentContext(profile, {
      executablePath,
      headless,
      args: [...extensionArgs([EXTENSION], { native }), ...args],
      ignoreDefaultArgs: IGNORE_DEFAULT_ARGS,
    }));
    const sw = await toolgateWorker(context);
    // Unattended (docs/rules.md): no card ever opens, so nothing waits for a person.
    if (unattended) await sw.evaluate(() => chrome.storage.local.set({ rules: { sites: {}, unattended: true } }));
  } catch (error) {
    await context?.close().catch(() => {});
    await rm(profile, { recursive: true, force: true });
    throw error;
  }
  return {
    context,
    worker: () => toolgateWorker(context),
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
