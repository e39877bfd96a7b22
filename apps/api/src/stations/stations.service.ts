import { Inject, Injectable } from '@nestjs/common';
import {
  type CreateStationRequest,
  type NowPlayingRequest,
  type Station,
  type StationStatus,
  type UpdateStationRequest,
  type UserStationsResponse,
  ErrorTag,
} from '@radiobroadcaster/contracts';
import { AppError } from '../common/app-error.js';
import { EventBus } from '../events/event-bus.js';
import type { StationEntity } from './station.entity.js';
import { toStation } from './station.view.js';
import { PresenceService } from './presence.service.js';
import { SlugTakenError, StationsRepository } from './stations.repository.js';
import { slugify } from './slug.js';

const DISCOVER_LIMIT = 50;

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

  async discover(): Promise<Station[]> {
    return (await this.repo.discover(DISCOVER_LIMIT)).map((s) => this.view(s));
  }

  async byUsername(username: string): Promise<UserStationsResponse> {
    const user = await this.repo.findUserByUsername(username);
    if (!user) throw new AppError(ErrorTag.UserNotFound, 'User not found');
    const stations = await this.repo.findByBroadcaster(user.id);
    return {
      user: { id: user.id, username: user.username, name: user.name },
      stations: stations.map((s) => this.view(s)),
    };
  }

  async byUsernameAndSlug(username: string, slug: string): Promise<Station> {
    const user = await this.repo.findUserByUsername(username);
    const station = user ? await this.repo.findBySlug(user.id, slug.toLowerCase()) : null;
    if (!station) throw AppError.stationNotFound();
    return this.view(station);
  }

  async create(userId: string, req: CreateStationRequest): Promise<Station> {
    const slug = req.slug ?? slugify(req.name);
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
      if (err instanceof SlugTakenError) throw slugConflict(slug);
      throw err;
    }
  }

  async update(userId: string, req: UpdateStationRequest): Promise<Station> {
    await this.owned(req.stationId, userId);
    const { stationId, ...changes } = req;
    if (Object.keys(changes).length > 0) {
      try {
        await this.repo.update(stationId, changes);
      } catch (err) {
        if (err instanceof SlugTakenError) throw slugConflict(changes.slug ?? '');
        throw err;
      }
      await this.bus.publish('station.updated', { stationId });
    }
    return this.get(stationId);
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
    await this.repo.update(stationId, {
      nowPlayingTrack: null,
      nowPlayingArtist: null,
      nowPlayingAlbum: null,
    });
    await this.bus.publish('station.nowPlaying', { stationId, nowPlaying: null });
    return this.get(stationId);
  }

  /** Ends the broadcast: the media layer disconnects everyone on `station.ended`. */
  async end(userId: string, stationId: string): Promise<Station> {
    await this.owned(stationId, userId);
    return this.transition(stationId, 'ended', false, false);
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

function slugConflict(slug: string): AppError {
  return AppError.conflict(`You already have a station with the slug '${slug}'`);
}
