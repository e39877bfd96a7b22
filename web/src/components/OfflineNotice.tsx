import { useEffect, useSyncExternalStore } from 'react';

const subscribe = (fn: () => void) => {
  addEventListener('online', fn);
  addEventListener('offline', fn);
  return () => {
    removeEventListener('online', fn);
    removeEventListener('offline', fn);
  };
};

/** The service worker marks the cached shell it answers with when the network is gone (sw.js). */
const FROM_SHELL =
  typeof document !== 'undefined' && !!document.querySelector('meta[name="rb-offline-shell"]');

/**
 * Said on every page while there is no network — the device says so, or the installed app opened
 * its cached shell: what cannot work, and that it picks up again by itself (the shell reloads once
 * the server answers again).
 */
export function OfflineNotice() {
  const online = useSyncExternalStore(
    subscribe,
    () => navigator.onLine,
    () => true,
  );
  useEffect(() => {
    if (!FROM_SHELL) return;
    const t = setInterval(() => {
      fetch('/health/live', { cache: 'no-store' }).then(
        (r) => {
          if (r.ok) location.reload();
        },
        () => undefined,
      );
    }, 3000);
    return () => clearInterval(t);
  }, []);
  if (online && !FROM_SHELL) return null;
  return (
    <p className="offline-notice" role="status" data-testid="offline-notice">
      <strong>You are offline.</strong> Going live and listening need a connection; this page
      carries on by itself once you are back online.
    </p>
  );
}
