/* The service worker for push alone, where the installable app's worker is not there. */
/* global self, importScripts */
'use strict';
importScripts('/sw-push.js');
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
