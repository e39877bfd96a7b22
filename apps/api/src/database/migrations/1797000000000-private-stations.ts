import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Private stations: a station's visibility (public, unlisted, private), its password (scrypt,
 * like account passwords) and the version that changing it bumps (which revokes the grants it
 * gave), invite links with the distinct listeners each admitted, the owner's listener list and
 * a log of admissions.
 */
export class PrivateStations1797000000000 implements MigrationInterface {
  name = 'PrivateStations1797000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE stations ADD COLUMN visibility varchar(16) NOT NULL DEFAULT 'public'
         CONSTRAINT stations_visibility_check CHECK (visibility IN ('public', 'unlisted', 'private'))`,
    );
    await q.query(`
      CREATE TABLE station_access (
        station_id uuid PRIMARY KEY REFERENCES stations (id) ON DELETE CASCADE,
        password_hash text,
        password_version integer NOT NULL DEFAULT 0
      )`);
    await q.query(`
      CREATE TABLE station_invites (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        station_id uuid NOT NULL REFERENCES stations (id) ON DELETE CASCADE,
        label varchar(60) NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz,
        max_uses integer,
        revoked_at timestamptz
      )`);
    await q.query(`CREATE INDEX station_invites_station_idx ON station_invites (station_id)`);
    await q.query(`
      CREATE TABLE station_invite_uses (
        invite_id uuid NOT NULL REFERENCES station_invites (id) ON DELETE CASCADE,
        listener_id uuid NOT NULL,
        CONSTRAINT station_invite_uses_pkey PRIMARY KEY (invite_id, listener_id)
      )`);
    await q.query(`
      CREATE TABLE station_listeners (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        station_id uuid NOT NULL REFERENCES stations (id) ON DELETE CASCADE,
        email varchar(254) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT station_listeners_station_email_key UNIQUE (station_id, email)
      )`);
    await q.query(`
      CREATE TABLE station_admissions (
        id bigserial PRIMARY KEY,
        station_id uuid NOT NULL REFERENCES stations (id) ON DELETE CASCADE,
        at timestamptz NOT NULL DEFAULT now(),
        via varchar(16) NOT NULL,
        label varchar(254) NOT NULL DEFAULT '',
        listener_id uuid NOT NULL
      )`);
    await q.query(
      `CREATE INDEX station_admissions_station_idx ON station_admissions (station_id, at)`,
    );
    // A recording's visibility replaces `published`: NULL follows its station's, an unpublished
    // one becomes private (its owner only, as before).
    await q.query(
      `ALTER TABLE recordings ADD COLUMN visibility varchar(16)
         CONSTRAINT recordings_visibility_check CHECK (visibility IN ('public', 'unlisted', 'private'))`,
    );
    await q.query(`UPDATE recordings SET visibility = 'private' WHERE NOT published`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE recordings SET published = (visibility IS DISTINCT FROM 'private')`);
    await q.query(`ALTER TABLE recordings DROP COLUMN visibility`);
    await q.query(`DROP TABLE station_admissions`);
    await q.query(`DROP TABLE station_listeners`);
    await q.query(`DROP TABLE station_invite_uses`);
    await q.query(`DROP TABLE station_invites`);
    await q.query(`DROP TABLE station_access`);
    await q.query(`ALTER TABLE stations DROP COLUMN visibility`);
  }
}
