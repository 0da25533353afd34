// Toolgate's relay, in the content script's isolated world, in every frame.
//
// The MAIN-world shim (main-world.js) cannot reach chrome.runtime, so it hands
// its reports to this script as CustomEvents carrying JSON text; this script
// forwards them to the service worker and hands the answers back the same way.
// The page can dispatch the same events, so nothing here is trusted: the
// worker parses every report as page input and takes the frame's identity from
// the browser's `sender`, never from the report.
(() => {
  'use strict';

  const TO_RELAY = 'toolgate:to-relay';
  const TO_PAGE = 'toolgate:to-page';

  function toPage(message) {
    window.dispatchEvent(new CustomEvent(TO_PAGE, { detail: JSON.stringify(message) }));
  }

  window.addEventListener(TO_RELAY, (event) => {
    if (typeof event.detail !== 'string') return;
    let report;
    try {
      report = JSON.parse(event.detail);
    } catch {
      return;
    }
    if (report === null || typeof report !== 'object' || report.type !== 'updates'
        || !Number.isSafeInteger(report.batch) || !Array.isArray(report.ops)) {
      return;
    }
    const { batch, ops } = report;
    chrome.runtime.sendMessage({ type: 'updates', ops }).then(
      (answer) => toPage({ type: 'results', batch, results: answer?.results ?? [], error: answer?.error ?? null }),
      // The extension was reloaded or updated under this page: its tools stay
      // usable by the page, and the palette tells the person to reload the tab.
      (error) => toPage({ type: 'results', batch, results: [], error: String(error?.message ?? error) }),
    );
  });

  chrome.runtime.onMessage.addListener((message, sender, respond) => {
    if (sender.id !== chrome.runtime.id || message?.type !== 'ping') return false;
    respond({ type: 'pong' });
    return false;
  });
})();
