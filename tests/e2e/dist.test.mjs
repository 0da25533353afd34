// `./build.sh dist`'s extension: the zip holds what a browser loads and
// nothing else (no sources, tests or docs), with a manifest the Chrome Web
// Store takes (no "key"), and the folder it unzips to loads unpacked and
// gates a call through both cards. Loaded so, the extension has the id of
// its folder, not the repository's: this file finds it by its worker.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { callRequest, openChat, send } from '../../lib/agent.mjs';
import { choose } from '../../lib/cards.mjs';
import { launch } from '../support/browser.mjs';
import { REAL_HOSTS } from '../support/fixture.mjs';
import { serve } from '../support/server.mjs';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../..', import.meta.url));
let zip;
let dir;
before(async () => {
  const { stdout } = await run('./build.sh', ['dist-extension'], { cwd: REPO, maxBuffer: 1 << 24 });
  zip = stdout.trim().split('\n').at(-1);
  dir = await mkdtemp(join(tmpdir(), 'toolgate-dist-'));
  await run('unzip', ['-q', zip, '-d', dir]);
});
after(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('the zip holds the manifest and what it loads, no sources, tests or docs, and no "key"', async () => {
  const { stdout } = await run('unzip', ['-Z1', zip]);
  const files = stdout.trim().split('\n').filter((f) => !f.endsWith('/'));
  const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
  const repoManifest = JSON.parse(await readFile(join(REPO, 'manifest.json'), 'utf8'));
  assert.equal(manifest.key, undefined, 'the store refuses a manifest with a key');
  assert.equal(zip.endsWith(`/dist/toolgate-${repoManifest.version}.zip`), true, zip);
  const { key, ...rest } = repoManifest;
  assert.ok(key, 'the repository keeps its key, for a fixed id when loaded unpacked from the checkout');
  assert.deepEqual(manifest, rest, 'the same manifest otherwise');
  const loaded = [
    manifest.background.service_worker, ...manifest.content_scripts.flatMap((c) => c.js),
    manifest.action.default_popup, manifest.side_panel.default_path, manifest.options_page,
    manifest.storage.managed_schema, ...Object.values(manifest.icons), ...Object.values(manifest.action.default_icon),
    'pkg/toolgate.js', 'pkg/toolgate_bg.wasm',
    // The arguments' checker, which the worker opens (ARCHITECTURE.md, "The arguments' checker").
    'extension/checker/checker.html', 'extension/checker/checker.js', 'pkg/checker-worker.js',
    // Where the audit is sent, which the settings page reads (docs/rules.md).
    'extension/shared/audit-target.js',
  ];
  for (const file of loaded) assert.ok(files.includes(file), `the zip has ${file}`);
  const stray = files.filter((f) => !/^(manifest\.json|managed-schema\.json|pkg\/[^/]+\.(js|wasm)|pkg\/icons\/\d+\.png|extension\/ui\/[^/]+\.(html|css|js)|extension\/checker\/checker\.(html|js)|extension\/shared\/(chromium-errors|audit-db|audit-target)\.js)$/.test(f));
  assert.deepEqual(stray, [], 'nothing but what a browser loads');
});

test('unzipped and loaded unpacked, it gates a call through the site card and the call card', async () => {
  const server = await serve('tests/pages/answers');
  const browser = await launch({ extension: false, alsoLoad: [dir], args: REAL_HOSTS });
  try {
    // Its worker, the newest one (as lib/chromium.mjs's toolgateWorker finds
    // Toolgate's): Chromium may start an unpacked extension's worker twice.
    const isWorker = (sw) => sw.url().endsWith('/pkg/worker.js');
    const worker = async () => {
      const sw = browser.context.serviceWorkers().filter(isWorker).at(-1)
        ?? await browser.context.waitForEvent('serviceworker', { predicate: isWorker });
      await sw.evaluate(() => self.toolgate.ready());
      return sw;
    };
    const id = new URL((await worker()).url()).host;
    const page = await browser.newPage(server.url('notes.test', '/'));
    const tabId = await (await worker()).evaluate(async (url) => (await chrome.tabs.query({})).find((t) => t.url === url)?.id, page.url());
    // Until the worker lists the page's tools, as every test waits for its palette.
    await (await worker()).evaluate(async (tab) => {
      for (;;) {
        const palette = await self.toolgate.palette(tab);
        if (palette.groups.flatMap((g) => g.entries).length >= 11) return;
        await new Promise((done) => setTimeout(done, 20));
      }
    }, tabId);
    const sw = await worker();
    // The next card window of this extension, as it opens (a window may open
    // on about:blank and then navigate to its card).
    const isCard = (p) => p.url().startsWith(`chrome-extension://${id}/extension/ui/card.html`);
    const nextCard = () => new Promise((resolve) => {
      const onPage = (p) => {
        const found = () => {
          if (!isCard(p)) return false;
          browser.context.off('page', onPage);
          resolve(p);
          return true;
        };
        if (!found()) p.on('framenavigated', found);
      };
      browser.context.on('page', onPage);
    });
    await openChat(sw, 'dist', 'From the zip');
    const siteCard = nextCard();
    const replied = send(sw, 'dist', callRequest(1, tabId, 'delete_note', { title: 'Groceries' }));
    replied.catch(() => {}); // awaited below; a failure meanwhile is not unhandled
    const site = await siteCard;
    const callCard = nextCard();
    await choose(site, 'Allow non-consequential read/write tools on this website');
    const call = await callCard;
    await call.locator('#heading', { hasText: 'delete_note' }).waitFor();
    await choose(call, 'Allow this call only');
    const reply = await replied;
    assert.equal(reply.result?.isError, false, JSON.stringify(reply));
    assert.equal(reply.result._meta.toolgate.decision, 'run');
    assert.equal(await page.evaluate(() => window.calls.delete_note), 1, 'the page ran it once');
  } finally {
    await browser.close();
    await server.close();
  }
});
