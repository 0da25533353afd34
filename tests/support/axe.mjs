// A page of Toolgate's in the browser's light theme and its dark one
// (prefers-color-scheme, extension/ui/theme.css): axe-core finds no
// violation (contrast among them), and the page's colours are the theme's.
// Shared by tests/e2e/looks.test.mjs and the files that check a page of
// their own in both themes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const AXE = readFileSync(fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url)), 'utf8');

export async function checkThemes(page, what) {
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    const out = await page.evaluate(async (source) => {
      if (!window.axe) (0, eval)(source);
      const { violations } = await window.axe.run(document, { resultTypes: ['violations'] });
      const background = getComputedStyle(document.body).backgroundColor;
      return {
        background,
        violations: violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')}`),
      };
    }, AXE);
    assert.deepEqual(out.violations, [], `${what}, ${colorScheme}: axe-core's violations`);
    const [r, g, b] = out.background.match(/\d+/g).map(Number);
    const light = (r + g + b) / 3 > 128;
    assert.equal(light, colorScheme === 'light', `${what}, ${colorScheme}: the page's background ${out.background}`);
  }
  await page.emulateMedia({ colorScheme: null });
}
