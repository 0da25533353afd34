// The browser's own agent, as a test plays it: a caller from outside
// Toolgate that reaches the copies of a page's tools Toolgate registers with
// the browser's native WebMCP.
//   Chromium 156: the DevTools protocol's WebMCP domain (`WebMCP.invokeTool`),
//     the path DevTools-driven agents and the browser's built-in agent take;
//   Chromium 148, which has no such domain: the native
//     `navigator.modelContextTesting.executeTool`, called from an isolated
//     world, where the page's own scripts (and Toolgate's shim) are not.
// `call(name, input)` resolves with `{ ok, output }` or `{ ok: false, error }`.
import { BROWSER_VERSION } from './browser.mjs';

export async function browserAgent(context, page) {
  const cdp = await context.newCDPSession(page);
  const { frameTree } = await cdp.send('Page.getFrameTree');
  const frameId = frameTree.frame.id;
  if (BROWSER_VERSION >= 156) {
    const responses = new Map(); // invocation id -> resolve, or the response that came first
    cdp.on('WebMCP.toolResponded', (event) => {
      const waiting = responses.get(event.invocationId);
      if (typeof waiting === 'function') waiting(event);
      else responses.set(event.invocationId, event);
    });
    await cdp.send('WebMCP.enable');
    return {
      via: 'WebMCP.invokeTool',
      async call(name, input = {}) {
        const { invocationId } = await cdp.send('WebMCP.invokeTool', { frameId, toolName: name, input });
        const event = responses.has(invocationId)
          ? responses.get(invocationId)
          : await new Promise((resolve) => responses.set(invocationId, resolve));
        responses.delete(invocationId);
        return event.status === 'Completed'
          ? { ok: true, output: event.output, event }
          : { ok: false, error: event.exception?.description || event.errorText || JSON.stringify(event), event };
      },
      detach: () => cdp.detach(),
    };
  }
  const { executionContextId } = await cdp.send('Page.createIsolatedWorld', { frameId, worldName: 'the browser agent' });
  return {
    via: 'navigator.modelContextTesting.executeTool',
    async call(name, input = {}) {
      const expression = `navigator.modelContextTesting.executeTool(${JSON.stringify(name)}, ${JSON.stringify(JSON.stringify(input))})
        .then((output) => ({ ok: true, output }), (error) => ({ ok: false, error: String(error) }))`;
      const { result, exceptionDetails } = await cdp.send('Runtime.evaluate', {
        contextId: executionContextId, expression, awaitPromise: true, returnByValue: true,
      });
      if (exceptionDetails) return { ok: false, error: exceptionDetails.exception?.description ?? exceptionDetails.text };
      return result.value;
    },
    detach: () => cdp.detach(),
  };
}
