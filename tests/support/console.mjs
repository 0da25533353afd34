// The agent console (extension/ui/console.html) driven as a person drives
// it, for the end-to-end tests: open it with a tab picked and its tools
// listed, find a tool's button, and read the newest result.
import assert from 'node:assert/strict';

// The console in a tab of `browser`, with `tab`'s page picked and its tools listed.
export async function openConsoleOn(browser, tab, title = 'Notes') {
  const sw = await browser.worker();
  const url = await sw.evaluate(() => chrome.runtime.getURL('extension/ui/console.html'));
  const page = await browser.newPage(url);
  await page.locator('#chat-label', { hasText: /^Agent console, chat 1$/ }).waitFor();
  const tabId = String(await browser.tabId(tab));
  const option = page.locator(`#tab option[value="${tabId}"]`);
  // The console lists tabs when it opens; Refresh if the tab came later.
  for (let tries = 0; !(await option.count()); tries += 1) {
    assert.ok(tries < 50, `${title} is offered`);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.waitForTimeout(100);
  }
  // The tab's title is isolated from the console's words (FSI … PDI).
  assert.equal(await option.innerText(), `\u2068${title}\u2069 — ${new URL(tab.url()).host}`);
  await page.getByLabel('Tab to use').selectOption(tabId);
  await page.getByRole('button', { name: 'List tools' }).click();
  await page.locator('#tools button').first().waitFor();
  return page;
}

export const toolButton = (page, name) => page.locator('#tools button', { has: page.locator('.name', { hasText: new RegExp(`^${name}$`) }) });
export const latest = (page) => page.locator('#results > li').first();

// Waits for the newest result to finish; returns what it shows.
export async function result(page, count) {
  await page.locator('#results > li').nth(count - 1).waitFor();
  const item = latest(page);
  await page.waitForFunction(() => !document.querySelector('#results > li:first-child.pending'));
  const text = async (selector) => (await item.locator(selector).count() ? item.locator(selector).innerText() : null);
  return {
    decision: await text('.decision'),
    output: await text('pre.output'),
    error: await text('.error-line'),
    classes: await item.getAttribute('class'),
  };
}

