// A pass-through service worker, as many sites have: it takes control of
// the page at once and sends every request of it on, POSTs included.
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (event) => event.respondWith(fetch(event.request)));
