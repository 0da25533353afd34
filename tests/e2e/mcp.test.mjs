// Desktop agents over MCP (docs/agents.md, "Desktop agents (MCP)"), real parts
// only: the official TypeScript MCP client (@modelcontextprotocol/sdk,
// StdioClientTransport) starts toolgate-mcp over stdio, exactly as the
// README's client configuration says; the host manifest is installed into the
// test profile with `toolgate-mcp install --user-data-dir`; Chromium starts
// the host itself when Toolgate connects, and the two processes meet on the
// socket. Every card is clicked as a person would.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect as connectSocket } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { TOOLGATE_ID, entries } from '../support/browser.mjs';
import { cardKind, choose } from '../support/cards.mjs';
import { harness } from '../support/fixture.mjs';

const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
// Built by ./build.sh; a test run builds nothing itself.
const MCP = process.env.TOOLGATE_MCP ?? join(REPO, 'target/debug/toolgate-mcp');
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

describe('desktop agents through toolgate-mcp', () => {
  let socketDir;
  let socket;
  const clients = [];

  before(async () => {
    assert.ok(existsSync(MCP), `${MCP} is built by ./build.sh`);
    // /tmp, which the Chromium 156 root sees at the same path.
    socketDir = await mkdtemp(join(tmpdir(), 'toolgate-mcp-'));
    socket = join(socketDir, 'run', 'host.sock');
  });
  const h = harness({
    pages: 'examples/notes',
    tools: 10,
    launch: () => ({
      beforeStart: (profile) => {
        execFileSync(MCP, ['install', '--user-data-dir', profile], { stdio: 'pipe' });
      },
      env: { TOOLGATE_SOCKET: socket },
    }),
  });
  before(async () => {
    // The worker connects at its start; the host then listens.
    const deadline = Date.now() + 10_000;
    while (!existsSync(socket)) {
      if (Date.now() > deadline) throw new Error(`toolgate-mcp's host never listened on ${socket}`);
      await sleep(25);
    }
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await rm(socketDir, { recursive: true, force: true });
  });

  // An MCP client, started as Claude Desktop and others start a h.server.
  async function connect(name, args = []) {
    const client = new Client({ name, version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: MCP, args, env: { ...process.env, TOOLGATE_SOCKET: socket }, stderr: 'pipe' }));
    clients.push(client);
    return client;
  }
  const call = (client, name, args, options) => client.callTool({ name, arguments: args }, undefined, options);
  async function notesTab(host) {
    const page = await h.browser.newPage(h.server.url(host, `/?${host}`));
    await h.browser.waitForPalette(page, (p) => entries(p).length === 10, 'the Notes example');
    return { page, tabId: await h.browser.tabId(page) };
  }

  test('lists the browser tools, the tabs, and calls a Read-only tool on localhost with no card', async () => {
    const client = await connect('Claude Desktop');
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['browser_call_webmcp_tool', 'browser_list_tabs', 'browser_list_webmcp_tools']);
    assert.deepEqual(tools.find((t) => t.name === 'browser_call_webmcp_tool').inputSchema.required, ['tabId', 'name']);

    const { page, tabId } = await notesTab('notes.localhost');
    const tabs = await call(client, 'browser_list_tabs', {});
    assert.ok(tabs.structuredContent.tabs.some((t) => t.tabId === tabId), JSON.stringify(tabs));
    const listed = await call(client, 'browser_list_webmcp_tools', { tabId });
    assert.ok(listed.structuredContent.tools.some((t) => t.name === 'list_notes' && t.class === 'Read only'));
    const notes = await call(client, 'browser_call_webmcp_tool', { tabId, name: 'list_notes', arguments: {} });
    assert.equal(notes.isError, false, JSON.stringify(notes));
    assert.match(notes.content[0].text, /Shopping/);
    assert.equal(h.cards.pending(), false, 'localhost, Read only: no card');
    await page.close();
  });

  test('--read-only: the chat sees and calls Read only tools alone, as the README configures it', async () => {
    const client = await connect('Read-only Claude', ['--read-only']);
    const { page, tabId } = await notesTab('notes.localhost');
    const listed = await call(client, 'browser_list_webmcp_tools', { tabId });
    const classes = [...new Set(listed.structuredContent.tools.map((t) => t.class))];
    assert.deepEqual(classes, ['Read only'], JSON.stringify(listed.structuredContent.tools));
    const add = await call(client, 'browser_call_webmcp_tool', { tabId, name: 'add_note', arguments: { title: 'No', body: 'Read only' } });
    assert.equal(add.isError, true);
    assert.match(add.content[0].text, /this chat was opened Read only/);
    const notes = await call(client, 'browser_call_webmcp_tool', { tabId, name: 'list_notes', arguments: {} });
    assert.equal(notes.isError, false, JSON.stringify(notes));
    assert.equal(h.cards.pending(), false, 'a Read only chat asks no card');
    assert.equal(await page.getByText('Read only').count(), 0, 'add_note never ran');
    await page.close();
  });

  test('a Consequential tool on a real host name asks both cards, named after the client; a refusal says why', async () => {
    const client = await connect('Claude Desktop');
    const { page, tabId } = await notesTab('notes.test');
    const progress = [];
    const reply = call(client, 'browser_call_webmcp_tool', { tabId, name: 'delete_note', arguments: { title: 'Old draft' } },
      { onprogress: (p) => progress.push(p) });
    const site = await h.cards.next();
    assert.equal(await cardKind(site), 'site');
    assert.equal(await site.locator('#chat').textContent(), 'Asked by Claude Desktop');
    await choose(site, 'Allow read-only tools on this website');
    const confirm = await h.cards.next();
    assert.equal(await cardKind(confirm), 'call');
    await choose(confirm, 'Deny this call');
    const refused = await reply;
    assert.equal(refused.isError, true);
    assert.match(refused.content[0].text, /you denied this call to delete_note/);
    assert.ok(progress.length > 0, 'the client heard that the call waits on a person');
    assert.match(await page.locator('#notes').innerText(), /Old draft/);

    // The same chat: "Always allow" then lets it run.
    const again = call(client, 'browser_call_webmcp_tool', { tabId, name: 'delete_note', arguments: { title: 'Old draft' } });
    await choose(await h.cards.next(), 'Always allow “delete_note” on ' + new URL(h.server.url('notes.test')).host);
    const ran = await again;
    assert.equal(ran.isError, false, JSON.stringify(ran));
    assert.doesNotMatch(await page.locator('#notes').innerText(), /Old draft/);
    await page.close();
  });

  test('a cancelled call is withdrawn and its card closes', async () => {
    const client = await connect('Cursor');
    const { page, tabId } = await notesTab('notes.test');
    const controller = new AbortController();
    const reply = call(client, 'browser_call_webmcp_tool', { tabId, name: 'add_note', arguments: { title: 'x', body: 'y' } },
      { signal: controller.signal });
    const site = await h.cards.next();
    const closed = site.waitForEvent('close');
    controller.abort('the person changed their mind');
    await assert.rejects(reply, /abort|cancel|changed their mind/i);
    await closed;
    assert.doesNotMatch(await page.locator('#notes').innerText(), /x: y/);
    await page.close();
  });

  test('two clients at once are two chats with separate answers', async () => {
    const a = await connect('Claude Code');
    const b = await connect('VS Code');
    const { page, tabId } = await notesTab('notes.test');
    const first = call(a, 'browser_call_webmcp_tool', { tabId, name: 'list_notes', arguments: {} });
    const siteA = await h.cards.next();
    assert.equal(await siteA.locator('#chat').textContent(), 'Asked by Claude Code');
    await choose(siteA, 'Allow all tools on this website');
    assert.equal((await first).isError, false);
    assert.equal((await call(a, 'browser_call_webmcp_tool', { tabId, name: 'list_notes', arguments: {} })).isError, false);
    assert.equal(h.cards.pending(), false, "Claude Code's answer holds for Claude Code");

    const second = call(b, 'browser_call_webmcp_tool', { tabId, name: 'list_notes', arguments: {} });
    const siteB = await h.cards.next();
    assert.equal(await siteB.locator('#chat').textContent(), 'Asked by VS Code', 'VS Code is asked for itself');
    await choose(siteB, 'Deny this call');
    assert.equal((await second).isError, true);

    // The settings page names the desktop agents connected now.
    const settings = await h.browser.newPage(`chrome-extension://${TOOLGATE_ID}/extension/ui/options.html`);
    await settings.locator('#desktop-sessions', { hasText: 'VS Code' }).waitFor();
    assert.match(await settings.locator('#desktop-sessions').innerText(), /Claude Code/);
    assert.equal(await settings.locator('#desktop-state').innerText(), 'toolgate-mcp is connected.');
    await settings.close();
    await page.close();
  });

  // A client on the socket, speaking the bridge's frames by hand (a 4-byte
  // length in the machine's byte order, then JSON): what any process of the
  // person's could do. Resolves with `send(message)` and `next()`, the next
  // frame it is sent.
  async function rawClient() {
    const conn = connectSocket(socket);
    await new Promise((done, fail) => conn.once('connect', done).once('error', fail));
    let buffered = Buffer.alloc(0);
    const frames = [];
    const waiting = [];
    conn.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 4 && buffered.length >= 4 + buffered.readUInt32LE(0)) {
        const frame = JSON.parse(buffered.subarray(4, 4 + buffered.readUInt32LE(0)).toString());
        buffered = buffered.subarray(4 + buffered.readUInt32LE(0));
        (waiting.shift() ?? ((f) => frames.push(f)))(frame);
      }
    });
    return {
      send: (message) => {
        const body = Buffer.from(JSON.stringify(message));
        const length = Buffer.alloc(4);
        length.writeUInt32LE(body.length);
        conn.write(Buffer.concat([length, body]));
      },
      next: () => (frames.length ? Promise.resolve(frames.shift()) : new Promise((done) => waiting.push(done))),
      close: () => conn.destroy(),
    };
  }
  const desktopSessions = async () => (await (await h.browser.worker()).evaluate(() => self.toolgate.agents())).desktop.sessions;

  test('a closed session\'s id cannot be opened again: nobody inherits its answers or lifts its Read only', { timeout: 60_000 }, async () => {
    const before = new Set((await desktopSessions()).map((s) => s.session));
    const client = await connect('Read-only Claude', ['--read-only']);
    const { page, tabId } = await notesTab('notes.test');
    const listing = call(client, 'browser_call_webmcp_tool', { tabId, name: 'list_notes', arguments: {} });
    await choose(await h.cards.next(), 'Allow all tools on this website');
    assert.equal((await listing).isError, false);
    const [{ session }] = (await desktopSessions()).filter((s) => !before.has(s.session));
    await client.close();
    // The worker hears of it from the host: until then the id is still open there.
    while ((await desktopSessions()).some((s) => s.session === session)) await sleep(25);

    // Another process opens the same id, without Read only, and calls a Mutating tool.
    const mallory = await rawClient();
    mallory.send({ type: 'open', session, client: 'Mallory' });
    mallory.send({ type: 'request', session, request: { jsonrpc: '2.0', id: 1, method: 'tools/call',
      params: { name: 'browser_call_webmcp_tool', arguments: { tabId, name: 'add_note', arguments: { title: 'Mallory', body: 'was here' } } } } });
    const refusal = await mallory.next();
    assert.equal(refusal.reply.id, null);
    assert.match(refusal.reply.error.message, /^this session was not opened: chat mcp:.* was closed, and a closed chat cannot be opened again: start a new one$/);
    const reply = await mallory.next();
    assert.deepEqual(reply.reply, { jsonrpc: '2.0', id: 1, error: { code: -32002, message: 'this session was not opened' } });
    mallory.close();
    assert.equal(h.cards.pending(), false, 'no card opened');
    assert.equal(await page.getByText('was here').count(), 0, 'add_note never ran');
    // The refusal is the answer to bad input, told to the agent: not one of
    // Toolgate's own errors, which tests and the person read as faults.
    const kept = await (await h.browser.worker()).evaluate(() => [...self.toolgate.errors]);
    assert.deepEqual(kept.filter((e) => /session was not opened|closed chat/.test(e)), [],
      "the refusal is not on the extension's list of errors");
    await page.close();
  });

  test('a client that disconnects withdraws its waiting call', async () => {
    const client = await connect('Windsurf');
    const { page, tabId } = await notesTab('notes.test');
    call(client, 'browser_call_webmcp_tool', { tabId, name: 'list_notes', arguments: {} }).catch(() => {});
    const site = await h.cards.next();
    const closed = site.waitForEvent('close');
    await client.close();
    await closed;
    await page.close();
  });
});

describe('toolgate-mcp with no browser', () => {
  test('every tool call says Toolgate cannot be reached, at once', async () => {
    assert.ok(existsSync(MCP), `${MCP} is built by ./build.sh`);
    const dir = await mkdtemp(join(tmpdir(), 'toolgate-mcp-'));
    const client = new Client({ name: 'Claude Desktop', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: MCP, env: { ...process.env, TOOLGATE_SOCKET: join(dir, 'none.sock') }, stderr: 'pipe' }));
    try {
      const started = Date.now();
      const reply = await client.callTool({ name: 'browser_list_tabs', arguments: {} }).then((r) => r, (e) => ({ error: e }));
      const said = reply.error ? String(reply.error.message) : reply.content?.[0]?.text;
      assert.match(said, /not reachable/i);
      assert.ok(Date.now() - started < 5_000, 'nothing hangs');
    } finally {
      await client.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
