import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Stats1795445181007 implements MigrationInterface {
  name = 'Stats1795445181007';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE broadcasts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        station_id uuid NOT NULL REFERENCES stations (id) ON DELETE CASCADE,
        started_at timestamptz NOT NULL DEFAULT now(),
        ended_at timestamptz,
        peak_listeners integer NOT NULL DEFAULT 0,
        listener_seconds double precision NOT NULL DEFAULT 0,
        sessions integer NOT NULL DEFAULT 0,
        median_session_seconds double precision
      )`);
    await q.query(
      `CREATE UNIQUE INDEX broadcasts_one_open_key ON broadcasts (station_id) WHERE ended_at IS NULL`,
    );
    await q.query(
      `CREATE INDEX broadcasts_station_started_idx ON broadcasts (station_id, started_at DESC)`,
    );
    await q.query(`
      CREATE TABLE listening_sessions (
        id uuid PRIMARY KEY,
        station_id uuid NOT NULL REFERENCES stations (id) ON DELETE CASCADE,
        broadcast_id uuid REFERENCES broadcasts (id) ON DELETE SET NULL,
        started_at timestamptz NOT NULL DEFAULT now(),
        ended_at timestamptz,
        transport varchar(8) NOT NULL,
        source varchar(8) NOT NULL,
        domain varchar(255),
        client varchar(16) NOT NULL,
        node_id varchar(64) NOT NULL,
        CONSTRAINT listening_sessions_transport_check CHECK (transport IN ('webrtc', 'http')),
        CONSTRAINT listening_sessions_source_check CHECK (source IN ('embed', 'site', 'direct'))
      )`);
    await q.query(
      `CREATE INDEX listening_sessions_station_time_idx ON listening_sessions (station_id, started_at)`,
    );
    await q.query(
      `CREATE INDEX listening_sessions_open_idx ON listening_sessions (node_id) WHERE ended_at IS NULL`,
    );
    await q.query(`CREATE INDEX listening_sessions_ended_idx ON listening_sessions (ended_at)`);
    await q.query(
      `CREATE INDEX listening_sessions_broadcast_idx ON listening_sessions (broadcast_id)`,
    );
    await q.query(`
      CREATE TABLE listening_minutes (
        station_id uuid NOT NULL REFERENCES stations (id) ON DELETE CASCADE,
        minute timestamptz NOT NULL,
        peak_listeners integer NOT NULL,
        listener_seconds double precision NOT NULL,
        sessions integer NOT NULL,
        PRIMARY KEY (station_id, minute)
      )`);
    await q.query(`CREATE INDEX listening_minutes_minute_idx ON listening_minutes (minute)`);
    await q.query(`
      CREATE TABLE listening_hours (
        station_id uuid NOT NULL REFERENCES stations (id) ON DELETE CASCADE,
        hour timestamptz NOT NULL,
        peak_listeners integer NOT NULL,
        listener_seconds double precision NOT NULL,
        sessions integer NOT NULL,
        length_histogram jsonb NOT NULL DEFAULT '{}',
        PRIMARY KEY (station_id, hour)
      )`);
    await q.query(`CREATE INDEX listening_hours_hour_idx ON listening_hours (hour)`);
    await q.query(`
      CREATE TABLE listening_hour_dims (
        station_id uuid NOT NULL REFERENCES stations (id) ON DELETE CASCADE,
        hour timestamptz NOT NULL,
        dimension varchar(12) NOT NULL,
        value varchar(300) NOT NULL,
        sessions integer NOT NULL,
        listener_seconds double precision NOT NULL,
        PRIMARY KEY (station_id, hour, dimension, value)
      )`);
    await q.query(`CREATE INDEX listening_hour_dims_hour_idx ON listening_hour_dims (hour)`);
    await q.query(`
      CREATE TABLE stats_nodes (
        node_id varchar(64) PRIMARY KEY,
        seen_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [
      'stats_nodes',
      'listening_hour_dims',
      'listening_hours',
      'listening_minutes',
      'listening_sessions',
      'broadcasts',
    ])
      await q.query(`DROP TABLE ${t}`);
  }
}
