import type { Relay } from './radio.js';
import type { NowPlaying, StationStatus } from './station.js';

/** The internal event bus: one typed map, Redis pub/sub or in-process. */
export interface StationStateEvent {
  stationId: string;
  status: StationStatus;
  isActive: boolean;
  lastActiveAt: string | null;
}

export interface EventMap {
  'station.created': { stationId: string; broadcasterId: string };
  'station.updated': { stationId: string };
  'station.live': StationStateEvent;
  'station.offline': StationStateEvent;
  'station.ended': StationStateEvent;
  /** The publisher dropped; listeners stay connected for the grace period, waiting for it. */
  'station.reconnecting': StationStateEvent;
  /** The owner deleted the station: its listeners are told it is gone. */
  'station.deleted': { stationId: string; broadcasterId: string };
  'station.nowPlaying': { stationId: string; nowPlaying: NowPlaying | null };
  'station.listeners': { stationId: string; viewerCount: number };
  /** HTTP stream listeners of a station on one API node (`node`); presence adds them up. */
  'station.httpListeners': { stationId: string; node: string; count: number };
  /** A relay was added, changed or removed: the node pushing its station starts it over. */
  'relay.changed': { stationId: string; relayId: string };
  /**
   * The status of a relay the node pushing its station sends (on change, and every few seconds while
   * it runs), so every node shows it; `null`: it stopped.
   */
  'relay.status': { stationId: string; relayId: string; status: Relay['status'] | null };
  /** The owner rotated the stream key: sources that authenticated with the old one are cut off. */
  'station.streamKeyRotated': { stationId: string };
  /** The broadcaster's name or username changed: every station of theirs shows it. */
  'user.updated': { userId: string };
  /**
   * Grants of a private station were revoked (an invite, the password changed, a listener-list
   * account removed, `gids`; or every invite, `all`): every node ends the listeners they admitted.
   */
  'station.accessRevoked': { stationId: string; gids: string[]; allInvites?: boolean };
  /** A station's visibility changed; to private: listeners without a grant are ended after a notice. */
  'station.visibilityChanged': { stationId: string; visibility: 'public' | 'unlisted' | 'private' };
  /** The account and, by cascade, all its stations are gone. */
  'user.deleted': { userId: string };
}
export type EventName = keyof EventMap;

/** What the socket.io gateway sends to browsers. */
export const SOCKET_EVENTS = {
  join: 'station:join',
  leave: 'station:leave',
  update: 'station:update',
  /** `{ id }`: the station was deleted. */
  deleted: 'station:deleted',
  /** `StationAccessPush`: the station became private; listeners without a grant end soon. */
  access: 'station:access',
} as const;
export const stationRoom = (stationId: string) => `station:${stationId}`;
