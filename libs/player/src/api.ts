import { trimBase } from './attributes.js';
import type { JoinAccess, JoinStationResponse, Station, StationLocator } from './types.js';

/** Error tags the player acts on: each changes what it shows or whether it retries. */
export const PlayerErrorTag = {
  StationNotFound: 'StationNotFoundError',
  StationNotActive: 'STATION_NOT_ACTIVE',
  DomainNotAllowed: 'DOMAIN_NOT_ALLOWED',
  NetworkError: 'NETWORK_ERROR',
  RateLimited: 'TooManyRequests',
  InvalidStation: 'INVALID_STATION',
  Unsupported: 'WEBRTC_UNSUPPORTED',
  /** The live connection never came up, on a fresh session either (the player's own, not the API's). */
  JoinFailed: 'JOIN_FAILED',
  /** A private station: an invite link or its password is needed. */
  PrivateStation: 'PRIVATE_STATION',
  WrongPassword: 'WRONG_STATION_PASSWORD',
  InviteInvalid: 'INVITE_INVALID',
  GrantRevoked: 'GRANT_REVOKED',
} as const;

/** The tags that put the player in its `private` state. */
export const PRIVATE_TAGS: readonly string[] = [
  PlayerErrorTag.PrivateStation,
  PlayerErrorTag.WrongPassword,
  PlayerErrorTag.InviteInvalid,
  PlayerErrorTag.GrantRevoked,
];

/**
 * A failed call. `message` reads 'API call failed: {status} {statusText} - {body text}', as in the web app;
 * `tag` is the body's `error` field when there is one, NETWORK_ERROR when the request never got an answer.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    message: string,
    readonly status: number,
    readonly tag: string | undefined,
    /** From Retry-After (seconds or HTTP date) when the server sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }

  static async fromResponse(res: Response): Promise<ApiError> {
    let text = '';
    try {
      text = await res.text();
    } catch {
      // body unreadable: keep the status line
    }
    let tag: string | undefined;
    try {
      const body: unknown = JSON.parse(text);
      if (
        body &&
        typeof body === 'object' &&
        typeof (body as { error?: unknown }).error === 'string'
      ) {
        tag = (body as { error: string }).error;
      }
    } catch {
      // not JSON
    }
    return new ApiError(
      `API call failed: ${res.status} ${res.statusText} - ${text}`,
      res.status,
      tag,
      parseRetryAfter(res.headers.get('Retry-After')),
    );
  }

  static network(cause: unknown): ApiError {
    const detail = cause instanceof Error ? cause.message : String(cause);
    return new ApiError(`Connection failed: ${detail}`, 0, PlayerErrorTag.NetworkError);
  }
}

export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Cross-origin, cookie-less: the server decides from the Origin header only. */
const FETCH_DEFAULTS: RequestInit = { mode: 'cors', credentials: 'omit', cache: 'no-store' };

export async function request(url: string, init: RequestInit = {}): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, { ...FETCH_DEFAULTS, ...init });
  } catch (err) {
    if (isAbort(err)) throw err;
    throw ApiError.network(err);
  }
  if (!res.ok) throw await ApiError.fromResponse(res);
  return res;
}

export function isAbort(err: unknown): boolean {
  return (err as { name?: unknown } | null)?.name === 'AbortError';
}

/** The REST calls the player makes, against one API base ('' = this page's origin). */
export class PlayerApi {
  readonly base: string;
  constructor(base: string) {
    this.base = trimBase(base);
  }

  async getStation(locator: StationLocator, signal?: AbortSignal): Promise<Station> {
    const path =
      'id' in locator
        ? `/api/stations/${encodeURIComponent(locator.id)}`
        : `/api/users/${encodeURIComponent(locator.username)}/stations/${encodeURIComponent(locator.slug)}`;
    const res = await request(this.base + path, {
      signal,
      headers: { Accept: 'application/json' },
    });
    return (await res.json()) as Station;
  }

  /**
   * Whether this page's site may play the station (the owner's allowed domains), asked before Play
   * is offered. The join decides in the end: an unclear answer counts as yes.
   */
  async playable(stationId: string, signal?: AbortSignal): Promise<boolean> {
    const res = await request(
      `${this.base}/api/stations/${encodeURIComponent(stationId)}/playable`,
      { signal, headers: { Accept: 'application/json' } },
    );
    return ((await res.json()) as { allowed?: unknown }).allowed !== false;
  }

  async join(
    stationId: string,
    signal?: AbortSignal,
    access: JoinAccess = {},
  ): Promise<JoinStationResponse> {
    const res = await request(`${this.base}/api/joinStationAsReceiver`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ stationId, ...access }),
      signal,
    });
    const body = (await res.json()) as JoinStationResponse;
    // A relative WHEP URL is relative to the API, not to the embedding page.
    return { ...body, whepUrl: resolveUrl(body.whepUrl, this.base) };
  }
}

/** Resolves `url` against the API base, or the page when the base is the page's own origin. */
export function resolveUrl(url: string, base: string): string {
  try {
    return new URL(url, base ? base + '/' : globalThis.location?.href).href;
  } catch {
    return url;
  }
}
