import { z } from 'zod';
import { StationId } from './station.js';

/** `POST /api/joinStationAsReceiver`. */
export const JoinStationRequest = z.strictObject({
  stationId: StationId,
  /** A private station's invite token (from its invite link). */
  invite: z.string().min(1).max(2048).optional(),
  /** A private station's password. */
  password: z.string().min(1).max(200).optional(),
  /** A listening grant from an earlier join: the same listener comes back. */
  grant: z.string().min(1).max(2048).optional(),
});
export type JoinStationRequest = z.infer<typeof JoinStationRequest>;

/** An RTCIceServer as browsers take it (STUN, or TURN with its credentials). */
export const IceServer = z.object({
  urls: z.union([z.string(), z.array(z.string())]),
  username: z.string().optional(),
  credential: z.string().optional(),
});
export type IceServer = z.infer<typeof IceServer>;

/** One `<uri>; param; param=token; param="quoted"` value of a `Link` header (RFC 8288). */
const LINK_VALUE = /<([^>]*)>((?:\s*;\s*[^\s;,=]+(?:\s*=\s*(?:"(?:[^"\\]|\\.)*"|[^\s;,"]*))?)*)/g;
const LINK_PARAM = /;\s*([^\s;,=]+)(?:\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;,"]*)))?/g;

/**
 * The ICE servers a WHIP/WHEP answer offers (RFC 9725): its `Link` values with `rel="ice-server"`,
 * `username` and `credential` as given (quoted or not). Other links, and URLs other than
 * `stun:`, `turn:` and `turns:`, are left out. `header` is the field as `fetch` reads it (several
 * `Link` headers joined by ", "), or null.
 */
export function iceServersFromLinks(header: string | null): IceServer[] {
  const servers: IceServer[] = [];
  for (const [, url, params] of (header ?? '').matchAll(LINK_VALUE)) {
    const values = new Map<string, string>();
    for (const [, key, quoted, token] of params!.matchAll(LINK_PARAM)) {
      const name = key!.toLowerCase();
      if (!values.has(name)) values.set(name, quoted?.replace(/\\(.)/g, '$1') ?? token ?? '');
    }
    const rels = (values.get('rel') ?? '').toLowerCase().split(/\s+/);
    if (!rels.includes('ice-server') || !/^(stun|turns?):/i.test(url!.trim())) continue;
    const server: IceServer = { urls: url!.trim() };
    if (values.has('username')) server.username = values.get('username');
    if (values.has('credential')) server.credential = values.get('credential');
    servers.push(server);
  }
  return servers;
}

/**
 * What a listener needs to finish the WebRTC session: POST an SDP offer to `whepUrl`
 * (Content-Type application/sdp, `Authorization: Bearer {token}`), get 201 + the answer and a
 * `Location` to DELETE when leaving.
 */
export const JoinStationResponse = z.object({
  stationId: StationId,
  whepUrl: z.string().url(),
  token: z.string().min(1),
  expiresAt: z.string().datetime(),
  iceServers: z.array(IceServer),
  /**
   * The station's HTTP streams for this listener (the player's fallback when WebRTC cannot
   * connect), signed: they play until `expiresAt` (the token's lifetime) even when the owner keeps
   * the stream URL private. A stream that started keeps playing past it.
   */
  listen: z.object({ ogg: z.string().url(), mp3: z.string().url() }),
  /** A private station's listening grant for this listener (keep it; send it as `grant` to rejoin). */
  grant: z.object({ token: z.string(), expiresAt: z.string(), via: z.string() }).optional(),
});
export type JoinStationResponse = z.infer<typeof JoinStationResponse>;

/** `POST /api/stations/token/refresh`. */
export const TokenRefreshRequest = z.strictObject({ stationId: StationId });
export type TokenRefreshRequest = z.infer<typeof TokenRefreshRequest>;
