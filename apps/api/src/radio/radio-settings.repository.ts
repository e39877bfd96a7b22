import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { RadioSettingsEntity } from './radio-settings.entity.js';

/** All radio-settings I/O (a station's stream key hash and nonce, its public-stream choice). */
@Injectable()
export class RadioSettingsRepository {
  constructor(
    @InjectRepository(RadioSettingsEntity) private readonly repo: Repository<RadioSettingsEntity>,
  ) {}

  find(stationId: string): Promise<RadioSettingsEntity | null> {
    return this.repo.findOne({ where: { stationId } });
  }

  /** The row, which must exist (created by `insertIfAbsent` before). */
  get(stationId: string): Promise<RadioSettingsEntity> {
    return this.repo.findOneOrFail({ where: { stationId } });
  }

  /** Inserts the station's first settings unless a concurrent call already did. */
  async insertIfAbsent(
    row: Pick<
      RadioSettingsEntity,
      'stationId' | 'streamKeyNonce' | 'streamKeyHash' | 'streamKeyRotatedAt'
    >,
  ): Promise<void> {
    await this.repo.createQueryBuilder().insert().values(row).orIgnore().execute();
  }

  async update(
    stationId: string,
    patch: Partial<
      Pick<
        RadioSettingsEntity,
        'streamKeyNonce' | 'streamKeyHash' | 'streamKeyRotatedAt' | 'publicStreamUrl'
      >
    >,
  ): Promise<void> {
    await this.repo.update({ stationId }, patch);
  }

  /** The current key's hash (sources check it on every connection), or null for no settings. */
  async keyHash(stationId: string): Promise<string | null> {
    const row = await this.repo.findOne({
      where: { stationId },
      select: { stationId: true, streamKeyHash: true },
    });
    return row?.streamKeyHash ?? null;
  }

  /** The owner's public-stream choice: true, false, null (the default), or undefined for no row. */
  async publicStreamUrl(stationId: string): Promise<boolean | null | undefined> {
    const row = await this.repo.findOne({
      where: { stationId },
      select: { stationId: true, publicStreamUrl: true },
    });
    return row ? row.publicStreamUrl : undefined;
  }
}
