/**
 * Helpers for the tests that run on both SFU engines: which engines run here (werift always, the
 * mediasoup half wherever its worker is built, scripts/build-mediasoup-worker.sh; .ci/run builds it,
 * skipped with the reason elsewhere), free UDP ports for the engines' fixed ports, and where a page's
 * peer connections are connected to.
 */
import { createSocket, type Socket } from 'node:dgram';
import type { Page } from 'playwright-core';
import { findMediasoupWorker } from '../../apps/sfu/src/mediasoup/worker-bin.js';

export type E2eEngine = 'werift' | 'mediasoup';

const mediasoup = findMediasoupWorker();
/** Why the mediasoup runs are skipped here, or null when its worker is built. */
export const MEDIASOUP_MISSING: string | null = mediasoup.available ? null : mediasoup.reason;
if (MEDIASOUP_MISSING) console.warn(`mediasoup end-to-end runs skipped: ${MEDIASOUP_MISSING}`);

/** Each engine (the API process's MEDIA_ENGINE) and why it is skipped here, or null. */
export const E2E_ENGINES: [E2eEngine, string | null][] = [
  ['werift', null],
  ['mediasoup', MEDIASOUP_MISSING],
];

/** Each engine, with the reason its half is skipped here (or null). */
export function enginesHere(file: string): [name: E2eEngine, skipped: string | null][] {
  if (MEDIASOUP_MISSING) console.warn(`${file}: the mediasoup half skipped (${MEDIASOUP_MISSING})`);
  return E2E_ENGINES;
}

/** The first of `count` consecutive free UDP ports (bound on every address, then released). */
export async function freeUdpPorts(count: number): Promise<number> {
  const bind = (port: number) =>
    new Promise<Socket | null>((resolve) => {
      const s = createSocket('udp4');
      s.once('error', () => {
        s.close();
        resolve(null);
      });
      s.bind(port, () => resolve(s));
    });
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = await bind(0);
    if (!first) continue;
    const base = first.address().port;
    const held = [first];
    for (let i = 1; i < count; i++) {
      const next = base + i <= 65535 ? await bind(base + i) : null;
      if (!next) break;
      held.push(next);
    }
    await Promise.all(held.map((s) => new Promise<void>((ok) => s.close(() => ok()))));
    if (held.length === count) return base;
  }
  throw new Error(`no ${count} consecutive free UDP ports`);
}

/**
 * The selected candidate pair of each open peer connection the page made (recorded by
 * `recordPeerConnections`): both ends' address and port.
 */
export async function selectedPairs(
  page: Page,
): Promise<
  { local: { address: string; port: number }; remote: { address: string; port: number } }[]
> {
  return page.evaluate(async () => {
    const all = (window as unknown as { __peerConnections?: RTCPeerConnection[] })
      .__peerConnections;
    const out: {
      local: { address: string; port: number };
      remote: { address: string; port: number };
    }[] = [];
    for (const pc of all ?? []) {
      if (pc.connectionState === 'closed') continue;
      const stats = await pc.getStats();
      stats.forEach((s: Record<string, unknown>) => {
        if (s.type !== 'transport' || typeof s.selectedCandidatePairId !== 'string') return;
        const pair = stats.get(s.selectedCandidatePairId) as Record<string, string> | undefined;
        if (!pair) return;
        const end = (id: string | undefined) => {
          const c = (id ? stats.get(id) : undefined) as Record<string, unknown> | undefined;
          return { address: String(c?.address ?? ''), port: Number(c?.port ?? 0) };
        };
        out.push({ local: end(pair.localCandidateId), remote: end(pair.remoteCandidateId) });
      });
    }
    return out;
  });
}
