import { Inject, Injectable } from '@nestjs/common';
import {
  type CreateStationRequest,
  type NowPlayingRequest,
  type Station,
  type StationStatus,
  type UpdateStationRequest,
  ErrorTag,
} from '@radiobroadcaster/contracts';
import { AppError } from '../common/app-error.js';
import { EventBus } from '../events/event-bus.js';
import type { StationEntity } from './station.entity.js';
import { toStation } from './station.view.js';
import { PresenceService } from './presence.service.js';
import { SlugTakenError, StationsRepository } from './stations.repository.js';
import { FALLBACK_SLUG, numberedSlug, slugify } from './slug.js';

@Injectable()
export class StationsService {
  constructor(
    @Inject(StationsRepository) private readonly repo: StationsRepository,
    @Inject(PresenceService) private readonly presence: PresenceService,
    @Inject(EventBus) private readonly bus: EventBus,
  ) {}

  view(e: StationEntity): Station {
    return toStation(e, this.presence.viewerCount(e.id));
  }

  async get(id: string): Promise<Station> {
    return this.view(await this.entity(id));
  }

  async entity(id: string): Promise<StationEntity> {
    const station = await this.repo.findById(id);
    if (!station) throw AppError.stationNotFound();
    return station;
  }

  /** The station, checked to belong to `userId` (404 before 403, so ids don't leak ownership). */
  async owned(id: string, userId: string): Promise<StationEntity> {
    const station = await this.entity(id);
    if (station.broadcasterId !== userId) throw AppError.forbidden('You do not own this station');
    return station;
  }

  /** A thing of a station (relay, webhook, recording): 404 `{what} not found`, else checked as {@link owned}. */
  async ownedItem<T extends { stationId: string }>(
    item: T | null,
    what: string,
    userId: string,
  ): Promise<T> {
    if (!item) throw AppError.notFound(`${what} not found`);
    await this.owned(item.stationId, userId);
    return item;
  }

  /** The station at the public address `username/slug`, or null. */
  async byAddress(username: string, slug: string): Promise<StationEntity | null> {
    const user = await this.repo.findUserByUsername(username);
    return user ? this.repo.findBySlug(user.id, slug.toLowerCase()) : null;
  }

  liveIds(): Promise<string[]> {
    return this.repo.liveIds();
  }

  /**
   * A slug given or derived from the name must be free (409); a name with nothing to derive a
   * slug from gets 'station', numbered when taken.
   */
  async create(userId: string, req: CreateStationRequest): Promise<Station> {
    const derived = req.slug ?? slugify(req.name);
    const base = derived || FALLBACK_SLUG;
    for (let n = 1; ; n++) {
      const slug = n === 1 ? base : numberedSlug(base, n);
      try {
        const station = await this.repo.insert({
          broadcasterId: userId,
          name: req.name,
          slug,
          description: req.description ?? '',
        });
        await this.bus.publish('station.created', { stationId: station.id, broadcasterId: userId });
        return this.view(station);
      } catch (err) {
        if (!(err instanceof SlugTakenError)) throw err;
        if (derived || n >= 100) throw slugConflict(slug);
      }
    }
  }

  async update(userId: string, req: UpdateStationRequest): Promise<Station> {
    const before = await this.owned(req.stationId, userId);
    const { stationId, ...changes } = req;
    if (Object.keys(changes).length > 0) {
      try {
        await this.repo.update(stationId, changes);
      } catch (err) {
        if (err instanceof SlugTakenError) throw slugConflict(changes.slug ?? '');
        throw err;
      }
      await this.bus.publish('station.updated', { stationId });
      if (changes.visibility && changes.visibility !== before.visibility)
        await this.bus.publish('station.visibilityChanged', {
          stationId,
          visibility: changes.visibility,
        });
    }
    return this.get(stationId);
  }

  /** Shows another cover image (null: none) on the station's pages. */
  async setCover(stationId: string, coverImageId: string | null): Promise<void> {
    await this.repo.update(stationId, { coverImageId });
    await this.bus.publish('station.updated', { stationId });
  }

  async setNowPlaying(userId: string, req: NowPlayingRequest): Promise<Station> {
    await this.owned(req.stationId, userId);
    const nowPlaying = { track: req.track, artist: req.artist || null, album: req.album || null };
    await this.repo.update(req.stationId, {
      nowPlayingTrack: nowPlaying.track,
      nowPlayingArtist: nowPlaying.artist,
      nowPlayingAlbum: nowPlaying.album,
    });
    await this.bus.publish('station.nowPlaying', { stationId: req.stationId, nowPlaying });
    return this.get(req.stationId);
  }

  async clearNowPlaying(userId: string, stationId: string): Promise<Station> {
    await this.owned(stationId, userId);
    await this.clearNowPlayingOf(stationId);
    return this.get(stationId);
  }

  private async clearNowPlayingOf(stationId: string): Promise<void> {
    await this.repo.update(stationId, {
      nowPlayingTrack: null,
      nowPlayingArtist: null,
      nowPlayingAlbum: null,
    });
    await this.bus.publish('station.nowPlaying', { stationId, nowPlaying: null });
  }

  /**
   * Ends the broadcast: the media layer disconnects everyone on `station.ended` and now playing is
   * cleared. The station stays and can go live again.
   */
  async end(userId: string, stationId: string): Promise<Station> {
    await this.owned(stationId, userId);
    await this.clearNowPlayingOf(stationId);
    return this.transition(stationId, 'ended', false, false);
  }

  /** Deletes the station for good: off the air first, then its row (the slug becomes free). */
  async remove(userId: string, stationId: string): Promise<void> {
    const station = await this.owned(stationId, userId);
    if (station.isActive) await this.transition(stationId, 'ended', false, false);
    await this.repo.delete(stationId);
    await this.bus.publish('station.deleted', { stationId, broadcasterId: userId });
  }

  /** Lifecycle transitions driven by the media layer (live on first media, offline after grace). */
  async transition(
    stationId: string,
    status: StationStatus,
    isActive: boolean,
    touch: boolean,
  ): Promise<Station> {
    await this.repo.setState(stationId, status, isActive, touch);
    const station = await this.get(stationId);
    const event = { stationId, status, isActive, lastActiveAt: station.lastActiveAt };
    switch (status) {
      case 'live':
        await this.bus.publish('station.live', event);
        break;
      case 'reconnecting':
        await this.bus.publish('station.reconnecting', event);
        break;
      case 'offline':
        await this.bus.publish('station.offline', event);
        break;
      case 'ended':
        await this.bus.publish('station.ended', event);
        break;
    }
    return station;
  }
}

/** A 409 that names the slug field, so forms can show it next to the field. */
function slugConflict(slug: string): AppError {
  const message = `You already have a station with the slug '${slug}'`;
  return new AppError(ErrorTag.Conflict, message, [
    { path: 'slug', message: `You already have a station at this address. Choose another slug.` },
  ]);
}
