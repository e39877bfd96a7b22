/**
 * Which SFU engine this process runs, chosen once at start: `MEDIA_ENGINE=werift|mediasoup`; unset,
 * mediasoup where its worker is present and werift otherwise. The reason goes to the log.
 */
import type { MediaEngine, MediaEngineOptions } from './media-engine.js';
import {
  findMediasoupWorker,
  WORKER_BUILD_HINT,
  type MediasoupAvailability,
} from './mediasoup/worker-bin.js';
import { createWeriftEngine } from './werift/werift-engine.js';

export type EngineName = 'werift' | 'mediasoup';
export const ENGINE_NAMES: readonly EngineName[] = ['werift', 'mediasoup'];

export interface EngineChoice {
  engine: EngineName;
  /** One line for the log: which engine and why (with the build hint when mediasoup is missing). */
  reason: string;
}

/** The choice from `MEDIA_ENGINE` and whether a mediasoup worker is there; throws on a bad value. */
export function chooseEngine(
  requested: string | undefined,
  mediasoup: MediasoupAvailability,
): EngineChoice {
  const value = requested?.trim().toLowerCase() || undefined;
  if (value !== undefined && !(ENGINE_NAMES as readonly string[]).includes(value)) {
    throw new Error(`MEDIA_ENGINE must be one of ${ENGINE_NAMES.join(', ')} (got "${requested}")`);
  }
  if (value === 'werift') return { engine: 'werift', reason: 'MEDIA_ENGINE=werift' };
  if (value === 'mediasoup') {
    if (!mediasoup.available) {
      throw new Error(`MEDIA_ENGINE=mediasoup but ${mediasoup.reason}; ${WORKER_BUILD_HINT}`);
    }
    return { engine: 'mediasoup', reason: `MEDIA_ENGINE=mediasoup (worker ${mediasoup.bin})` };
  }
  return mediasoup.available
    ? {
        engine: 'mediasoup',
        reason: `MEDIA_ENGINE unset and the mediasoup ${mediasoup.version} worker is at ${mediasoup.bin}`,
      }
    : {
        engine: 'werift',
        reason: `MEDIA_ENGINE unset and ${mediasoup.reason}; for mediasoup, ${WORKER_BUILD_HINT}`,
      };
}

/** Starts the chosen engine; `log` gets the one line saying which and why. */
export async function createMediaEngine(
  opts: MediaEngineOptions & { engine?: string },
  log: (line: string) => void = (l) => console.log(l),
): Promise<{ engine: MediaEngine; choice: EngineChoice }> {
  const choice = chooseEngine(opts.engine ?? process.env.MEDIA_ENGINE, findMediasoupWorker());
  log(`SFU engine: ${choice.engine} (${choice.reason})`);
  if (choice.engine === 'mediasoup') {
    const { MediasoupEngine } = await import('./mediasoup/mediasoup-engine.js');
    return { engine: await MediasoupEngine.create(opts), choice };
  }
  return { engine: await createWeriftEngine(opts), choice };
}
