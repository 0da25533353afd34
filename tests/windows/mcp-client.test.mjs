// toolgate-mcp's Windows build, driven by the official TypeScript MCP client
// (@modelcontextprotocol/sdk, StdioClientTransport) as Claude Desktop or Cursor
// on Windows would: both copies of toolgate-mcp.exe run under Wine, the
// stdio server started by the client and the native-messaging host started by
// this test, which plays the browser with the real framing (a 4-byte length,
// then JSON) on the host's stdin and stdout. No browser runs on Windows here:
// the extension's side is this test double (toolgate-mcp/README.md, "Systems").
//
// Run by ./build.sh test after the Windows build (TOOLGATE_MCP_EXE names it,
// WINEPREFIX the throwaway Wine prefix).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const EXE = process.env.TOOLGATE_MCP_EXE;
const ORIGIN = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/';
const CORE_TOOLS = JSON.parse(readFileSync(new URL('../../src/protocol/browser-tools.json', import.meta.url)));
// Bytes a text-mode stream would change: CR LF, Ctrl-Z (end of file to the C
// runtime's text mode), and UTF-8 beyond ASCII.
const AWKWARD = 'line one\r\nline two \u001a then é, ✓ and 🙂';

/** The host under Wine, with this test as its browser. */
function startHost(env) {
  const child = spawn('wine', [EXE, ORIGIN], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const frames = [];
  const waiting = [];
  let buffered = Buffer.alloc(0);
  child.stdout.on('data', (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= 4) {
      const length = buffered.readUInt32LE(0);
      if (buffered.length < 4 + length) break;
      const frame = JSON.parse(buffered.subarray(4, 4 + length).toString('utf8'));
      buffered = buffered.subarray(4 + length);
      const next = waiting.shift();
      if (next) next(frame);
      else frames.push(frame);
    }
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  const listening = new Promise((resolve, reject) => {
    child.stderr.on('data', (text) => {
      stderr += text;
      if (stderr.includes('listening on')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`the host exited (${code}): ${stderr}`)));
  });
  return {
    child,
    listening,
    stderr: () => stderr,
    /** The next frame the host sends the browser. */
    recv: () => (frames.length > 0 ? Promise.resolve(frames.shift()) : new Promise((resolve) => waiting.push(resolve))),
    send(message) {
      const body = Buffer.from(JSON.stringify(message), 'utf8');
      const length = Buffer.alloc(4);
      length.writeUInt32LE(body.length);
      child.stdin.write(Buffer.concat([length, body]));
    },
  };
}

describe('toolgate-mcp.exe under Wine, with the TypeScript MCP client', { skip: !EXE && 'TOOLGATE_MCP_EXE is not set (./build.sh test sets it after the Windows build)' }, () => {
  const env = {
    ...process.env,
    WINEDEBUG: '-all',
    TOOLGATE_SOCKET: `\\\\.\\pipe\\toolgate-test-${randomBytes(8).toString('hex')}`,
  };
  let host;
  let client;

  before(async () => {
    host = startHost(env);
    await host.listening;
    client = new Client({ name: 'Wine test client', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: 'wine', args: [EXE], env, stderr: 'pipe' }));
  });
  after(async () => {
    await client?.close();
    if (host && host.child.exitCode === null) {
      host.child.stdin.end();
      await once(host.child, 'exit');
    }
  });

  test('initialize names the server and offers tools', () => {
    assert.equal(client.getServerVersion()?.name, 'toolgate');
    assert.ok(client.getServerCapabilities()?.tools, 'the tools capability');
  });

  test('tools/list is the core browser tools, as on Linux', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), CORE_TOOLS.map((t) => t.name));
    for (const [i, tool] of tools.entries()) assert.deepEqual(tool.inputSchema, CORE_TOOLS[i].inputSchema);
  });

  test('a call crosses the pipe to the browser and its reply comes back byte for byte', async () => {
    const call = client.callTool({
      name: 'browser_call_webmcp_tool',
      arguments: { tabId: 3, name: 'add_note', arguments: { text: AWKWARD } },
    });
    const open = await host.recv();
    assert.equal(open.type, 'open', JSON.stringify(open));
    assert.equal(open.client, 'Wine test client');
    const request = await host.recv();
    assert.equal(request.type, 'request');
    assert.equal(request.session, open.session);
    assert.equal(request.request.params.name, 'browser_call_webmcp_tool');
    assert.deepEqual(request.request.params.arguments, { tabId: 3, name: 'add_note', arguments: { text: AWKWARD } });
    host.send({
      type: 'reply',
      session: open.session,
      reply: {
        jsonrpc: '2.0',
        id: request.request.id,
        result: { content: [{ type: 'text', text: `saved: ${AWKWARD}` }], isError: false, _meta: { toolgate: 'allowed' } },
      },
    });
    const result = await call;
    assert.equal(result.isError, false);
    assert.equal(result.content[0].text, `saved: ${AWKWARD}`);
    assert.deepEqual(result._meta, { toolgate: 'allowed' });
  });

  test('the browser closing the port stops the host, and the next call says Toolgate is not reachable', async () => {
    host.child.stdin.end();
    const [code] = await once(host.child, 'exit');
    assert.equal(code, 0, host.stderr());
    const result = await client.callTool({ name: 'browser_list_tabs', arguments: {} });
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /toolgate-mcp doctor/);
  });
});
