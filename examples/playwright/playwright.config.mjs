// The sample's Playwright config: the bundled examples served on localhost,
// and the Chromium to run given by CHROMIUM (else Toolgate looks for one).
import { defineConfig } from '@playwright/test';

const PORT = Number(process.env.SAMPLE_PORT ?? 4417);

export default defineConfig({
  testDir: 'tests',
  // Each test starts its own Chromium; one at a time keeps small CI machines steady.
  workers: 1,
  reporter: process.env.CI ? [['list'], ['junit', { outputFile: 'test-results/junit.xml' }]] : 'list',
  use: { baseURL: `http://127.0.0.1:${PORT}` },
  webServer: {
    command: `node ../../tests/support/server.mjs .. ${PORT}`,
    url: `http://127.0.0.1:${PORT}/notes/`,
    reuseExistingServer: false,
  },
});
