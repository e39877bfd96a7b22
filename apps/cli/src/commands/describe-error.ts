import { ApiError, NetworkError } from '../api.js';

/** A one-line, user-facing explanation of an error. */
export function describeError(e: unknown, station?: string): string {
  const where = station ? `station "${station}"` : 'station';
  if (e instanceof ApiError) {
    if (e.tag === 'StationNotFoundError') return `${where} not found (404 StationNotFoundError)`;
    if (e.tag === 'STATION_NOT_ACTIVE')
      return `${where} is not live right now (409 STATION_NOT_ACTIVE)`;
    if (e.status === 401)
      return `authentication failed: ${e.message} (401${e.tag ? ` ${e.tag}` : ''})`;
    if (e.status === 403) return `not allowed: ${e.message} (403${e.tag ? ` ${e.tag}` : ''})`;
    if (e.status === 409 && /\/whip\//.test(e.url))
      return `${where} already has a live publisher: ${e.message} (409)`;
    if (e.status === 429) return `rate limited by the server: ${e.message} (429)`;
    return `${e.url} answered ${e.status}${e.tag ? ` ${e.tag}` : ''}: ${e.message}`;
  }
  if (e instanceof NetworkError) return e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}
