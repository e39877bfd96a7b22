import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { StationRelayEntity } from './relay.entity.js';

/** What a new relay is saved with (the database fills in the timestamps). */
export type NewRelay = Pick<
  StationRelayEntity,
  | 'id'
  | 'stationId'
  | 'kind'
  | 'url'
  | 'mount'
  | 'username'
  | 'passwordEncrypted'
  | 'format'
  | 'enabled'
>;

/** The columns an owner (or the outbound policy) may change. */
export type RelayChanges = Partial<
  Pick<
    StationRelayEntity,
    'url' | 'mount' | 'username' | 'passwordEncrypted' | 'format' | 'enabled' | 'pausedReason'
  >
>;

/** All outbound-relay I/O (station_relays). */
@Injectable()
export class RelaysRepository {
  constructor(
    @InjectRepository(StationRelayEntity) private readonly repo: Repository<StationRelayEntity>,
  ) {}

  findById(id: string): Promise<StationRelayEntity | null> {
    return this.repo.findOneBy({ id });
  }

  /** A station's relays, oldest first. */
  listOf(stationId: string): Promise<StationRelayEntity[]> {
    return this.repo.find({ where: { stationId }, order: { createdAt: 'ASC' } });
  }

  /** A station's enabled relays (the ones to push while it is live). */
  enabledOf(stationId: string): Promise<StationRelayEntity[]> {
    return this.repo.find({ where: { stationId, enabled: true } });
  }

  countOf(stationId: string): Promise<number> {
    return this.repo.count({ where: { stationId } });
  }

  /** Every enabled relay's id and address (checked against the outbound policy at start-up). */
  enabledAddresses(): Promise<Pick<StationRelayEntity, 'id' | 'url'>[]> {
    return this.repo.find({ select: { id: true, url: true }, where: { enabled: true } });
  }

  /** Saves a new relay and reads it back as stored. */
  async insert(relay: NewRelay): Promise<StationRelayEntity> {
    await this.repo.insert(this.repo.create(relay));
    return this.repo.findOneByOrFail({ id: relay.id });
  }

  /** Changes a relay (when there is anything to change) and reads it back as stored. */
  async update(id: string, changes: RelayChanges): Promise<StationRelayEntity> {
    if (Object.keys(changes).length > 0) await this.repo.update({ id }, changes);
    return this.repo.findOneByOrFail({ id });
  }

  /** Disables a relay with the reason its owner sees. */
  async pause(id: string, reason: string): Promise<void> {
    await this.repo.update({ id }, { enabled: false, pausedReason: reason });
  }

  async delete(id: string): Promise<void> {
    await this.repo.delete({ id });
  }
}
