/*
 * Web Push for followers (issue 29), imported by the app's one service worker (/sw.js) with
 * `importScripts('/sw-push.js')`. Messages are JSON {title, body, url, tag} (apps/api/src/follow/push-notifier.ts).
 */
/* global self, clients */
'use strict';

self.addEventListener('push', (event) => {
  let msg = {};
  try {
    msg = event.data ? event.data.json() : {};
  } catch {
    msg = { body: event.data ? event.data.text() : '' };
  }
  const title = typeof msg.title === 'string' && msg.title ? msg.title : 'Radio Broadcaster';
  const url = typeof msg.url === 'string' ? msg.url : '/';
  event.waitUntil(
    self.registration.showNotification(title, {
      body: typeof msg.body === 'string' ? msg.body : '',
      tag: typeof msg.tag === 'string' ? msg.tag : undefined,
      // A newer notice of the same station replaces the older one, and says so.
      renotify: typeof msg.tag === 'string',
      icon: '/favicon.svg',
      data: { url },
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const target = new URL(
    (event.notification.data && event.notification.data.url) || '/',
    self.location.origin,
  );
  // Only our own pages: a message can never send the listener elsewhere.
  const url = target.origin === self.location.origin ? target.href : self.location.origin + '/';
  event.waitUntil(
    clients.matchAll({ type: 'window', includeUncontrolled: true }).then((list) => {
      for (const c of list) {
        if (c.url === url && 'focus' in c) return c.focus();
      }
      return clients.openWindow(url);
    }),
  );
});

// The browser renewed the subscription: register the new one (the session cookie goes along).
self.addEventListener('pushsubscriptionchange', (event) => {
  event.waitUntil(
    fetch('/api/push/vapid-public-key')
      .then((r) => r.json())
      .then(({ publicKey }) => {
        if (!publicKey) return undefined;
        const b64 = publicKey.replace(/-/g, '+').replace(/_/g, '/');
        const raw = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
        const key = Uint8Array.from(raw, (c) => c.charCodeAt(0));
        return self.registration.pushManager
          .subscribe({ userVisibleOnly: true, applicationServerKey: key })
          .then((sub) =>
            fetch('/api/push/subscriptions', {
              method: 'POST',
              credentials: 'include',
              headers: { 'Content-Type': 'application/json' },
              body: JSON.stringify(sub.toJSON()),
            }),
          );
      }),
  );
});
