// Desktop agents: MCP clients reach Toolgate through toolgate-mcp, which the
// browser starts as a native-messaging host (ARCHITECTURE.md, "Desktop
// agents"). One MCP session is one chat, named after its client.
//
// When the port is held: an open native port keeps this MV3 worker alive,
// and it must be open for a desktop agent to reach Toolgate at all (nothing
// outside the browser can wake an extension). So the worker connects once
// at every start; where toolgate-mcp is installed, the port stays open as
// long as the browser runs. Where it is not installed, the one attempt
// fails at once and nothing is tried again until the worker starts again or
// the person asks (the settings page's "Connect again"): no loop, and the
// worker sleeps as usual. A host that exits on its own is started again a
// few times, further apart each time, then left until the next start.
import { saysHostNotInstalled } from '../shared/chromium-errors.js';

export const HOST = 'dev.toolgate.mcp';
const RETRIES = 5;

export function desktopAgents({ ready, parse, agent, openChat, closeChat, withdraw, errorReply, errors }) {
  let port = null;
  let state = { state: 'idle', error: null, since: null };
  let retries = 0;
  let retryTimer = null;
  let retryAt = null; // when retryTimer fires (ms since the epoch), or null
  const sessions = new Map(); // session -> {client, since}
  const chatOf = (session) => `mcp:${session}`;

  function connect() {
    clearTimeout(retryTimer);
    retryTimer = null;
    retryAt = null;
    if (port) return;
    try {
      port = chrome.runtime.connectNative(HOST);
    } catch (error) {
      state = { state: 'not_installed', error: String(error?.message ?? error), since: Date.now() };
      return;
    }
    port.onMessage.addListener((message) => {
      retries = 0; // A host that speaks is a working one: its next exit starts the backoff anew.
      received(message).catch((error) => errors.push(`a desktop agent's message: ${error?.stack ?? error}`));
    });
    port.onDisconnect.addListener(() => {
      const error = chrome.runtime.lastError?.message ?? 'toolgate-mcp closed the connection';
      port = null;
      // Every session's waiting requests go with the host.
      for (const session of sessions.keys()) withdraw(chatOf(session)).catch(() => {});
      sessions.clear();
      if (saysHostNotInstalled(error)) {
        state = { state: 'not_installed', error, since: Date.now() };
        return;
      }
      state = { state: 'disconnected', error, since: Date.now() };
      if (retries < RETRIES) {
        const wait = 1000 * 2 ** retries;
        retryTimer = setTimeout(connect, wait);
        retryAt = Date.now() + wait;
        retries += 1;
      }
    });
    // connectNative gives no "connected" event: the port is taken as open
    // until it says otherwise.
    state = { state: 'connected', error: null, since: Date.now() };
  }

  function send(message) {
    if (!port) return;
    try {
      port.postMessage(message);
    } catch (error) {
      errors.push(`writing to toolgate-mcp: ${error?.stack ?? error}`);
    }
  }

  async function received(raw) {
    await ready;
    let message;
    try {
      message = JSON.parse(parse(JSON.stringify(raw)));
    } catch (error) {
      // A host that speaks another protocol: said, and nothing else happens.
      errors.push(`toolgate-mcp sent a message Toolgate does not read: ${error?.message ?? error}`);
      return;
    }
    const { session } = message;
    const chat = chatOf(session);
    switch (message.type) {
      case 'open':
        // Read only when the person connecting chose it (`toolgate-mcp --read-only`).
        // A session that ended cannot be opened again, by anyone: its
        // requests are then refused as those of a session never opened.
        try {
          await openChat(chat, { label: message.client, readOnly: message.read_only === true });
        } catch (error) {
          // A refusal (a closed id opened again) is the agent's answer, not a fault.
          if (!error?.refused) errors.push(`a desktop agent's session was not opened: ${error?.message ?? error}`);
          send({ type: 'reply', session, reply: await errorReply('session_not_opened', null, error?.message ?? error) });
          return;
        }
        sessions.set(session, { client: message.client, since: Date.now() });
        return;
      case 'request': {
        if (!sessions.has(session)) {
          send({ type: 'reply', session, reply: await errorReply('session_not_opened', message.request?.id ?? null) });
          return;
        }
        const id = message.request?.id ?? null;
        const onWaiting = () => send({ type: 'waiting', session, request_id: id, message: 'waiting for the person to answer Toolgate\'s card' });
        const reply = await agent(chat, message.request, { onWaiting })
          .catch((error) => errorReply('internal', id, error?.message ?? error));
        send({ type: 'reply', session, reply });
        return;
      }
      case 'cancel':
        await withdraw(chat, message.request_id);
        return;
      case 'close':
        // The session ended (its client went away): for good. When the host
        // itself goes, no session is closed: each opens again on the next.
        sessions.delete(session);
        await closeChat(chat);
        return;
      default:
        errors.push(`no handler for a desktop agent's ${message.type}`);
    }
  }

  return {
    connect,
    // What the settings page shows.
    status: () => ({
      ...state,
      host: HOST,
      // The next attempt to start toolgate-mcp, if one is planned.
      retryAt,
      sessions: [...sessions].map(([session, { client, since }]) => ({ session, client, since })),
    }),
    // The settings page's "Connect again".
    retry: () => {
      retries = 0;
      connect();
      return true;
    },
  };
}
