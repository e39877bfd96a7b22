import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * "Public stream URL" follows a default unless the owner sets it: on while the owner lists no
 * allowed domains, off once they list some (NULL = the default). Every `true` stored so far was
 * the column's old default or a switch never touched, so it becomes the default: stations whose
 * owners list domains stop playing to pages that hide their address until the owner turns it on.
 */
export class PublicStreamDefault1796150000000 implements MigrationInterface {
  name = 'PublicStreamDefault1796150000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE station_radio_settings ALTER COLUMN public_stream_url DROP NOT NULL`,
    );
    await q.query(
      `ALTER TABLE station_radio_settings ALTER COLUMN public_stream_url SET DEFAULT NULL`,
    );
    await q.query(
      `UPDATE station_radio_settings SET public_stream_url = NULL WHERE public_stream_url`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `UPDATE station_radio_settings SET public_stream_url = true WHERE public_stream_url IS NULL`,
    );
    await q.query(
      `ALTER TABLE station_radio_settings ALTER COLUMN public_stream_url SET DEFAULT true`,
    );
    await q.query(`ALTER TABLE station_radio_settings ALTER COLUMN public_stream_url SET NOT NULL`);
  }
}
