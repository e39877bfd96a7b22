/**
 * A private station's listening grant as this browser keeps it: the player stores it by station
 * id (`rb:listen-grant:{id}`, libs/player); the site also by address, for the replay pages. Sent
 * as `?grant=` where the API asks who may hear a private station (its replays).
 */
const BY_ID = 'rb:listen-grant:';
const BY_ADDRESS = 'rb:listen-grant-at:';

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function grantFor(stationId: string): string | null {
  return read(BY_ID + stationId);
}

export function grantAt(username: string, slug: string): string | null {
  return read(`${BY_ADDRESS}${username.toLowerCase()}/${slug.toLowerCase()}`);
}

export function rememberGrantAt(username: string, slug: string, token: string): void {
  try {
    localStorage.setItem(`${BY_ADDRESS}${username.toLowerCase()}/${slug.toLowerCase()}`, token);
  } catch {
    // storage refused: replays of a private station stay hidden on this page
  }
}

/** `path` with `grant=` added when there is one. */
export function withGrant(path: string, grant: string | null): string {
  if (!grant) return path;
  return `${path}${path.includes('?') ? '&' : '?'}grant=${encodeURIComponent(grant)}`;
}
