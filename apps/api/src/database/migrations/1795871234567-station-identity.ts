import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Cover art and avatars (resized WebP kept in the database), and a station's schedule text. */
export class StationIdentity1795871234567 implements MigrationInterface {
  name = 'StationIdentity1795871234567';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE images (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        owner_id uuid NOT NULL,
        kind varchar(16) NOT NULL,
        content_type varchar(32) NOT NULL,
        width integer NOT NULL,
        height integer NOT NULL,
        bytes bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT images_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES users (id) ON DELETE CASCADE,
        CONSTRAINT images_kind_check CHECK (kind IN ('cover', 'avatar'))
      )`);
    await q.query(`CREATE INDEX images_owner_id_idx ON images (owner_id)`);
    await q.query(`ALTER TABLE stations ADD COLUMN schedule text NOT NULL DEFAULT ''`);
    await q.query(`ALTER TABLE stations ADD COLUMN cover_image_id uuid NULL`);
    await q.query(
      `ALTER TABLE stations ADD CONSTRAINT stations_cover_image_id_fkey FOREIGN KEY (cover_image_id) REFERENCES images (id) ON DELETE SET NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE stations DROP CONSTRAINT stations_cover_image_id_fkey`);
    await q.query(`ALTER TABLE stations DROP COLUMN cover_image_id`);
    await q.query(`ALTER TABLE stations DROP COLUMN schedule`);
    await q.query(`DROP TABLE images`);
  }
}
