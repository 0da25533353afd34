// What a first agent call needs besides the core, made ready while the
// core's Wasm compiles off the worker's thread (worker.js), so that the first
// call does not wait for it (ARCHITECTURE.md, "A worker's start"). It changes
// nothing a call is decided on.

export function warmUp() {
  // Chromium builds an API's bindings at its first use: a watched call's
  // first listener (watch.js) then waits for less.
  void chrome.webRequest.onBeforeRequest;
}
