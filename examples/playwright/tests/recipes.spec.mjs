// The sample's own page (site/), whose tools declare every hint.
import { expect, test } from 'toolgate/playwright';

test('a page whose tools declare all five hints passes toDeclareAllHints', async ({ page }) => {
  await page.goto('/playwright/site/');
  await expect(page).toDeclareAllHints();
  await expect(page).toHaveToolClass('list_recipes', 'Read only');
  await expect(page).toHaveToolClass('add_recipe', 'Mutating');
});
