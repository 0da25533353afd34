// Figure 9: a desktop agent's call through toolgate-mcp, against a bare
// native-messaging round trip through the same host process.
//
//   node benches/mcp.mjs            measure (200 rounds), print the figure
//   node benches/mcp.mjs --json     the same, as JSON on stdout
//   node benches/mcp.mjs --smoke    a few rounds, nothing judged (CI)
//
// A: the official TypeScript MCP client calls browser_call_webmcp_tool on an
//    allowed Read-only tool with a trivial execute (the Notes example's
//    list_notes on localhost, which needs no card), through the stdio
//    server, the socket, the host, native messaging, the worker and the page.
// B: a raw socket client speaks the bridge protocol to the same host, and
//    sends MCP's `ping`, which the worker answers at once: the same socket,
//    host and native-messaging hops, and nothing else.
// A and B alternate, so the machine's slow and fast phases fall on both.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir, endianness } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { entries, launch } from '../tests/support/browser.mjs';
import { serve } from '../tests/support/server.mjs';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const MCP = process.env.TOOLGATE_MCP ?? join(REPO, 'target/debug/toolgate-mcp');
const SMOKE = process.argv.includes('--smoke');
const JSON_OUT = process.argv.includes('--json');
const ROUNDS = SMOKE ? 5 : 200;
const WARMUP = SMOKE ? 2 : 30;
// The target, against the floor below (what any such call must cross), not the echo alone.
const TARGET = 1.2;
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// A socket client of the host, framed as native messaging is: a 4-byte
// length in this machine's byte order, then JSON.
function bridgeClient(path) {
  const socket = connect(path);
  let buffer = Buffer.alloc(0);
  const waiting = [];
  socket.on('data', (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      if (buffer.length < 4) return;
      const length = endianness() === 'LE' ? buffer.readUInt32LE(0) : buffer.readUInt32BE(0);
      if (buffer.length < 4 + length) return;
      const message = JSON.parse(buffer.subarray(4, 4 + length).toString('utf8'));
      buffer = buffer.subarray(4 + length);
      waiting.shift()?.(message);
    }
  });
  const send = (message) => {
    const body = Buffer.from(JSON.stringify(message));
    const head = Buffer.alloc(4);
    if (endianness() === 'LE') head.writeUInt32LE(body.length);
    else head.writeUInt32BE(body.length);
    socket.write(Buffer.concat([head, body]));
  };
  const ready = new Promise((done, fail) => { socket.once('connect', done); socket.once('error', fail); });
  return {
    ready,
    send,
    next: () => new Promise((done) => waiting.push(done)),
    close: () => socket.destroy(),
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

async function main() {
  if (!existsSync(MCP)) throw new Error(`${MCP} is built by ./build.sh`);
  const server = await serve('examples/notes');
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-bench-mcp-'));
  const socketPath = join(dir, 'run', 'host.sock');
  const browser = await launch({
    beforeStart: (profile) => execFileSync(MCP, ['install', '--user-data-dir', profile], { stdio: 'pipe' }),
    env: { TOOLGATE_SOCKET: socketPath },
  });
  const clients = [];
  try {
    for (let i = 0; !existsSync(socketPath); i++) {
      if (i > 400) throw new Error(`the host never listened on ${socketPath}`);
      await sleep(25);
    }
    const page = await browser.newPage(server.url('notes.localhost', '/'));
    await browser.waitForPalette(page, (p) => entries(p).length === 10, 'the Notes example');
    const tabId = await browser.tabId(page);

    const client = new Client({ name: 'benchmark', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: MCP, env: { ...process.env, TOOLGATE_SOCKET: socketPath } }));
    clients.push(client);
    const mcpCall = async () => {
      const result = await client.callTool({ name: 'browser_call_webmcp_tool', arguments: { tabId, name: 'list_notes', arguments: {} } });
      if (result.isError) throw new Error(`list_notes did not run: ${result.content?.[0]?.text}`);
    };

    const bare = bridgeClient(socketPath);
    await bare.ready;
    const session = 'bench-echo';
    bare.send({ type: 'open', session, client: 'benchmark echo' });
    let id = 0;
    const echo = async () => {
      const answer = bare.next();
      bare.send({ type: 'request', session, request: { jsonrpc: '2.0', id: ++id, method: 'ping' } });
      const reply = await answer;
      if (reply.type !== 'reply' || !reply.reply?.result) throw new Error(`the echo answered ${JSON.stringify(reply)}`);
    };

    const timed = async (run) => {
      const start = performance.now();
      await run();
      return performance.now() - start;
    };
    for (let i = 0; i < WARMUP; i++) {
      await mcpCall();
      await echo();
    }
    // The floor: what any such call must cross besides the echo's hops, each
    // timed alone: the client's stdio hop to toolgate-mcp (tools/list, which
    // the server answers itself) and the worker's hop into the page and
    // back (a ping of the tab's relay, timed inside the worker).
    // A call finds the page idle (since the last round's call), so the floor
    // takes the hop as a call crosses it: the first ping of each batch, alone.
    // Ten more go back to back, the page awake for them (reported, not judged:
    // no call of this figure finds the page awake).
    const sw = await browser.worker();
    const tabPing = () => sw.evaluate(async (tab) => {
      const ping = () => chrome.tabs.sendMessage(tab, { type: 'ping' }, { frameId: 0 });
      let start = performance.now();
      await ping();
      const idle = performance.now() - start;
      start = performance.now();
      for (let i = 0; i < 10; i++) await ping();
      return { idle, awake: (performance.now() - start) / 10 };
    }, tabId);
    const calls = [];
    const echoes = [];
    const stdio = [];
    const pings = [];
    const idlePings = [];
    for (let i = 0; i < ROUNDS; i++) {
      calls.push(await timed(mcpCall));
      echoes.push(await timed(echo));
      stdio.push(await timed(() => client.listTools()));
      if (i % 10 === 0) {
        const { idle, awake } = await tabPing();
        idlePings.push(idle);
        pings.push(awake);
      }
    }
    bare.close();
    await browser.assertNoErrors();
    const call = median(calls);
    const base = median(echoes);
    const floor = base + median(stdio) + median(idlePings);
    const awakeFloor = base + median(stdio) + median(pings);
    return {
      figure: 9, call_ms: call, echo_ms: base, ratio: call / base, target_over_floor: TARGET, over_floor: call / floor,
      stdio_hop_ms: median(stdio), tab_ping_ms: median(idlePings), floor_ms: floor, floor_ratio: floor / base,
      tab_ping_awake_ms: median(pings), floor_awake_ms: awakeFloor, over_floor_awake: call / awakeFloor,
      rounds: ROUNDS, smoke: SMOKE,
    };
  } finally {
    for (const c of clients) await c.close().catch(() => {});
    await browser.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const result = await main();
if (JSON_OUT) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  const judged = SMOKE ? 'smoke: not judged' : result.over_floor <= TARGET ? 'met' : 'not met';
  process.stdout.write(`figure 9, MCP client → toolgate-mcp → allowed Read-only tool: ${result.call_ms.toFixed(2)} ms; `
    + `bare native-messaging echo through the same host: ${result.echo_ms.toFixed(2)} ms (${result.ratio.toFixed(2)}× the echo)\n`
    + `  the floor: the echo + the client's stdio hop (${result.stdio_hop_ms.toFixed(2)} ms) + the worker's hop into the page `
    + `as a call finds it, idle (${result.tab_ping_ms.toFixed(2)} ms) = ${result.floor_ms.toFixed(2)} ms, ${result.floor_ratio.toFixed(2)}× the echo; `
    + `the call is ${result.over_floor.toFixed(2)}× the floor (target ≤ ${TARGET}×, ${judged}; medians of ${result.rounds} alternating rounds)\n`
    + `  the hop into an awake page (ten pings back to back): ${result.tab_ping_awake_ms.toFixed(2)} ms; with it the floor is `
    + `${result.floor_awake_ms.toFixed(2)} ms and the call ${result.over_floor_awake.toFixed(2)}× it (not judged)\n`);
}
