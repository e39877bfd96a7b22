/**
 * The SFU engines the WebRTC end-to-end tests run on: werift always, mediasoup where its worker is
 * built (scripts/build-mediasoup-worker.sh; .ci/run builds it) and skipped with the reason elsewhere.
 * Each entry: the engine (the API process's MEDIA_ENGINE) and why it is skipped, or null.
 */
import { findMediasoupWorker } from '../../apps/sfu/src/mediasoup/worker-bin.js';

export type E2eEngine = 'werift' | 'mediasoup';

const mediasoup = findMediasoupWorker();
/** Why the mediasoup runs are skipped here, or null when its worker is built. */
export const MEDIASOUP_MISSING: string | null = mediasoup.available ? null : mediasoup.reason;
if (MEDIASOUP_MISSING) console.warn(`mediasoup end-to-end runs skipped: ${MEDIASOUP_MISSING}`);

export const E2E_ENGINES: [E2eEngine, string | null][] = [
  ['werift', null],
  ['mediasoup', MEDIASOUP_MISSING],
];
