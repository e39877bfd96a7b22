import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Where each recording's file lives, and the recording node's heartbeat (crash recovery). */
export class RecordingStorage1796000000000 implements MigrationInterface {
  name = 'RecordingStorage1796000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE recordings
        ADD COLUMN storage varchar(8) NOT NULL DEFAULT 'local',
        ADD COLUMN heartbeat_at timestamptz NOT NULL DEFAULT now(),
        ADD CONSTRAINT recordings_storage_check CHECK (storage IN ('local', 's3'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE recordings DROP COLUMN storage, DROP COLUMN heartbeat_at`);
  }
}
