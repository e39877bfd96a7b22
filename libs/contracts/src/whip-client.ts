/**
 * `@radiobroadcaster/contracts/whip-client`: the one WHIP/WHEP HTTP client (RFC 9725), shared by the web
 * studio (publishing), the embeddable player (listening) and the CLI (both). Signalling only: POST the
 * offer as application/sdp with a bearer token, read 201 + the answer, the session's `Location` (to
 * DELETE when leaving), its ETag and the ICE servers of its `Link` headers; DELETE the session. Each
 * caller passes its own `send` (its fetch with its own error type, timeouts and CORS/cookie policy),
 * so errors read as the rest of that client's. No zod and no other import: the player bundles it and
 * keeps its size budget.
 */

/** An RTCIceServer as browsers take it (the shape of contracts' `IceServer`). */
export interface WhipIceServer {
  urls: string | string[];
  username?: string;
  credential?: string;
}

/** The caller's fetch: resolves with the response (any status it lets through) or throws its own error. */
export type WhipSend = (url: string, init: RequestInit) => Promise<Response>;

export interface WhipCallOptions {
  /** Bearer token (the join token, stream token or session); none for an open endpoint. */
  token?: string;
  /** Defaults to `fetch`. */
  send?: WhipSend;
  /** Extra request settings (credentials, mode, keepalive, signal). */
  init?: RequestInit;
}

export interface SdpAnswer {
  /** HTTP status (201 for a created session). */
  status: number;
  /** The SDP answer, as the body. */
  answer: string;
  /** Absolute URL of the session resource (from `Location`), or null when the server sent none. */
  location: string | null;
  etag?: string;
  /** The ICE servers the answer offers (`Link: <turn:…>; rel="ice-server"`). */
  iceServers: WhipIceServer[];
}

/** Relative URLs ('/whip/…') resolve against the page in a browser; elsewhere they must be absolute. */
function absolute(url: string): URL {
  const base = (globalThis as { document?: { baseURI?: string } }).document?.baseURI;
  return new URL(url, base);
}

/** POSTs an SDP offer to a WHIP or WHEP endpoint and reads the answer. */
export async function postSdpOffer(
  url: string,
  offer: string,
  { token, send = fetch, init = {} }: WhipCallOptions = {},
): Promise<SdpAnswer> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/sdp',
    Accept: 'application/sdp',
  };
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await send(url, { ...init, method: 'POST', headers, body: offer });
  const answer = await res.text();
  const location = res.headers.get('Location');
  return {
    status: res.status,
    answer,
    location: location ? new URL(location, absolute(url)).href : null,
    etag: res.headers.get('ETag') ?? undefined,
    iceServers: iceServersFromLinks(res.headers.get('Link')),
  };
}

/** DELETEs a WHIP/WHEP session (`location` from postSdpOffer). */
export async function deleteSdpSession(
  location: string,
  { token, send = fetch, init = {} }: WhipCallOptions = {},
): Promise<void> {
  const headers: Record<string, string> = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  await send(location, { ...init, method: 'DELETE', headers });
}

/** One `<uri>; param; param=token; param="quoted"` value of a `Link` header (RFC 8288). */
const LINK_VALUE = /<([^>]*)>((?:\s*;\s*[^\s;,=]+(?:\s*=\s*(?:"(?:[^"\\]|\\.)*"|[^\s;,"]*))?)*)/g;
const LINK_PARAM = /;\s*([^\s;,=]+)(?:\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;,"]*)))?/g;

/**
 * The ICE servers a WHIP/WHEP answer offers (RFC 9725): its `Link` values with `rel="ice-server"`,
 * `username` and `credential` as given (quoted or not). Other links, and URLs other than
 * `stun:`, `turn:` and `turns:`, are left out. `header` is the field as `fetch` reads it (several
 * `Link` headers joined by ", "), or null.
 */
export function iceServersFromLinks(header: string | null): WhipIceServer[] {
  const servers: WhipIceServer[] = [];
  for (const [, url, params] of (header ?? '').matchAll(LINK_VALUE)) {
    const values = new Map<string, string>();
    for (const [, key, quoted, token] of params!.matchAll(LINK_PARAM)) {
      const name = key!.toLowerCase();
      if (!values.has(name)) values.set(name, quoted?.replace(/\\(.)/g, '$1') ?? token ?? '');
    }
    const rels = (values.get('rel') ?? '').toLowerCase().split(/\s+/);
    if (!rels.includes('ice-server') || !/^(stun|turns?):/i.test(url!.trim())) continue;
    const server: WhipIceServer = { urls: url!.trim() };
    if (values.has('username')) server.username = values.get('username');
    if (values.has('credential')) server.credential = values.get('credential');
    servers.push(server);
  }
  return servers;
}

/**
 * Sets Opus parameters in an offer: `params` go into the Opus `a=fmtp` line (replacing those values;
 * the line is added when the offerer wrote none). Listeners ask for `{ stereo: '1' }` (they decode two
 * channels); the studio also says it sends stereo at 128 kb/s. With `replace: false` a value the offer
 * already has stays as it is.
 */
export function setOpusParams(
  sdp: string,
  params: Record<string, string>,
  { replace = true }: { replace?: boolean } = {},
): string {
  const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
  const lines = sdp.split(eol);
  const rtpmap = lines.find((l) => /^a=rtpmap:\d+ opus\/48000/i.test(l));
  if (!rtpmap) return sdp;
  const pt = /^a=rtpmap:(\d+)/.exec(rtpmap)![1];
  const fmtpIndex = lines.findIndex((l) => l.startsWith(`a=fmtp:${pt} `));
  const map = new Map<string, string>();
  let head = `a=fmtp:${pt}`;
  if (fmtpIndex >= 0) {
    const [h, rest = ''] = lines[fmtpIndex]!.split(/ (.*)/s);
    head = h!;
    for (const kv of rest.split(';').filter((s) => s.trim())) {
      const [k, v = ''] = kv.split('=');
      map.set(k!.trim(), v.trim());
    }
  }
  for (const [k, v] of Object.entries(params)) if (replace || !map.has(k)) map.set(k, v);
  const line = `${head} ${[...map].map(([k, v]) => `${k}=${v}`).join(';')}`;
  if (fmtpIndex >= 0) lines[fmtpIndex] = line;
  else lines.splice(lines.indexOf(rtpmap) + 1, 0, line);
  return lines.join(eol);
}

/**
 * Asks for retransmissions of lost Opus packets (RFC 4585 generic NACK, `a=rtcp-fb:<pt> nack`), which
 * browsers leave out of their audio offers. With it in the offer, Chromium's audio receiver sends NACKs
 * for the packets a lossy link dropped and plays the SFU's retransmissions (listeners), and its audio
 * sender keeps a history to answer the SFU's NACKs (the studio). Offers that already ask are returned
 * as they are.
 */
export function addOpusNack(sdp: string): string {
  const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
  const lines = sdp.split(eol);
  const rtpmap = lines.find((l) => /^a=rtpmap:\d+ opus\/48000/i.test(l));
  if (!rtpmap) return sdp;
  const pt = /^a=rtpmap:(\d+)/.exec(rtpmap)![1];
  if (lines.some((l) => l.trim() === `a=rtcp-fb:${pt} nack`)) return sdp;
  // after the codec's own lines (rtpmap, fmtp, rtcp-fb), where browsers write theirs
  let at = lines.indexOf(rtpmap) + 1;
  while (
    at < lines.length &&
    (lines[at]!.startsWith(`a=fmtp:${pt} `) || lines[at]!.startsWith(`a=rtcp-fb:${pt} `))
  )
    at++;
  lines.splice(at, 0, `a=rtcp-fb:${pt} nack`);
  return lines.join(eol);
}
