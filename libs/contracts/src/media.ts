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

/** The ICE servers of a WHIP/WHEP answer's `Link` headers (see whip-client.ts, the one WHIP/WHEP client). */
export { iceServersFromLinks } from './whip-client.js';

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
