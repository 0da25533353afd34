// Waits for a check that must await something in the page (a message to the
// worker, `getTools()`): Playwright's `waitForFunction` takes the promise an
// async check returns as a truthy answer, so it would not wait at all. This
// evaluates `check(arg)` in `page` again after each answer until it gives a
// truthy value, and returns that value.
export async function until(page, check, arg, what, timeout = 10_000) {
  for (const deadline = Date.now() + timeout; ;) {
    const value = await page.evaluate(check, arg);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}
