// A test fails on an uncaught error in the page (Toolgate's shim runs in
// every page), unless toolgateOptions.failOnPageErrors is false.
import { expect, test } from 'toolgate/playwright';

test('an uncaught page error fails the test, after its own assertions pass', async ({ page }) => {
  // Expected to fail: the fixture fails it at teardown, naming the error.
  test.fail();
  await page.goto('/playwright/site/throws.html');
  await expect(page).toHaveToolClass('read_weather', 'Read only');
});

test.describe('with failOnPageErrors: false', () => {
  test.use({ toolgateOptions: { failOnPageErrors: false } });

  test('the same page passes', async ({ page }) => {
    await page.goto('/playwright/site/throws.html');
    await expect(page).toHaveToolClass('read_weather', 'Read only');
  });
});
