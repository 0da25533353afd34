// Other extensions as agents, over chrome.runtime.onConnectExternal
// (ARCHITECTURE.md, "Who is gated"). Only extensions whose id the person
// allowed on the settings page may connect; each port is one chat, named
// after the extension, and carries the same MCP-shaped requests as every
// agent channel: a JSON-RPC request in, its response out. Every other id is
// refused, and the refusal is kept where the person sees it. An
// administrator's policy (policy.js) may let more connect.
import { policy, policyExtensions } from './policy.js';

const ALLOWED_KEY = 'allowedExtensions'; // {id: {label}}
const REFUSED_KEY = 'refusedExtensions'; // [{id, at, times}], newest first
const REFUSED_KEPT = 50;
const EXTENSION_ID = /^[a-p]{32}$/;

export function otherExtensions({ agent, openChat, closeChat, errorReply, errors }) {
  let lastPort = 0;
  const open = new Map(); // chat -> {id, label, since}

  async function allowed() {
    const { [ALLOWED_KEY]: stored } = await chrome.storage.local.get(ALLOWED_KEY);
    return stored !== null && typeof stored === 'object' ? stored : {};
  }

  // Those the person allowed, and those an administrator's policy lets connect.
  async function mayConnect() {
    return { ...(await allowed()), ...policyExtensions(await policy()) };
  }

  async function refused(id) {
    const { [REFUSED_KEY]: stored } = await chrome.storage.local.get(REFUSED_KEY);
    const list = Array.isArray(stored) ? stored : [];
    const before = list.find((r) => r.id === id);
    const entry = { id, at: Date.now(), times: (before?.times ?? 0) + 1 };
    const kept = [entry, ...list.filter((r) => r.id !== id)].slice(0, REFUSED_KEPT);
    await chrome.storage.local.set({ [REFUSED_KEY]: kept });
  }

  // Registered synchronously by the worker; the port's messages wait for
  // the allowed list to be read, and are dropped if the id is refused.
  function onConnect(port) {
    const id = port.sender?.id;
    const decided = mayConnect().then(async (list) => {
      if (typeof id !== 'string' || !Object.hasOwn(list, id)) {
        await refused(String(id));
        port.postMessage(await errorReply('refused_extension', null, id));
        port.disconnect();
        return null;
      }
      const chat = `ext:${id}:${Date.now()}-${++lastPort}`;
      const label = list[id]?.label || id;
      open.set(chat, { id, label, since: Date.now(), port });
      await openChat(chat, { label });
      return chat;
    });
    port.onMessage.addListener((request) => {
      decided.then(async (chat) => {
        if (!chat) return;
        const reply = await agent(chat, request).catch((error) => errorReply('internal', request?.id ?? null, error?.message ?? error));
        try {
          port.postMessage(reply);
        } catch {
          // The port closed while the request waited.
        }
      }).catch((error) => errors.push(`extension ${id}'s request: ${error?.stack ?? error}`));
    });
    port.onDisconnect.addListener(() => {
      decided.then((chat) => {
        if (!chat) return;
        open.delete(chat);
        // A port is one chat for its life (docs/agents.md, "Chats").
        return closeChat(chat);
      }).catch(() => {});
    });
  }

  return {
    onConnect,
    async status() {
      const { [REFUSED_KEY]: refusedList } = await chrome.storage.local.get(REFUSED_KEY);
      return {
        allowed: [
          ...Object.entries(await allowed()).map(([id, { label }]) => ({ id, label })),
          ...Object.entries(policyExtensions(await policy())).map(([id, { label }]) => ({ id, label, by_policy: true })),
        ],
        refused: Array.isArray(refusedList) ? refusedList : [],
        connected: [...open.values()].map(({ id, label, since }) => ({ id, label, since })),
      };
    },
    async allow(id, label) {
      if (!EXTENSION_ID.test(id)) throw new Error(`${JSON.stringify(id)} is not an extension id (32 letters a to p)`);
      const list = await allowed();
      list[id] = { label: String(label ?? '').trim().slice(0, 100) };
      await chrome.storage.local.set({ [ALLOWED_KEY]: list });
      const { [REFUSED_KEY]: stored } = await chrome.storage.local.get(REFUSED_KEY);
      if (Array.isArray(stored)) await chrome.storage.local.set({ [REFUSED_KEY]: stored.filter((r) => r.id !== id) });
    },
    async forget(id) {
      const list = await allowed();
      delete list[id];
      await chrome.storage.local.set({ [ALLOWED_KEY]: list });
      // Its open ports go too: it may no longer act as an agent.
      for (const [chat, { id: of, port }] of open) {
        if (of !== id) continue;
        open.delete(chat);
        port.disconnect();
        await closeChat(chat);
      }
    },
  };
}
