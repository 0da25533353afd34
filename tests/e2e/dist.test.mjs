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
  ];
  for (const file of loaded) assert.ok(files.includes(file), `the zip has ${file}`);
  const stray = files.filter((f) => !/^(manifest\.json|managed-schema\.json|pkg\/[^/]+\.(js|wasm)|pkg\/icons\/\d+\.png|extension\/ui\/[^/]+\.(html|css|js))$/.test(f));
  assert.deepEqual(stray, [], 'nothing but what a browser loads');
});

test('unzipped and loaded unpacked, it gates a call through the site card and the call card', async () => {
  const server = await serve('tests/pages/answers');
  const browser = await launch({ extension: false, alsoLoad: [dir], args: REAL_HOSTS });
  try {
    const isWorker = (sw) => sw.url().endsWith('/pkg/worker.js');
    const sw = browser.context.serviceWorkers().find(isWorker) ?? await browser.context.waitForEvent('serviceworker', { predicate: isWorker });
    await sw.evaluate(() => self.toolgate.ready());
    const id = new URL(sw.url()).host;
    const page = await browser.newPage(server.url('notes.test', '/'));
    const tabId = await sw.evaluate(async (url) => (await chrome.tabs.query({})).find((t) => t.url === url)?.id, page.url());
    await page.waitForFunction(() => window.calls !== undefined);
    const isCard = (p) => p.url().startsWith(`chrome-extension://${id}/extension/ui/card.html`);
    await openChat(sw, 'dist', 'From the zip');
    const siteCard = browser.context.waitForEvent('page', { predicate: isCard });
    const replied = send(sw, 'dist', callRequest(1, tabId, 'delete_note', { title: 'Groceries' }));
    const site = await siteCard;
    const callCard = browser.context.waitForEvent('page', { predicate: isCard });
    await choose(site, 'Allow non-consequential read/write tools on this website');
    const call = await callCard;
    assert.match(await call.locator('#heading').textContent(), /delete_note/);
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
