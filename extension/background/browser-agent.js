// How the browser's own agent is named: one chat per tab, and one request id
// per call of one document (ARCHITECTURE.md, "Who is gated"). Its calls
// arrive in pages.js; calls.js hands the page back the call's number.
export const BROWSER_AGENT = "the browser's agent in this tab";
const CHAT_PREFIX = 'browser-agent:';

export const browserAgentChat = (tabId) => `${CHAT_PREFIX}${tabId}`;

// Sent again (the worker stopped), the same call finds its card or its kept reply.
export const nativeRequestId = (documentId, call) => `${documentId}:${call}`;

// The page's number for a native call of this document, or undefined for a
// request that is not one.
export function nativeCallOf(chat, id, documentId) {
  if (!chat.startsWith(CHAT_PREFIX) || typeof id !== 'string' || !id.startsWith(`${documentId}:`)) return undefined;
  return Number(id.slice(documentId.length + 1));
}
