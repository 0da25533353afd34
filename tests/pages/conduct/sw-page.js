// The page's requests go through its service worker (sw.js), which sends
// them on: what the browser sees is the worker's request, in no tab.
navigator.serviceWorker.register('/sw.js');
