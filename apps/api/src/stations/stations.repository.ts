import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { StationStatus } from '@radiobroadcaster/contracts';
import { QueryFailedError, type Repository } from 'typeorm';
import { UserEntity } from '../users/user.entity.js';
import { StationEntity } from './station.entity.js';

export class SlugTakenError extends Error {}

/** All station I/O; always loads the broadcaster with the station. */
@Injectable()
export class StationsRepository {
  constructor(
    @InjectRepository(StationEntity) private readonly stations: Repository<StationEntity>,
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
  ) {}

  findById(id: string): Promise<StationEntity | null> {
    return this.stations.findOne({ where: { id }, relations: { broadcaster: true } });
  }

  findUserByUsername(username: string): Promise<UserEntity | null> {
    return this.users.findOne({ where: { username: username.toLowerCase() } });
  }

  /** A broadcaster's listed (public) stations, as their profile shows them. */
  findByBroadcaster(broadcasterId: string): Promise<StationEntity[]> {
    return this.stations.find({
      where: { broadcasterId, visibility: 'public' },
      relations: { broadcaster: true },
      order: {
        isActive: 'DESC',
        lastActiveAt: { direction: 'DESC', nulls: 'LAST' },
        createdAt: 'DESC',
      },
    });
  }

  /** All of a broadcaster's stations, unlisted and private included (their studio). */
  findAllByBroadcaster(broadcasterId: string): Promise<StationEntity[]> {
    return this.stations.find({
      where: { broadcasterId },
      relations: { broadcaster: true },
      order: {
        isActive: 'DESC',
        lastActiveAt: { direction: 'DESC', nulls: 'LAST' },
        createdAt: 'DESC',
      },
    });
  }

  /** A station's visibility, or null when there is no such station. */
  async visibilityOf(id: string): Promise<StationEntity['visibility'] | null> {
    const row = await this.stations.findOne({
      where: { id },
      select: { id: true, visibility: true },
    });
    return row?.visibility ?? null;
  }

  findBySlug(broadcasterId: string, slug: string): Promise<StationEntity | null> {
    return this.stations.findOne({
      where: { broadcasterId, slug },
      relations: { broadcaster: true },
    });
  }

  /** Live stations first, then the most recently active. */
  discover(limit: number): Promise<StationEntity[]> {
    return this.stations.find({
      where: { visibility: 'public' },
      relations: { broadcaster: true },
      order: {
        isActive: 'DESC',
        lastActiveAt: { direction: 'DESC', nulls: 'LAST' },
        createdAt: 'DESC',
      },
      take: limit,
    });
  }

  /** Ids of the stations the database calls live. */
  async liveIds(): Promise<string[]> {
    // A station waiting for its publisher is still on air.
    const rows = await this.stations.find({
      where: [{ status: 'live' }, { status: 'reconnecting' }],
      select: { id: true },
    });
    return rows.map((r) => r.id);
  }

  async insert(
    values: Pick<StationEntity, 'broadcasterId' | 'name' | 'slug' | 'description'>,
  ): Promise<StationEntity> {
    try {
      const { identifiers } = await this.stations.insert(values);
      return (await this.findById(identifiers[0]!.id as string))!;
    } catch (err) {
      throw uniqueViolation(err) ? new SlugTakenError(values.slug) : err;
    }
  }

  async update(
    id: string,
    values: Partial<
      Pick<
        StationEntity,
        | 'name'
        | 'slug'
        | 'description'
        | 'schedule'
        | 'coverImageId'
        | 'nowPlayingTrack'
        | 'nowPlayingArtist'
        | 'nowPlayingAlbum'
        | 'visibility'
      >
    >,
  ): Promise<void> {
    try {
      await this.stations.update({ id }, values);
    } catch (err) {
      throw uniqueViolation(err) ? new SlugTakenError(values.slug) : err;
    }
  }

  async delete(id: string): Promise<void> {
    await this.stations.delete({ id });
  }

  /** Lifecycle change; `touch` stamps lastActiveAt. */
  async setState(
    id: string,
    status: StationStatus,
    isActive: boolean,
    touch: boolean,
  ): Promise<void> {
    await this.stations.update(
      { id },
      touch ? { status, isActive, lastActiveAt: new Date() } : { status, isActive },
    );
  }
}

function uniqueViolation(err: unknown): boolean {
  return err instanceof QueryFailedError && (err.driverError as { code?: string }).code === '23505';
}
