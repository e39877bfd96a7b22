import type { Station } from '@radiobroadcaster/contracts';

export interface MediaSessionHandlers {
  play?: () => void;
  pause?: () => void;
  stop?: () => void;
}

/** Lock-screen / media-key metadata and actions for a playing station. */
export function setStationMediaSession(station: Station, handlers: MediaSessionHandlers): void {
  if (!('mediaSession' in navigator)) return;
  const np = station.nowPlaying;
  navigator.mediaSession.metadata = new MediaMetadata({
    title: np?.track ?? station.name,
    artist: np?.artist ?? `@${station.broadcaster.username}`,
    album: np?.album ?? station.name,
    artwork: [{ src: '/favicon.svg', sizes: 'any', type: 'image/svg+xml' }],
  });
  const actions: [MediaSessionAction, (() => void) | undefined][] = [
    ['play', handlers.play],
    ['pause', handlers.pause],
    ['stop', handlers.stop],
  ];
  for (const [action, handler] of actions) {
    try {
      navigator.mediaSession.setActionHandler(action, handler ?? null);
    } catch {
      // Not every browser supports every action.
    }
  }
}

export function setMediaSessionPlaying(playing: boolean | null): void {
  if (!('mediaSession' in navigator)) return;
  navigator.mediaSession.playbackState = playing === null ? 'none' : playing ? 'playing' : 'paused';
}

export function clearMediaSession(): void {
  if (!('mediaSession' in navigator)) return;
  navigator.mediaSession.metadata = null;
  navigator.mediaSession.playbackState = 'none';
  for (const action of ['play', 'pause', 'stop'] as const) {
    try {
      navigator.mediaSession.setActionHandler(action, null);
    } catch {
      // ignore
    }
  }
}
