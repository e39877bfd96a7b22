import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A station whose publisher dropped is 'reconnecting' during the grace period. */
export class StationReconnecting1795600000000 implements MigrationInterface {
  name = 'StationReconnecting1795600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE stations DROP CONSTRAINT stations_status_check`);
    await q.query(
      `ALTER TABLE stations ADD CONSTRAINT stations_status_check CHECK (status IN ('live', 'reconnecting', 'offline', 'ended'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE stations SET status = 'live' WHERE status = 'reconnecting'`);
    await q.query(`ALTER TABLE stations DROP CONSTRAINT stations_status_check`);
    await q.query(
      `ALTER TABLE stations ADD CONSTRAINT stations_status_check CHECK (status IN ('live', 'offline', 'ended'))`,
    );
  }
}
