import type { Station } from './types.js';

export interface MediaSessionActions {
  play(): void;
  pause(): void;
  stop(): void;
}

/** Several players can share a page; the one that played last owns the lock-screen controls. */
let owner: object | null = null;

function mediaSession(): MediaSession | null {
  return typeof navigator !== 'undefined' && 'mediaSession' in navigator
    ? navigator.mediaSession
    : null;
}

/**
 * What the lock screen shows: title = track, artist = artist, album = album; where one is missing
 * the station name stands in (and the title is the station name when nothing is announced).
 */
export function metadataFor(
  station: Station,
  base = typeof location === 'undefined' ? 'http://localhost' : location.href,
): { title: string; artist: string; album: string; artwork: MediaImage[] } {
  const np = station.nowPlaying;
  // The lock screen shows the station's cover (or the broadcaster's picture), 800×800 WebP.
  const art = station.coverUrl ?? station.broadcaster.avatarUrl;
  return {
    title: np?.track || station.name,
    artist: np?.artist || (np ? station.name : station.broadcaster.name || station.name),
    album: np?.album || station.name,
    artwork: art ? [{ src: new URL(art, base).href, sizes: '800x800', type: 'image/webp' }] : [],
  };
}

/** Takes the lock-screen controls for `who`. */
export function claimMediaSession(who: object, actions: MediaSessionActions): void {
  const ms = mediaSession();
  if (!ms) return;
  owner = who;
  const set = (action: MediaSessionAction, handler: (() => void) | null) => {
    try {
      ms.setActionHandler(action, handler);
    } catch {
      // action not supported by this browser
    }
  };
  set('play', () => actions.play());
  set('pause', () => actions.pause());
  set('stop', () => actions.stop());
}

/** Updates metadata and playback state if `who` owns the controls. */
export function updateMediaSession(
  who: object,
  station: Station | null,
  playing: boolean,
  base?: string,
): void {
  const ms = mediaSession();
  if (!ms || owner !== who) return;
  if (station && typeof MediaMetadata === 'function') {
    const next = metadataFor(station, base);
    const cur = ms.metadata;
    if (
      !cur ||
      cur.title !== next.title ||
      cur.artist !== next.artist ||
      cur.album !== next.album ||
      cur.artwork[0]?.src !== next.artwork[0]?.src
    ) {
      ms.metadata = new MediaMetadata(next);
    }
  }
  ms.playbackState = playing ? 'playing' : 'paused';
}

/** Gives the controls back (element removed). */
export function releaseMediaSession(who: object): void {
  const ms = mediaSession();
  if (!ms || owner !== who) return;
  owner = null;
  ms.metadata = null;
  ms.playbackState = 'none';
  for (const action of ['play', 'pause', 'stop'] as const) {
    try {
      ms.setActionHandler(action, null);
    } catch {
      // not supported
    }
  }
}
