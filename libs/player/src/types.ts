/**
 * Wire shapes the player reads. They mirror `@radiobroadcaster/contracts` (checked by the compiler in
 * `test/wire-types`, run by `types.spec.ts`) but are declared here so the published package has no dependency at all.
 */

export type StationStatus = 'live' | 'reconnecting' | 'offline' | 'ended';

export interface NowPlaying {
  track: string;
  artist: string | null;
  album: string | null;
}

/** The station as `GET /api/stations/{id}` and `GET /api/users/{username}/stations/{slug}` return it. */
export interface Station {
  id: string;
  name: string;
  slug: string;
  description: string;
  broadcasterId: string;
  broadcaster: { id: string; username: string; name: string; avatarUrl: string | null };
  isActive: boolean;
  status: StationStatus;
  viewerCount: number;
  nowPlaying: NowPlaying | null;
  createdAt: string;
  lastActiveAt: string | null;
  /** Square cover art, or null. */
  coverUrl: string | null;
  schedule: string;
  /** Who may listen (absent from older servers: public). */
  visibility?: 'public' | 'unlisted' | 'private';
}

export interface IceServer {
  urls: string | string[];
  username?: string;
  credential?: string;
}

/** `POST /api/joinStationAsReceiver` → what finishes the WHEP exchange. */
export interface JoinStationResponse {
  stationId: string;
  whepUrl: string;
  token: string;
  expiresAt: string;
  iceServers: IceServer[];
  /** Signed HTTP stream URLs for the fallback; they work even when the stream URL is private. */
  listen: { ogg: string; mp3: string };
  /** A private station's listening grant for this listener (sent again as `grant` to rejoin). */
  grant?: { token: string; expiresAt: string; via: string };
}

/** What a private station admits by: an invite link's token, its password, an earlier grant. */
export interface JoinAccess {
  invite?: string;
  password?: string;
  grant?: string;
}

/** `username/station-slug`, parsed. */
export interface StationRef {
  username: string;
  slug: string;
}

/** Where a client finds its station: by public address or by id. */
export type StationLocator = StationRef | { id: string };

/**
 * The listening state.
 * - `idle`: not playing (station live or not yet known).
 * - `connecting`: joining, negotiating, or reconnecting after a drop.
 * - `live`: audio is flowing to the output.
 * - `offline`: the station is not broadcasting; playback resumes by itself when it returns.
 * - `error`: the station cannot be played (not found, malformed address, no WebRTC); see `error`.
 * - `blocked`: the browser refused to start audio without a user gesture ('Click to play').
 * - `not-allowed`: the station owner does not allow playback on this site (DOMAIN_NOT_ALLOWED).
 * - `private`: a private station that needs an invite link or its password (`setAccess`), or whose
 *   access was revoked; `error` says which.
 */
export type PlayerState =
  'idle' | 'connecting' | 'live' | 'offline' | 'error' | 'blocked' | 'not-allowed' | 'private';
