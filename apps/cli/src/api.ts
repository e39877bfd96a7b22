import {
  deleteSdpSession,
  postSdpOffer as postOffer,
} from '@radiobroadcaster/contracts/whip-client';
/** HTTP client for the Radio Broadcaster API and the WHIP/WHEP endpoints. */
import {
  JoinStationResponse,
  type ErrorBody,
  type SignInResponse,
  type Station,
} from '@radiobroadcaster/contracts';

export const DEFAULT_SERVER = 'http://127.0.0.1:3000';

/** A non-2xx answer: HTTP status plus the `{error, message}` body when there is one. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly tag: string | undefined,
    message: string,
    readonly url: string,
    readonly body?: string,
  ) {
    super(message);
  }
}

/** The server could not be reached at all. */
export class NetworkError extends Error {
  override name = 'NetworkError';
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(`cannot reach ${url}: ${describeCause(cause)}`, { cause });
  }
}

function describeCause(e: unknown): string {
  const err = e as { cause?: { code?: string; message?: string }; message?: string };
  return err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(e);
}

async function errorFrom(res: Response, url: string): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  let tag: string | undefined;
  let message = `${res.status} ${res.statusText}`;
  try {
    const body = JSON.parse(text) as Partial<ErrorBody>;
    if (body && typeof body === 'object') {
      if (typeof body.error === 'string') tag = body.error;
      if (typeof body.message === 'string') message = body.message;
    }
  } catch {
    if (text) message = `${message}: ${text.slice(0, 200)}`;
  }
  return new ApiError(res.status, tag, message, url, text);
}

export async function request(
  url: string,
  init: RequestInit & { timeoutMs?: number } = {},
): Promise<Response> {
  const { timeoutMs = 15000, ...rest } = init;
  let res: Response;
  try {
    res = await fetch(url, { ...rest, signal: rest.signal ?? AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    throw new NetworkError(url, e);
  }
  if (!res.ok) throw await errorFrom(res, url);
  return res;
}

export interface SdpExchange {
  answer: string;
  /** Absolute URL of the session resource (from `Location`). */
  location: string;
  etag?: string;
}

/** POSTs an SDP offer (WHIP or WHEP) and returns the answer and the absolute session URL. */
export async function postSdpOffer(
  url: string,
  offer: string,
  token?: string,
): Promise<SdpExchange> {
  const res = await postOffer(url, offer, { token, send: request });
  const { status, answer } = res;
  if (status !== 201)
    throw new ApiError(status, undefined, `expected 201 Created, got ${status}`, url, answer);
  if (!res.location)
    throw new ApiError(status, undefined, 'response has no Location header', url, answer);
  if (!answer.startsWith('v='))
    throw new ApiError(status, undefined, 'response body is not an SDP answer', url, answer);
  return { answer, location: res.location, etag: res.etag };
}

/** DELETEs a WHIP/WHEP session. */
export async function deleteSession(location: string, token?: string): Promise<void> {
  await deleteSdpSession(location, {
    token,
    send: (u, init) => request(u, { ...init, timeoutMs: 5000 }),
  });
}

/** "user/slug" → parts (also accepts a full player URL such as http://host/user/slug). */
export function parseStationAddress(address: string): { username: string; slug: string } {
  let path = address.trim();
  if (/^https?:\/\//.test(path)) path = new URL(path).pathname;
  const parts = path.replace(/^\/+|\/+$/g, '').split('/');
  if (parts.length !== 2 || !parts[0] || !parts[1]) {
    throw new RangeError(`station must be "username/slug", got "${address}"`);
  }
  return { username: parts[0], slug: parts[1] };
}

export class ApiClient {
  readonly server: string;
  bearer?: string;
  constructor(server: string = DEFAULT_SERVER, bearer?: string) {
    this.server = server.replace(/\/+$/, '');
    this.bearer = bearer;
  }
  url(path: string): string {
    return `${this.server}${path}`;
  }
  private headers(json: boolean, bearer = this.bearer): Record<string, string> {
    const h: Record<string, string> = { Accept: 'application/json' };
    if (json) h['Content-Type'] = 'application/json';
    if (bearer) h.Authorization = `Bearer ${bearer}`;
    return h;
  }
  async getJson<T>(path: string): Promise<T> {
    const res = await request(this.url(path), { headers: this.headers(false) });
    return (await res.json()) as T;
  }
  async postJson<T>(path: string, body: unknown, bearer = this.bearer): Promise<T> {
    const res = await request(this.url(path), {
      method: 'POST',
      headers: this.headers(true, bearer),
      body: JSON.stringify(body),
    });
    return (await res.json()) as T;
  }
  /** Signs in with email and password; keeps the bearer token for later calls. */
  async signIn(email: string, password: string): Promise<SignInResponse> {
    const res = await this.postJson<SignInResponse>(
      '/api/auth/sign-in/email',
      { email, password },
      undefined,
    );
    if (!res.token)
      throw new ApiError(
        200,
        undefined,
        'sign-in answer has no token',
        this.url('/api/auth/sign-in/email'),
      );
    this.bearer = res.token;
    return res;
  }
  getStation(username: string, slug: string): Promise<Station> {
    return this.getJson<Station>(
      `/api/users/${encodeURIComponent(username)}/stations/${encodeURIComponent(slug)}`,
    );
  }
  getStationByAddress(address: string): Promise<Station> {
    const { username, slug } = parseStationAddress(address);
    return this.getStation(username, slug);
  }
  /** A fresh station (publishing) token; needs the owner's bearer. */
  refreshStationToken(stationId: string): Promise<{ token: string; expiresAt: string }> {
    return this.postJson('/api/stations/token/refresh', { stationId });
  }
  async joinStationAsReceiver(stationId: string): Promise<JoinStationResponse> {
    // Checked: a server of another version fails here with a clear reason, not later in WebRTC.
    return JoinStationResponse.parse(
      await this.postJson<unknown>('/api/joinStationAsReceiver', { stationId }),
    );
  }
  whipUrl(stationId: string): string {
    return this.url(`/whip/${encodeURIComponent(stationId)}`);
  }
  whepUrl(stationId: string): string {
    return this.url(`/whep/${encodeURIComponent(stationId)}`);
  }
  /** Resolves a WHEP URL from a join answer (it may be relative). */
  resolve(url: string): string {
    return new URL(url, this.server + '/').toString();
  }
}
