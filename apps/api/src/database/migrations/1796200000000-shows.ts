import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Scheduled shows of a station (issue 29): occurrences are expanded from the repeat on read. */
export class Shows1796200000000 implements MigrationInterface {
  name = 'Shows1796200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE shows (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        station_id uuid NOT NULL REFERENCES stations (id) ON DELETE CASCADE,
        title varchar(120) NOT NULL,
        description text NOT NULL DEFAULT '',
        starts_at timestamptz NOT NULL,
        duration_minutes integer NOT NULL CHECK (duration_minutes > 0),
        time_zone varchar(64) NOT NULL,
        repeat jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX shows_station_idx ON shows (station_id, starts_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE shows`);
  }
}
