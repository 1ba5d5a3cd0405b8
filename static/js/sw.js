// Jassweb's service worker: the static files from a cache (hashed names never change), and the
// notifications a page asks for while it is in the background ("your turn", "your table is ready").
// It never touches pages, sockets or anything a game sends: those always come from the server.

const CACHE = "jassweb-static-1";
const HASHED = /\.[0-9a-f]{12}\.[a-z0-9]+$/; // collectstatic's names: a file's content in its name

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== self.location.origin) return;
  if (!url.pathname.startsWith("/static/") || !HASHED.test(url.pathname)) return;
  event.respondWith(caches.open(CACHE).then(async (cache) => {
    const kept = await cache.match(event.request);
    if (kept) return kept;
    const response = await fetch(event.request);
    if (response.ok) cache.put(event.request, response.clone());
    return response;
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL((event.notification.data && event.notification.data.url) || "/", self.location.origin);
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
    const open = windows.find((w) => new URL(w.url).pathname === target.pathname);
    return open ? open.focus() : self.clients.openWindow(target.href);
  }));
});
