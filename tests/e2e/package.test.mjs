// The npm package (docs/ci.md): what `npm pack` puts in it is a whole
// extension and a working command, and the Playwright sample installs the
// package as it is now. The sample's copy is installed by build.sh test
// (install_sample); by hand: (cd examples/playwright && npm ci).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { BrowserNotFound, findChromium, startChromium } from '../../lib/chromium.mjs';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { CHROMIUM } from '../support/browser.mjs';
import { serve } from '../support/server.mjs';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const SAMPLE = fileURLToPath(new URL('../../examples/playwright/', import.meta.url));
const json = (path) => JSON.parse(readFileSync(path, 'utf8'));

test('npm pack holds every file the manifest loads, the command and the fixture, and no tests', async () => {
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO });
  const files = new Set(JSON.parse(stdout)[0].files.map((f) => f.path));
  const manifest = json(`${REPO}/manifest.json`);
  const loaded = [
    manifest.background.service_worker,
    ...manifest.content_scripts.flatMap((c) => c.js),
    manifest.action.default_popup, manifest.side_panel.default_path, manifest.options_page,
    manifest.storage.managed_schema, 'pkg/toolgate_bg.wasm', 'pkg/toolgate.js',
    // The arguments' checker, which the worker opens (ARCHITECTURE.md, "The arguments' checker").
    'extension/checker/checker.html', 'extension/checker/checker.js', 'pkg/checker-worker.js',
    ...Object.values(manifest.icons), ...Object.values(manifest.action.default_icon),
  ];
  for (const file of loaded) assert.ok(files.has(file), `the package has ${file}`);
  for (const file of ['bin/toolgate.mjs', 'playwright/index.mjs', 'lib/check.mjs', 'README.md', 'docs/ci.md']) {
    assert.ok(files.has(file), `the package has ${file}`);
  }
  const stray = [...files].filter((f) => /^(tests|src|target|fuzz|benches|examples|node_modules)\//.test(f));
  assert.deepEqual(stray, [], 'nothing of the repository but the package');
});

// The settings page asks for its modules all at once, as its HTML parses,
// rather than one level of imports after another (benches/README.md, figure
// 15c): the list it preloads is every module it imports, and nothing else.
test('the settings page preloads exactly the modules options.js imports', () => {
  const page = `${REPO}/extension/ui/options.html`;
  const imported = new Set();
  const walk = (file) => {
    for (const [, path] of readFileSync(file, 'utf8').matchAll(/^import [^'"]*'([^']+)';$/gm)) {
      const target = join(dirname(file), path);
      if (!imported.has(target)) { imported.add(target); walk(target); }
    }
  };
  walk(`${REPO}/extension/ui/options.js`);
  const preloaded = [...readFileSync(page, 'utf8').matchAll(/<link rel="modulepreload" href="([^"]+)">/g)]
    .map(([, path]) => join(dirname(page), path));
  assert.ok(imported.size > 5, 'the settings page imports its modules');
  assert.deepEqual(preloaded.sort(), [...imported].sort());
});

test('one version: the manifest, package.json, Cargo.toml\'s workspace and toolgate-mcp --version agree', async () => {
  const version = json(`${REPO}/manifest.json`).version;
  assert.equal(json(`${REPO}/package.json`).version, version, 'package.json');
  const cargo = await readFile(`${REPO}/Cargo.toml`, 'utf8');
  assert.equal(cargo.match(/\[workspace\.package\]\s*\nversion = "([^"]+)"/)?.[1], version, "Cargo.toml's workspace version");
  for (const crate of ['Cargo.toml', 'toolgate-mcp/Cargo.toml']) {
    const text = await readFile(`${REPO}/${crate}`, 'utf8');
    assert.match(text, /^\[package\][^[]*^version\.workspace = true$/m, `${crate} takes the workspace's version`);
  }
  const { stdout } = await run(`${REPO}/target/debug/toolgate-mcp`, ['--version']);
  assert.equal(stdout, `toolgate-mcp ${version}\n`);
});

test('Chromium is found the way Playwright users expect', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-find-'));
  const make = async (path) => {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), '');
    return join(dir, path);
  };
  try {
    const older = await make('cache/chromium-1100/chrome-linux64/chrome');
    const newer = await make('cache/chromium-1200/chrome-linux64/chrome');
    await make('cache/chromium_headless_shell-1300/chrome-linux/headless_shell');
    const own = await make('own/chrome');
    const named = await make('named/chromium');
    const env = { PLAYWRIGHT_BROWSERS_PATH: join(dir, 'cache') };
    assert.equal(findChromium({ env }), newer, 'the newest Chromium in Playwright\'s cache, never its headless shell');
    const playwright = { executablePath: () => own };
    assert.equal(findChromium({ env, chromium: playwright }), own, 'the one this Playwright wants first');
    assert.equal(findChromium({ env: { ...env, PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH: older }, chromium: playwright }), older);
    assert.equal(findChromium({ env: { ...env, PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH: older, CHROMIUM: named } }), named);
    assert.equal(findChromium({ browser: own, env: { ...env, CHROMIUM: named } }), own, '--browser over everything');
    assert.throws(() => findChromium({ env: { CHROMIUM: join(dir, 'gone') } }),
      (error) => error instanceof BrowserNotFound && error.message === `CHROMIUM names ${join(dir, 'gone')}, which does not exist`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a Chromium start its zygote kills, or that dies by a signal, is tried once more; any other failure, or a second death, is the error', async () => {
  const zygote = () => new Error('browserType.launchPersistentContext: Target page, context or browser has been closed\n'
    + '[pid=1][err] Zygote could not fork: process_type gpu-process numfds 3 child_pid -1');
  const starts = (...outcomes) => {
    let calls = 0;
    const start = async () => {
      const outcome = outcomes[calls++];
      if (outcome instanceof Error) throw outcome;
      return outcome;
    };
    return { start, calls: () => calls };
  };
  const once = starts(zygote(), 'context');
  assert.equal(await startChromium(once.start), 'context');
  assert.equal(once.calls(), 2);
  const twice = starts(zygote(), zygote(), 'context');
  await assert.rejects(startChromium(twice.start), /Zygote could not fork/);
  assert.equal(twice.calls(), 2, 'started twice, no more');
  const segv = starts(new Error('browserType.launchPersistentContext: Target page, context or browser has been closed\n'
    + '  - [pid=7849] <process did exit: exitCode=null, signal=SIGSEGV>'), 'context');
  assert.equal(await startChromium(segv.start), 'context');
  assert.equal(segv.calls(), 2, 'a browser that died by SIGSEGV is started once more');
  const exited = starts(new Error('browserType.launchPersistentContext: Target page, context or browser has been closed\n'
    + '  - [pid=7849] <process did exit: exitCode=21, signal=null>'), 'context');
  await assert.rejects(startChromium(exited.start), /exitCode=21/);
  assert.equal(exited.calls(), 1, 'a browser that exited with a code of its own is not retried');
  const other = starts(new Error('Failed to launch: spawn /nowhere ENOENT'), 'context');
  await assert.rejects(startChromium(other.start), /ENOENT/);
  assert.equal(other.calls(), 1, 'an error that is not the zygote\'s is not retried');
});

test('the Playwright sample\'s lockfile installs the package with its current dependencies', () => {
  const lock = json(`${SAMPLE}/package-lock.json`).packages['node_modules/toolgate'];
  assert.deepEqual(lock.dependencies, json(`${REPO}/package.json`).dependencies,
    'examples/playwright/package-lock.json is current (remove it and run npm install there)');
});

test('the command from the installed package checks a page', async () => {
  const bin = `${SAMPLE}/node_modules/.bin/toolgate`;
  assert.ok(existsSync(bin), 'the sample has the package installed: run (cd examples/playwright && npm ci)');
  const installed = json(`${SAMPLE}/node_modules/toolgate/package.json`);
  assert.equal(installed.version, json(`${REPO}/package.json`).version);
  const server = await serve('examples/orders');
  try {
    const { stdout } = await run(bin, ['check', server.url('orders.localhost'), '--browser', CHROMIUM], { timeout: 60_000 });
    assert.match(stdout, /track_order\s+Consequential, off-site\s+declared nothing; declared by a <form toolname>/);
    assert.match(stdout, /1 tool or skill: all pass\./);
  } finally {
    await server.close();
  }
});
