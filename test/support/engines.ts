/**
 * Helpers for the tests that run on both SFU engines: which engines run here (the mediasoup half
 * wherever its worker is built, scripts/build-mediasoup-worker.sh), free UDP ports for the engines'
 * fixed ports, and where a page's peer connections are connected to.
 */
import { createSocket, type Socket } from 'node:dgram';
import type { Page } from 'playwright-core';
import { findMediasoupWorker } from '../../apps/sfu/src/mediasoup/worker-bin.js';

/** Each engine, with the reason its half is skipped here (or null). */
export function enginesHere(
  file: string,
): [name: 'werift' | 'mediasoup', skipped: string | null][] {
  const mediasoup = findMediasoupWorker();
  if (!mediasoup.available)
    console.warn(`${file}: the mediasoup half skipped (${mediasoup.reason})`);
  return [
    ['werift', null],
    ['mediasoup', mediasoup.available ? null : mediasoup.reason],
  ];
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
