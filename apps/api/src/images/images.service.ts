import { Inject, Injectable } from '@nestjs/common';
import { imagePath, type ImageKind, type Station } from '@radiobroadcaster/contracts';
import { createHash } from 'node:crypto';
import { AppError } from '../common/app-error.js';
import { EventBus } from '../events/event-bus.js';
import { StationsService } from '../stations/stations.service.js';
import { UsersRepository } from '../users/users.repository.js';
import type { ImageEntity } from './image.entity.js';
import { ImagesRepository } from './images.repository.js';
import { processUpload, renderStationCard } from './image-processing.js';

const OWN_IMAGE = /^\/images\/([0-9a-f-]{36})\.webp$/;
/** Rendered social previews kept in memory (about 60 KB each). */
const CARD_CACHE_MAX = 200;

/** Cover art, avatars and the social preview of a station. */
@Injectable()
export class ImagesService {
  private readonly cards = new Map<string, Buffer>();

  constructor(
    @Inject(ImagesRepository) private readonly images: ImagesRepository,
    @Inject(StationsService) private readonly stations: StationsService,
    @Inject(UsersRepository) private readonly users: UsersRepository,
    @Inject(EventBus) private readonly bus: EventBus,
  ) {}

  async image(id: string): Promise<ImageEntity> {
    const image = await this.images.find(id);
    if (!image) throw AppError.notFound('No such image');
    return image;
  }

  /** Replaces the station's cover art with `upload` (resized); the old one is deleted. */
  async setCover(userId: string, stationId: string, upload: Buffer): Promise<Station> {
    const station = await this.stations.owned(stationId, userId);
    await this.stations.setCover(stationId, await this.store(userId, 'cover', upload));
    if (station.coverImageId) await this.images.delete(station.coverImageId);
    return this.stations.get(stationId);
  }

  async removeCover(userId: string, stationId: string): Promise<Station> {
    const station = await this.stations.owned(stationId, userId);
    if (station.coverImageId) {
      await this.stations.setCover(stationId, null);
      await this.images.delete(station.coverImageId);
    }
    return this.stations.get(stationId);
  }

  /** The broadcaster's picture, shown with their stations; null removes it. */
  async setAvatar(userId: string, upload: Buffer | null): Promise<string | null> {
    const user = await this.users.findById(userId);
    if (!user) throw AppError.unauthorized();
    const url = upload ? imagePath(await this.store(userId, 'avatar', upload)) : null;
    await this.users.update(userId, { image: url });
    const old = user.image?.match(OWN_IMAGE)?.[1];
    if (old) await this.images.delete(old);
    await this.bus.publish('user.updated', { userId });
    return url;
  }

  /**
   * The station's 1200×630 preview and a version that changes with what it shows (name, owner,
   * cover), for a long-cached URL.
   */
  async stationCard(stationId: string): Promise<{ png: Buffer; version: string }> {
    const station = await this.stations.entity(stationId);
    const version = cardVersion(station.name, station.broadcaster.username, station.coverImageId);
    const key = `${stationId}:${version}`;
    let png = this.cards.get(key);
    if (!png) {
      const cover = station.coverImageId ? await this.images.find(station.coverImageId) : null;
      png = await renderStationCard({
        name: station.name,
        username: station.broadcaster.username,
        cover: cover?.bytes ?? null,
      });
      if (this.cards.size >= CARD_CACHE_MAX) this.cards.delete(this.cards.keys().next().value!);
      this.cards.set(key, png);
    }
    return { png, version };
  }

  private async store(userId: string, kind: ImageKind, upload: Buffer): Promise<string> {
    return this.images.insert(userId, kind, await processUpload(upload, kind));
  }
}

export function cardVersion(name: string, username: string, coverId: string | null): string {
  return createHash('sha256')
    .update(`${name}\n${username}\n${coverId ?? ''}`)
    .digest('base64url')
    .slice(0, 10);
}

/** The version of a station's preview as the pages' head tags name it. */
export const stationCardVersion = (s: Pick<Station, 'name' | 'broadcaster' | 'coverUrl'>) =>
  cardVersion(s.name, s.broadcaster.username, s.coverUrl?.match(OWN_IMAGE)?.[1] ?? null);
