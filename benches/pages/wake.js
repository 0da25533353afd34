// Sends one agent request through chrome.runtime.sendMessage, as the agent
// console does; resolves with the time it took in this page and the reply.
window.call = async (chatId, request) => {
  const started = performance.now();
  const reply = await chrome.runtime.sendMessage({ type: 'agent', chat_id: chatId, request });
  return { ms: performance.now() - started, reply };
};
