// Runs the Web Platform Tests of webmcp/ (a WPT checkout, or the part of one
// that holds webmcp/, resources/ and common/) in Chromium, with or without
// Toolgate, and prints every subtest's result.
//
//   node tests/wpt/run.mjs --wpt DIR --browser 148|156 [--native] [--no-extension]
//        [--extension PATH] [--json OUT] [--only SUBSTRING] [--timeout SECONDS]
//
// --native turns Chromium's own WebMCP on; --extension loads that unpacked
// Toolgate (default: this repository's root); --no-extension loads none.
// Files whose names contain ".tentative" are skipped. See README.md beside
// this file for what of wptserve this runner imitates and what it does not.
import { createServer } from 'node:http';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { EXTENSION, extensionArgs, IGNORE_DEFAULT_ARGS, startChromium } from '../../lib/chromium.mjs';

const BROWSERS = {
  148: '/usr/bin/chromium',
  156: fileURLToPath(new URL('../support/chromium-156.sh', import.meta.url)),
};

// Host names the pages are served under. Chromium sends every *.localhost
// name to the loopback address and counts it a secure context over plain
// HTTP, so the ".https." tests get their secure context without TLS. The
// three names stand for wptserve's web-platform.test, www1.web-platform.test
// (same site, another origin) and not-web-platform.test (another site).
const HOST = 'web-platform.localhost';
const REMOTE_HOST = `www1.${HOST}`;
const OTHER_HOST = 'not-web-platform.localhost';

// testharness.js's status numbers, as words.
const TEST_STATUS = ['PASS', 'FAIL', 'TIMEOUT', 'NOTRUN', 'PRECONDITION_FAILED'];
const HARNESS_STATUS = ['OK', 'ERROR', 'TIMEOUT', 'PRECONDITION_FAILED'];

function parseArgs(argv) {
  const options = {
    wpt: null, browser: '148', native: false, extension: EXTENSION, json: null, only: null, timeout: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${arg} needs a value`);
      return argv[++i];
    };
    if (arg === '--wpt') options.wpt = resolve(value());
    else if (arg === '--browser') options.browser = value();
    else if (arg === '--native') options.native = true;
    else if (arg === '--no-extension') options.extension = null;
    else if (arg === '--extension') options.extension = resolve(value());
    else if (arg === '--json') options.json = resolve(value());
    else if (arg === '--only') options.only = value();
    else if (arg === '--timeout') options.timeout = Number(value()) * 1000;
    else throw new Error(`unknown argument ${arg}`);
  }
  if (!options.wpt) throw new Error('--wpt DIR is required (a directory holding webmcp/, resources/, common/)');
  return options;
}

// Every test file under webmcp/, as the URL path wptserve would give it:
// .html files as they are; X.window.js and X.any.js as the X.window.html and
// X.any.html pages wptserve makes of them. Helpers under resources/ and
// files of tentative tests are left out.
async function findTests(root) {
  const found = [];
  async function walk(dir) {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'resources') await walk(path);
        continue;
      }
      if (entry.name.includes('.tentative')) continue;
      const url = '/' + relative(root, path).split(sep).join('/');
      if (/\.html?$/.test(entry.name) && !entry.name.endsWith('-expected.html')) found.push(url);
      else if (entry.name.endsWith('.window.js')) found.push(url.replace(/\.js$/, '.html'));
      else if (entry.name.endsWith('.any.js')) found.push(url.replace(/\.any\.js$/, '.any.html'));
    }
  }
  await walk(join(root, 'webmcp'));
  return found.sort();
}

const TYPES = {
  '.html': 'text/html', '.htm': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.css': 'text/css', '.json': 'application/json', '.txt': 'text/plain', '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

// wptserve's template substitution (for files named *.sub.*), reduced to the
// keys the webmcp tests and their helpers use.
function substitute(text, port) {
  return text.replace(/\{\{([^}]+)\}\}/g, (whole, key) => {
    key = key.trim();
    if (key === 'host') return HOST;
    if (key === 'domains[www1]' || key === 'hosts[][www1]') return REMOTE_HOST;
    if (key === 'hosts[alt][]') return OTHER_HOST;
    if (/^ports\[(http|https)\]\[\d+\]$/.test(key)) return String(port);
    process.stderr.write(`note: substitution ${whole} is not implemented; left as it is\n`);
    return whole;
  });
}

// The page wptserve makes of a .window.js or .any.js file: the harness, then
// the script, with its "// META: script=..." lines as script elements.
function wrapScript(source, scriptUrl) {
  const metas = [...source.matchAll(/^\/\/ META: *(\w+)=(.*)$/gm)];
  const lines = ['<!DOCTYPE html>', '<meta charset="utf-8">'];
  for (const [, key, value] of metas) {
    if (key === 'title') lines.push(`<title>${value.trim()}</title>`);
    if (key === 'timeout' && value.trim() === 'long') lines.push('<meta name="timeout" content="long">');
  }
  lines.push('<script src="/resources/testharness.js"></script>');
  lines.push('<script src="/resources/testharnessreport.js"></script>');
  for (const [, key, value] of metas) if (key === 'script') lines.push(`<script src="${value.trim()}"></script>`);
  lines.push('<div id="log"></div>', `<script src="${scriptUrl}"></script>`);
  return lines.join('\n');
}

// Our testharnessreport.js: testharness.js calls this file's completion
// callback once every subtest is done (or the harness timed out), and the
// runner reads the results from window.__wptResults.
const REPORT_JS = `// Written by tests/wpt/run.mjs: hands testharness.js's results to the runner.
add_completion_callback(function (tests, status) {
  window.__wptResults = {
    harness: { status: status.status, message: status.message },
    tests: tests.map(function (t) { return { name: t.name, status: t.status, message: t.message }; }),
  };
});
`;

// Serves the WPT tree on one port for every host name: the origin is told
// apart by the Host header alone, as the tests only need distinct origins.
function serve(root) {
  const server = createServer(async (request, response) => {
    const url = new URL(request.url, 'http://x');
    const path = decodeURIComponent(url.pathname);
    const send = (status, type, body) => {
      response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      response.end(body);
    };
    try {
      if (path === '/resources/testharnessreport.js') return send(200, TYPES['.js'], REPORT_JS);
      const file = resolve(root, '.' + path);
      if (file !== root && !file.startsWith(root + sep)) return send(403, 'text/plain', 'outside the tree');
      const wrapped = /\.(window|any)\.html$/.test(path) && !(await exists(file));
      if (wrapped) {
        const script = path.replace(/\.any\.html$/, '.any.js').replace(/\.window\.html$/, '.window.js');
        const source = await readFile(resolve(root, '.' + script), 'utf8');
        return send(200, TYPES['.html'], wrapScript(source, script.split('/').pop()));
      }
      let body = await readFile(file);
      if (/\.sub\./.test(path)) body = substitute(body.toString('utf8'), server.address().port);
      send(200, TYPES[extname(file)] ?? 'application/octet-stream', body);
    } catch (error) {
      send(error.code === 'ENOENT' ? 404 : 500, 'text/plain', String(error.message));
    }
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

async function exists(path) {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

// Runs one test page; resolves to { file, harness, message, tests }.
async function runFile(context, base, file, timeout) {
  const page = await context.newPage();
  let crashed = false;
  page.on('crash', () => { crashed = true; });
  const result = { file, harness: null, message: null, tests: [] };
  try {
    await page.goto(base + file, { waitUntil: 'domcontentloaded', timeout });
    // A "long" test has 60 s of testharness.js's own time instead of 10 s.
    const long = await page.evaluate(() => document.querySelector('meta[name=timeout]')?.content === 'long');
    const limit = timeout ?? (long ? 75_000 : 20_000);
    await page.waitForFunction(() => window.__wptResults, null, { timeout: limit, polling: 100 });
    const got = await page.evaluate(() => window.__wptResults);
    result.harness = HARNESS_STATUS[got.harness.status] ?? String(got.harness.status);
    result.message = got.harness.message ?? null;
    result.tests = got.tests.map((t) => ({
      name: t.name, status: TEST_STATUS[t.status] ?? String(t.status), message: t.message ?? null,
    }));
  } catch (error) {
    // No completion: the page crashed, or the harness never reported. Take
    // what testharness.js has so far, each unfinished subtest as TIMEOUT.
    result.harness = crashed ? 'CRASH' : 'TIMEOUT';
    result.message = crashed ? 'renderer crashed' : `no completion: ${error.message.split('\n')[0]}`;
    if (!crashed) {
      const partial = await page.evaluate(() => (window.tests?.tests ?? []).map((t) => ({
        name: t.name, status: t.status, message: t.message,
      }))).catch(() => []);
      result.tests = partial.map((t) => ({
        name: t.name,
        status: t.status === 0 || t.status === 1 ? TEST_STATUS[t.status] : 'TIMEOUT',
        message: t.message ?? null,
      }));
    }
  } finally {
    await page.close().catch(() => {});
  }
  return result;
}

function shorten(text, max = 300) {
  const flat = String(text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const executablePath = BROWSERS[options.browser] ?? options.browser;
  let files = await findTests(options.wpt);
  if (options.only) files = files.filter((f) => f.includes(options.only));
  const server = await serve(options.wpt);
  const port = server.address().port;
  const base = `http://${HOST}:${port}`;

  const profile = await mkdtemp(join(tmpdir(), 'toolgate-wpt-'));
  const extensions = options.extension ? [options.extension] : [];
  const args = extensionArgs(extensions, { native: options.native });
  const context = await startChromium(() => chromium.launchPersistentContext(profile, {
    executablePath, headless: true, args, ignoreDefaultArgs: IGNORE_DEFAULT_ARGS,
  }));
  const version = context.browser()?.version() ?? '?';
  const label = `Chromium ${version}, native WebMCP ${options.native ? 'on' : 'off'}, `
    + (options.extension ? `Toolgate from ${options.extension}` : 'no extension');
  console.log(`# ${label}; ${files.length} files at ${base}`);

  // Give Toolgate's worker time to start, so the first page's shim has it.
  if (options.extension) {
    if (!context.serviceWorkers().length) {
      await context.waitForEvent('serviceworker', { timeout: 15_000 }).catch(() => {});
    }
  }

  const results = [];
  try {
    for (const file of files) {
      const result = await runFile(context, base, file, options.timeout);
      results.push(result);
      const passed = result.tests.filter((t) => t.status === 'PASS').length;
      console.log(`\n${file}  [harness ${result.harness}]  ${passed}/${result.tests.length}`
        + (result.harness !== 'OK' && result.message ? `\n    harness: ${shorten(result.message)}` : ''));
      for (const t of result.tests) {
        console.log(`  ${t.status.padEnd(7)} ${t.name}`);
        if (t.status !== 'PASS' && t.message) console.log(`          ${shorten(t.message)}`);
      }
    }
  } finally {
    await context.close().catch(() => {});
    await rm(profile, { recursive: true, force: true });
    server.close();
  }

  const all = results.flatMap((r) => r.tests);
  const passed = all.filter((t) => t.status === 'PASS').length;
  const notReporting = results.filter((r) => r.harness !== 'OK').map((r) => `${r.file} (${r.harness})`);
  console.log(`\n# ${label}`);
  if (notReporting.length) console.log(`# harness not OK: ${notReporting.join(', ')}`);
  console.log(`${passed} of ${all.length} passed`);
  if (options.json) {
    await writeFile(options.json, JSON.stringify({
      browser: version, native: options.native, extension: options.extension, results,
    }, null, 2));
  }
}

main().catch((error) => {
  console.error(error.stack ?? String(error));
  process.exitCode = 1;
});
