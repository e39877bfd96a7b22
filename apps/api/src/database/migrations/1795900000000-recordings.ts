import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Recordings1795900000000 implements MigrationInterface {
  name = 'Recordings1795900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE recording_settings (
        station_id uuid PRIMARY KEY REFERENCES stations (id) ON DELETE CASCADE,
        enabled boolean NOT NULL DEFAULT false,
        retention_days integer,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE recordings (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        station_id uuid NOT NULL REFERENCES stations (id) ON DELETE CASCADE,
        broadcast_id uuid REFERENCES broadcasts (id) ON DELETE SET NULL,
        title varchar(200) NOT NULL DEFAULT '',
        started_at timestamptz NOT NULL DEFAULT now(),
        ended_at timestamptz,
        duration_seconds double precision NOT NULL DEFAULT 0,
        size_bytes bigint NOT NULL DEFAULT 0,
        status varchar(16) NOT NULL DEFAULT 'recording',
        error varchar(300),
        published boolean NOT NULL DEFAULT true,
        storage_key varchar(300) NOT NULL,
        timeline jsonb NOT NULL DEFAULT '[]',
        CONSTRAINT recordings_status_check CHECK (status IN ('recording', 'ready', 'failed'))
      )`);
    await q.query(
      `CREATE INDEX recordings_station_started_idx ON recordings (station_id, started_at DESC)`,
    );
    await q.query(
      `CREATE UNIQUE INDEX recordings_one_open_key ON recordings (station_id) WHERE status = 'recording'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE recordings`);
    await q.query(`DROP TABLE recording_settings`);
  }
}
