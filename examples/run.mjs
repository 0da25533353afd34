// Toolgate's main job on the bundled Notes example: serve the site on
// localhost, start Chromium with the extension, open the site, and print the
// tools palette as a table.
//
//   node examples/run.mjs [--headless] [--native] [--keep-open] [--real-host]
//
// Chromium is headed where a display exists (DISPLAY or WAYLAND_DISPLAY);
// with --keep-open it stays open until Ctrl-C, so the palette can be opened
// from the toolbar and the agent console from the side panel.
// --real-host serves the site as http://notes.test:<port>/ (mapped to this
// machine) instead of notes.localhost: localhost is never asked the
// site-permission question, a real host name is.
import { launch, entries } from '../tests/support/browser.mjs';
import { serve } from '../tests/support/server.mjs';
import { table } from '../lib/report.mjs';

const args = new Set(process.argv.slice(2));
const hasDisplay = Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
const headless = args.has('--headless') || !hasDisplay;
const EXPECTED = 10; // tools and skills notes.js registers, and the form

const realHost = args.has('--real-host');
const host = realHost ? 'notes.test' : 'notes.localhost';
const server = await serve('examples/notes');
const browser = await launch({
  headless,
  native: args.has('--native'),
  args: realHost ? ['--host-resolver-rules=MAP *.test 127.0.0.1'] : [],
});
let failed = false;
try {
  const page = await browser.newPage(server.url(host));
  const palette = await browser.waitForPalette(page, (p) => entries(p).length >= EXPECTED,
    `the ${EXPECTED} tools and skills of the Notes example`);
  console.log(table(palette));
  await browser.assertNoErrors();
  if (!headless && args.has('--keep-open')) {
    console.log('\nChromium stays open: click the Toolgate icon for the palette, or open the side panel');
    console.log("for the agent console (pick the Notes tab, list its tools, call them). Ctrl-C to quit.");
    await new Promise((done) => process.once('SIGINT', done));
  }
} catch (error) {
  failed = true;
  console.error(error.message ?? error);
} finally {
  await browser.close();
  await server.close();
}
process.exitCode = failed ? 1 : 0;
