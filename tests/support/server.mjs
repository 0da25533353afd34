// A static file server for test pages and the bundled example, on localhost.
//
// Pages are reached through host names under .localhost (notes.localhost,
// other.localhost...), which Chromium resolves to this machine and treats as
// secure contexts, so two names give two sites without any DNS.
// Paths under /node_modules/ serve the repository's npm packages (the
// @mcp-b polyfills test pages load). A page under /csp/ is sent with a strict
// Content-Security-Policy, as a hardened site would send it. A request for
// /stall is never answered (until the server closes): a page that loads it
// stays loading.
//
// From the command line, `node tests/support/server.mjs ROOT PORT` serves
// ROOT on http://127.0.0.1:PORT/ until stopped (the Playwright sample's
// webServer, examples/playwright/).
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
};

// Serves `root` (and the repository's node_modules). Resolves to
// `{ port, url(host, path), close() }`. The port is any free one unless given.
export async function serve(root, port = 0) {
  const base = resolve(REPO, root);
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (path === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    if (path === '/stall') return;
    const dir = path.startsWith('/node_modules/') ? REPO : base;
    let file = normalize(join(dir, path));
    if (!file.startsWith(dir)) {
      res.writeHead(403).end();
      return;
    }
    if (file.endsWith('/')) file = join(file, 'index.html');
    try {
      const body = await readFile(file);
      const headers = { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' };
      if (path.startsWith('/csp/')) {
        headers['content-security-policy'] = "default-src 'self'; script-src 'self'; object-src 'none'";
      }
      res.writeHead(200, headers).end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise((done, fail) => server.once('error', fail).listen(port, '127.0.0.1', done));
  const listening = server.address().port;
  return {
    port: listening,
    url: (host, path = '/') => `http://${host}:${listening}${path}`,
    close: () => new Promise((done) => { server.closeAllConnections(); server.close(done); }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [root, port] = process.argv.slice(2);
  const served = await serve(resolve(root ?? '.'), Number(port ?? 0));
  console.log(`serving ${resolve(root ?? '.')} on ${served.url('127.0.0.1')}`);
}
