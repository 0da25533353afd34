// Renders the real extension's pages into the README's pictures
// (docs/images/): the palette, the site card, the call card, a rule's card
// the settings page and the set-apart page with a tool's conditions and
// limit, on the bundled Notes example served on a real host
// name, in headless Chromium. It also writes docs/images/sources.json, the
// hash of what the pictures are made of (Toolgate's pages, the core's views,
// the example): tests/e2e/looks.test.mjs fails when that changed and the
// pictures were not made again.
//
//   node scripts/pictures.mjs          after ./build.sh build
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { callRequest, openChat, start } from '../lib/agent.mjs';
import { cardWatcher, choose } from '../lib/cards.mjs';
import { entries, launch } from '../tests/support/browser.mjs';
import { serve } from '../tests/support/server.mjs';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const IMAGES = join(ROOT, 'docs/images');
// What the pictures show comes from these (each file, sorted by path).
const SOURCE_DIRS = ['extension/ui', 'src/views', 'examples/notes'];

export function sourcesHash() {
  const hash = createHash('sha256');
  for (const dir of SOURCE_DIRS) {
    for (const name of readdirSync(join(ROOT, dir)).sort()) {
      hash.update(`${dir}/${name}\n`);
      hash.update(readFileSync(join(ROOT, dir, name)));
    }
  }
  hash.update(readFileSync(fileURLToPath(import.meta.url)));
  return hash.digest('hex');
}

async function main() {
  const server = await serve('examples/notes');
  const browser = await launch({ args: ['--host-resolver-rules=MAP *.test 127.0.0.1'] });
  try {
    const cards = cardWatcher(browser.context);
    const notes = await browser.newPage(server.url('notes.test'));
    await browser.waitForPalette(notes, (p) => entries(p).length >= 10, 'the Notes tools');
    const tabId = await browser.tabId(notes);
    const sw = await browser.worker();
    const url = (path) => sw.evaluate((p) => chrome.runtime.getURL(p), path);
    const shoot = async (page, name, width, height, fullPage = false) => {
      await page.setViewportSize({ width, height });
      await page.screenshot({ path: join(IMAGES, name), fullPage });
    };

    const palette = await browser.newPage(await url(`extension/ui/palette.html?tab=${tabId}`));
    await palette.locator('.badge.consequential').first().waitFor();
    await shoot(palette, 'palette.png', 440, 620);

    await openChat(sw, 'pictures', 'Claude Desktop');
    const site = await start(sw, cards, 'pictures', callRequest(1, tabId, 'list_notes'));
    await shoot(site.card, 'card-site.png', 460, 620);
    await choose(site.card, 'Allow non-consequential read/write tools on this website');
    await site.reply;
    const call = await start(sw, cards, 'pictures', callRequest(2, tabId, 'delete_note', { title: 'Groceries' }));
    await shoot(call.card, 'card-call.png', 460, 620);
    await choose(call.card, 'Deny this call');
    await call.reply;

    const settings = await browser.newPage(await url('extension/ui/options.html'));
    await settings.evaluate((s) => chrome.runtime.sendMessage({
      type: 'change_rules', site: s, changes: [{ target: 'kind', kind: 'write', level: 'ask_first' }],
    }), new URL(notes.url()).origin);
    const rule = await start(sw, cards, 'pictures', callRequest(3, tabId, 'add_note', { title: 'Call the plumber', body: 'Tuesday' }));
    await shoot(rule.card, 'card-rule.png', 460, 620);
    await choose(rule.card, 'Refuse');
    await rule.reply;

    await settings.reload();
    await settings.locator('#audit-rows tr').nth(3).waitFor();
    await shoot(settings, 'settings.png', 900, 900, true);

    // "Set areas and tools apart" (docs/rules.md, "On the settings page"):
    // add_note set apart at Ask first, with a condition and a limit, its
    // conditions editor open.
    const origin = new URL(notes.url()).origin;
    const refused = await settings.evaluate((s) => chrome.runtime.sendMessage({
      type: 'change_rules', site: s, changes: [
        { target: 'tool', name: 'add_note', level: 'ask_first' },
        { target: 'tool', name: 'add_note', conditions: [{ when: [{ path: 'title', op: 'starts_with', value: 'Groceries' }], level: 'allowed' }] },
        { target: 'tool', name: 'add_note', limit: { calls: 10, minutes: 1 } },
      ],
    }), origin);
    if (refused?.error) throw new Error(refused.error);
    const apart = await browser.newPage(await url(`extension/ui/set-apart.html?site=${encodeURIComponent(origin)}`));
    await apart.getByRole('button', { name: 'add_note', exact: true }).click();
    await apart.getByRole('button', { name: 'Edit conditions' }).click();
    await apart.getByLabel('Value of test 1, condition 1').waitFor();
    await apart.getByLabel('Find a tool or area').fill('add_note');
    await apart.locator('#shown', { hasText: '1 of ' }).waitFor();
    await shoot(apart, 'set-apart.png', 900, 700, true);
    await browser.assertNoErrors();
  } finally {
    await browser.close();
    await server.close();
  }
  writeFileSync(join(IMAGES, 'sources.json'), `${JSON.stringify({ sha256: sourcesHash() }, null, 2)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
