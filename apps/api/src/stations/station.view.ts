import {
  type EventName,
  imagePath,
  type Station,
  type StationUpdatePush,
} from '@radiobroadcaster/contracts';
import type { StationEntity } from './station.entity.js';

/** Events after which a station as clients read it may be different (its deletion aside). */
export const STATION_CHANGES = [
  'station.updated',
  'station.live',
  'station.offline',
  'station.ended',
  'station.reconnecting',
  'station.nowPlaying',
] as const satisfies readonly EventName[];

/** The station as clients read it: exactly these fields, so no column leaks into a response. */
export function toStation(e: StationEntity, viewerCount: number): Station {
  return {
    id: e.id,
    name: e.name,
    slug: e.slug,
    description: e.description,
    broadcasterId: e.broadcasterId,
    broadcaster: {
      id: e.broadcaster.id,
      username: e.broadcaster.username,
      name: e.broadcaster.name,
      avatarUrl: e.broadcaster.image,
    },
    isActive: e.isActive,
    status: e.status,
    viewerCount,
    nowPlaying: e.nowPlayingTrack
      ? { track: e.nowPlayingTrack, artist: e.nowPlayingArtist, album: e.nowPlayingAlbum }
      : null,
    createdAt: e.createdAt.toISOString(),
    lastActiveAt: e.lastActiveAt?.toISOString() ?? null,
    coverUrl: e.coverImageId ? imagePath(e.coverImageId) : null,
    schedule: e.schedule,
    visibility: e.visibility,
  };
}

export function toUpdatePush(s: Station): StationUpdatePush {
  return {
    id: s.id,
    status: s.status,
    isActive: s.isActive,
    viewerCount: s.viewerCount,
    nowPlaying: s.nowPlaying,
    lastActiveAt: s.lastActiveAt,
  };
}

/** The same station with another count; keeps the field order of the response. */
export function withViewerCount(s: Station, viewerCount: number): Station {
  return s.viewerCount === viewerCount ? s : { ...s, viewerCount };
}
