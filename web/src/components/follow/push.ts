import { useCallback, useEffect, useState } from 'react';

/** Whether this browser can take Web Push at all. */
export function pushSupported(): boolean {
  return (
    typeof window !== 'undefined' &&
    'serviceWorker' in navigator &&
    'PushManager' in window &&
    'Notification' in window
  );
}

/**
 * This browser's push subscription, kept in step with the server: `setEnabled(true)` asks for
 * permission, subscribes with the server's VAPID key and registers the subscription.
 */
export function usePushSubscription() {
  const [subscribed, setSubscribed] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!pushSupported()) return;
    void navigator.serviceWorker.getRegistration().then(async (reg) => {
      setSubscribed(Boolean(await reg?.pushManager.getSubscription()));
    });
  }, []);
  const setEnabled = useCallback(async (on: boolean) => {
    setBusy(true);
    try {
      const { setPushEnabled } = await import('./push-client');
      await setPushEnabled(on);
      setSubscribed(on);
    } finally {
      setBusy(false);
    }
  }, []);
  return { subscribed, busy, setEnabled };
}
