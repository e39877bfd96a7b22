import { apiFetch } from '../../lib/api';

/** The worker that takes push messages: the app's one service worker (/sw.js imports /sw-push.js). */
async function registration(): Promise<ServiceWorkerRegistration> {
  const existing = await navigator.serviceWorker.getRegistration('/');
  if (existing) return existing;
  await navigator.serviceWorker.register('/sw.js', { scope: '/' });
  return navigator.serviceWorker.ready;
}

function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const b64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  const raw = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  const out = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

/** Subscribes this browser (asking permission) and registers it, or unsubscribes it. */
export async function setPushEnabled(on: boolean): Promise<void> {
  const reg = await registration();
  const current = await reg.pushManager.getSubscription();
  if (!on) {
    if (current) {
      await apiFetch<void>('/api/push/subscriptions/remove', 'POST', {
        endpoint: current.endpoint,
      });
      await current.unsubscribe();
    }
    return;
  }
  if ((await Notification.requestPermission()) !== 'granted')
    throw new Error('This browser does not allow notifications from this site.');
  const { publicKey } = await apiFetch<{ publicKey: string | null }>('/api/push/vapid-public-key');
  if (!publicKey) throw new Error('Browser notifications are not set up on this server.');
  const sub =
    current ??
    (await reg.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: keyBytes(publicKey),
    }));
  await apiFetch<void>('/api/push/subscriptions', 'POST', sub.toJSON());
}
