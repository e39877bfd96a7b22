import { Inject, Injectable } from '@nestjs/common';
import {
  DEMO_SLUG,
  DEMO_STATION_ID,
  DEMO_USER_ID,
  DEMO_USERNAME,
  PRODUCT_NAME,
} from '@radiobroadcaster/contracts';
import { DataSource } from 'typeorm';
import { StationEntity } from '../stations/station.entity.js';
import { UserEntity } from '../users/user.entity.js';

/** The demo station's I/O: its broadcaster and station rows (fixed ids). */
@Injectable()
export class DemoRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /** The demo broadcaster and station, created unless they are there (nobody can sign up as them). */
  async ensureDemoStation(): Promise<void> {
    await this.db
      .createQueryBuilder()
      .insert()
      .into(UserEntity)
      .values({
        id: DEMO_USER_ID,
        email: 'demo@radiobroadcaster.invalid',
        username: DEMO_USERNAME,
        name: PRODUCT_NAME,
        // Not a hash of anything: nobody can sign in as the demo broadcaster.
        passwordHash: '!demo',
        emailVerified: true,
      })
      .orIgnore()
      .execute();
    await this.db
      .createQueryBuilder()
      .insert()
      .into(StationEntity)
      .values({
        id: DEMO_STATION_ID,
        broadcasterId: DEMO_USER_ID,
        name: `${PRODUCT_NAME} Demo`,
        slug: DEMO_SLUG,
        description: 'A demo station that shows what a live station looks like.',
      })
      .orIgnore()
      .execute();
  }
}
