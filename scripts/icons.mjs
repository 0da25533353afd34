// Renders Toolgate's icon (extension/icons/toolgate.svg) to the PNGs the
// manifest names, pkg/icons/<size>.png, in headless Chromium: the browser
// draws the SVG as it would draw it anywhere. build.sh runs it after the
// bundles; the PNGs are built output, never committed.
//
//   node scripts/icons.mjs [CHROMIUM]
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const ICON_SIZES = [16, 32, 48, 128];

const svg = await readFile(join(ROOT, 'extension/icons/toolgate.svg'));
const source = `data:image/svg+xml;base64,${svg.toString('base64')}`;
const browser = await chromium.launch({ executablePath: process.argv[2] ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const page = await browser.newPage({ deviceScaleFactor: 1 });
  await mkdir(join(ROOT, 'pkg/icons'), { recursive: true });
  for (const size of ICON_SIZES) {
    await page.setViewportSize({ width: size, height: size });
    await page.setContent(`<body style="margin:0;background:transparent"><img src="${source}" width="${size}" height="${size}" style="display:block"></body>`);
    await page.locator('img').evaluate((img) => img.decode());
    await writeFile(join(ROOT, `pkg/icons/${size}.png`), await page.screenshot({ omitBackground: true, type: 'png' }));
  }
} finally {
  await browser.close();
}
