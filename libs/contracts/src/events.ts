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
  'station.nowPlaying': { stationId: string; nowPlaying: NowPlaying | null };
  'station.listeners': { stationId: string; viewerCount: number };
}
export type EventName = keyof EventMap;

/** What the socket.io gateway sends to browsers. */
export const SOCKET_EVENTS = {
  join: 'station:join',
  leave: 'station:leave',
  update: 'station:update',
} as const;
export const stationRoom = (stationId: string) => `station:${stationId}`;
