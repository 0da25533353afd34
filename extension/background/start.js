// The worker's first act: worker.js imports this module before any other, so
// the Wasm core's fetch and compilation are asked for before the rest of the
// bundle is evaluated (ARCHITECTURE.md, "A worker's start"). The compilation
// runs off this thread; core.js instantiates the module it gives.
export const coreResponse = fetch(chrome.runtime.getURL('pkg/toolgate_bg.wasm'));
export const coreModule = WebAssembly.compileStreaming(coreResponse);
// Handled in core.js, whose `ready` fails with it.
coreModule.catch(() => {});
