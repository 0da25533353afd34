// A second extension that acts as an agent: it connects to Toolgate over
// chrome.runtime.connect (Toolgate's onConnectExternal) and sends the same
// MCP-shaped JSON-RPC requests every agent channel carries. Tests drive it
// through `self.agent` in this worker.
const TOOLGATE = 'ckcdjacnpndbpfeglbpdejjppnhdelmo';

let port = null;
const waiting = new Map(); // request id -> resolve
const received = [];
const disconnected = [];

function connect() {
  port = chrome.runtime.connect(TOOLGATE);
  port.onMessage.addListener((message) => {
    received.push(message);
    const resolve = waiting.get(message?.id);
    if (resolve) {
      waiting.delete(message.id);
      resolve(message);
    }
  });
  port.onDisconnect.addListener(() => {
    disconnected.push(chrome.runtime.lastError?.message ?? 'disconnected');
    port = null;
  });
}

self.agent = {
  connect,
  // Sends a request; resolves with its reply.
  request(request) {
    if (!port) connect();
    return new Promise((resolve) => {
      waiting.set(request.id, resolve);
      port.postMessage(request);
    });
  },
  // Sends a request without waiting for its reply.
  post(request) {
    if (!port) connect();
    port.postMessage(request);
  },
  close() {
    port?.disconnect();
    port = null;
  },
  received,
  disconnected,
};
