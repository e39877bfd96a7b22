import type { NowPlaying } from '@radiobroadcaster/contracts';

/**
 * The last title a station announced, kept in this browser: ending a broadcast clears now playing
 * on the server (the next recording starts clean), and the studio offers it again at the next Go live.
 */
const key = (stationId: string) => `rb:studio:last-now-playing:${stationId}`;

export function rememberNowPlaying(stationId: string, np: NowPlaying): void {
  try {
    localStorage.setItem(
      key(stationId),
      JSON.stringify({ track: np.track, artist: np.artist ?? null, album: np.album ?? null }),
    );
  } catch {
    // Private mode: nothing to offer next time.
  }
}

export function lastNowPlaying(
  stationId: string,
): { track: string; artist: string | null; album: string | null } | null {
  try {
    const raw = localStorage.getItem(key(stationId));
    if (!raw) return null;
    const v = JSON.parse(raw) as { track?: unknown; artist?: unknown; album?: unknown };
    if (typeof v.track !== 'string' || !v.track) return null;
    return {
      track: v.track,
      artist: typeof v.artist === 'string' ? v.artist : null,
      album: typeof v.album === 'string' ? v.album : null,
    };
  } catch {
    return null;
  }
}
