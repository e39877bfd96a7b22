import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Relays and webhooks the outbound-address policy refuses are paused with a reason the studio
 * shows (set by the start-up check and at connect time, when the operator does not allow private
 * networks: only the running server knows that).
 */
export class OutboundPaused1796100000000 implements MigrationInterface {
  name = 'OutboundPaused1796100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE station_relays ADD COLUMN paused_reason varchar(300)`);
    await q.query(`ALTER TABLE webhooks ADD COLUMN paused_reason varchar(300)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE station_relays DROP COLUMN paused_reason`);
    await q.query(`ALTER TABLE webhooks DROP COLUMN paused_reason`);
  }
}
