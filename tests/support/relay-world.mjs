// Code run in the isolated world of Toolgate's content script (the relay,
// extension/content/relay/) in a page's top frame, through the DevTools
// protocol. Tests use it to send the worker what a frame could send it if
// the shim–relay channel were not Toolgate's (ARCHITECTURE.md, "The
// shim–relay channel"): a page can no longer reach that channel, so the
// worker's defences against forged messages are tested from here, where
// `chrome.runtime.sendMessage` speaks for the frame as the relay does.

// Evaluates `fn(arg)` (its source: it must use nothing from the test's
// scope) in the relay's world of `page`'s top frame; resolves with its
// value (awaited, returned by value).
export async function inRelayWorld(page, fn, arg) {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { frameTree } = await cdp.send('Page.getFrameTree');
    const contexts = [];
    cdp.on('Runtime.executionContextCreated', ({ context }) => contexts.push(context));
    // Every live context is reported before `Runtime.enable` answers.
    await cdp.send('Runtime.enable');
    const world = contexts.find((c) => c.auxData?.frameId === frameTree.frame.id && c.auxData?.type === 'isolated'
      && c.name === 'Toolgate');
    if (!world) throw new Error(`no Toolgate content script world in ${page.url()}: ${JSON.stringify(contexts.map((c) => c.name))}`);
    const { result, exceptionDetails } = await cdp.send('Runtime.evaluate', {
      contextId: world.id,
      expression: `(${fn})(${JSON.stringify(arg ?? null)})`,
      awaitPromise: true,
      returnByValue: true,
    });
    if (exceptionDetails) throw new Error(`in the relay's world: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
    return result.value;
  } finally {
    await cdp.detach().catch(() => {});
  }
}

// Sends `message` to Toolgate's worker as `page`'s top frame; resolves with
// the worker's answer, or `{ thrown }` where sending failed.
export function sendAsFrame(page, message) {
  return inRelayWorld(page, (m) => chrome.runtime.sendMessage(m).catch((error) => ({ thrown: error.message })), message);
}
