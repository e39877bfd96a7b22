/*
 * Radio Broadcaster's one service worker (scope /): the offline shell of the installed app, and
 * Web Push, whose handlers live in /sw-push.js. Pages load from the network as usual; when the
 * network is gone a navigation gets the app's shell from the cache (the app then says it cannot
 * connect, with Retry), so the installed studio opens instead of the browser's error page. Audio,
 * the API, WHIP/WHEP and the embed frame are never touched.
 */
importScripts('/sw-push.js');

const SHELL_CACHE = 'rb-shell-v1';
const SHELL_URL = '/';
const STATIC = ['/manifest.webmanifest', '/favicon.svg', '/icons/icon-192.png'];
const BYPASS = /^\/(api|whip|whep|socket\.io|embed|listen|health|player\.m?js)(\/|$)/;

/** The shell page and the build files it loads (hashed names, so a new build caches anew). */
async function cacheShell() {
  const cache = await caches.open(SHELL_CACHE);
  const res = await fetch(SHELL_URL, { cache: 'no-cache' });
  if (!res.ok) return;
  const html = await res.clone().text();
  const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
  await cache.put(SHELL_URL, res);
  await cache.addAll([...new Set([...assets, ...STATIC])]);
}

self.addEventListener('install', (event) => {
  event.waitUntil(cacheShell().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) if (key !== SHELL_CACHE) await caches.delete(key);
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin || BYPASS.test(url.pathname)) return;
  if (req.mode === 'navigate') {
    event.respondWith(
      fetch(req).catch(async () => {
        const shell = await caches.match(SHELL_URL);
        if (!shell) return Response.error();
        // Marked, so the page can say it is offline and reload once the server answers.
        const html = (await shell.text()).replace(
          '<head>',
          '<head><meta name="rb-offline-shell" content="1">',
        );
        return new Response(html, { headers: shell.headers });
      }),
    );
    return;
  }
  if (url.pathname.startsWith('/assets/')) {
    // Build files never change under one name: the cache first, then the network.
    event.respondWith(caches.match(req).then((hit) => hit ?? fetch(req)));
  }
});
