import { z } from 'zod';
import { StationId } from './station.js';

/** `POST /api/joinStationAsReceiver`. */
export const JoinStationRequest = z.strictObject({ stationId: StationId });
export type JoinStationRequest = z.infer<typeof JoinStationRequest>;

export interface IceServer {
  urls: string | string[];
  username?: string;
  credential?: string;
}

/**
 * What a listener needs to finish the WebRTC session: POST an SDP offer to `whepUrl`
 * (Content-Type application/sdp, `Authorization: Bearer {token}`), get 201 + the answer and a
 * `Location` to DELETE when leaving.
 */
export interface JoinStationResponse {
  stationId: string;
  whepUrl: string;
  token: string;
  expiresAt: string;
  iceServers: IceServer[];
}

/** `POST /api/stations/token/refresh`. */
export const TokenRefreshRequest = z.strictObject({ stationId: StationId });
export type TokenRefreshRequest = z.infer<typeof TokenRefreshRequest>;
