import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Stream keys, the HTTP stream setting and outbound relays. */
export class Radio1764000000000 implements MigrationInterface {
  name = 'Radio1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE station_radio_settings (
        station_id uuid PRIMARY KEY,
        stream_key_hash varchar(64) NOT NULL,
        stream_key_nonce varchar(32) NOT NULL,
        stream_key_rotated_at timestamptz NOT NULL DEFAULT now(),
        public_stream_url boolean NOT NULL DEFAULT true,
        CONSTRAINT station_radio_settings_station_id_fkey FOREIGN KEY (station_id) REFERENCES stations (id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE UNIQUE INDEX station_radio_settings_key_hash_key ON station_radio_settings (stream_key_hash)`,
    );
    await q.query(`
      CREATE TABLE station_relays (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        station_id uuid NOT NULL,
        kind varchar(16) NOT NULL,
        url varchar(2048) NOT NULL,
        mount varchar(200) NOT NULL,
        username varchar(200) NOT NULL,
        password_encrypted text NOT NULL,
        format varchar(8) NOT NULL,
        enabled boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT station_relays_station_id_fkey FOREIGN KEY (station_id) REFERENCES stations (id) ON DELETE CASCADE,
        CONSTRAINT station_relays_kind_check CHECK (kind IN ('icecast', 'azuracast', 'shoutcast')),
        CONSTRAINT station_relays_format_check CHECK (format IN ('ogg', 'mp3'))
      )`);
    await q.query(`CREATE INDEX station_relays_station_id_idx ON station_relays (station_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE station_relays`);
    await q.query(`DROP TABLE station_radio_settings`);
  }
}
