import type { Station, StationUpdatePush } from '@radiobroadcaster/contracts';
import type { StationEntity } from './station.entity.js';

/** The spec's station shape (§3), exactly these fields. */
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
    },
    isActive: e.isActive,
    status: e.status,
    viewerCount,
    nowPlaying: e.nowPlayingTrack
      ? { track: e.nowPlayingTrack, artist: e.nowPlayingArtist, album: e.nowPlayingAlbum }
      : null,
    createdAt: e.createdAt.toISOString(),
    lastActiveAt: e.lastActiveAt?.toISOString() ?? null,
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
