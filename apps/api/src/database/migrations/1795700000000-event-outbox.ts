import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Events that could not reach Redis wait here, in order, until it is back. */
export class EventOutbox1795700000000 implements MigrationInterface {
  name = 'EventOutbox1795700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE event_outbox (
        id bigserial PRIMARY KEY,
        name varchar(64) NOT NULL,
        envelope jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE event_outbox`);
  }
}
