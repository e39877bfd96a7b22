import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import type { DataSource, Repository } from 'typeorm';
import { ShowEntity } from './show.entity.js';

export type ShowValues = Pick<
  ShowEntity,
  'title' | 'description' | 'startsAt' | 'durationMinutes' | 'timeZone' | 'repeat'
>;

/** All show I/O. */
@Injectable()
export class ShowsRepository {
  constructor(
    @InjectRepository(ShowEntity) private readonly shows: Repository<ShowEntity>,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  /**
   * Runs `fn` in a transaction holding the station's row lock, with a repository bound to it: two
   * writers of one station's schedule check for overlaps one after the other.
   */
  withStationLock<T>(stationId: string, fn: (tx: ShowsRepository) => Promise<T>): Promise<T> {
    return this.db.transaction(async (m) => {
      await m.query(`SELECT 1 FROM stations WHERE id = $1 FOR UPDATE`, [stationId]);
      return fn(new ShowsRepository(m.getRepository(ShowEntity), this.db));
    });
  }

  listByStation(stationId: string): Promise<ShowEntity[]> {
    return this.shows.find({ where: { stationId }, order: { startsAt: 'ASC', createdAt: 'ASC' } });
  }

  countByStation(stationId: string): Promise<number> {
    return this.shows.count({ where: { stationId } });
  }

  findById(id: string): Promise<ShowEntity | null> {
    return this.shows.findOne({ where: { id } });
  }

  async insert(stationId: string, values: ShowValues): Promise<ShowEntity> {
    const { identifiers } = await this.shows.insert({ stationId, ...values });
    return (await this.findById(identifiers[0]!.id as string))!;
  }

  async update(id: string, values: ShowValues): Promise<ShowEntity> {
    await this.shows.update({ id }, values);
    return (await this.findById(id))!;
  }

  async delete(id: string): Promise<void> {
    await this.shows.delete({ id });
  }
}
