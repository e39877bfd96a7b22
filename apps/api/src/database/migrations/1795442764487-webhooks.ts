import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Webhooks1795442764487 implements MigrationInterface {
  name = 'Webhooks1795442764487';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhooks (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        station_id uuid NOT NULL REFERENCES stations (id) ON DELETE CASCADE,
        url varchar(2048) NOT NULL,
        description varchar(200) NOT NULL DEFAULT '',
        events text[] NOT NULL,
        enabled boolean NOT NULL DEFAULT true,
        secret varchar(100) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX webhooks_station_id_idx ON webhooks (station_id)`);
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        event_id varchar(64) NOT NULL,
        event_type varchar(40) NOT NULL,
        payload text NOT NULL,
        status varchar(16) NOT NULL DEFAULT 'pending',
        attempt_count integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        locked_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending', 'succeeded', 'failed'))
      )`);
    await q.query(
      `CREATE UNIQUE INDEX webhook_deliveries_webhook_event_key ON webhook_deliveries (webhook_id, event_id)`,
    );
    await q.query(
      `CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`,
    );
    await q.query(
      `CREATE INDEX webhook_deliveries_log_idx ON webhook_deliveries (webhook_id, created_at DESC)`,
    );
    await q.query(`
      CREATE TABLE webhook_attempts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
        attempted_at timestamptz NOT NULL DEFAULT now(),
        response_status integer,
        error varchar(300),
        duration_ms integer NOT NULL,
        response_body varchar(1024)
      )`);
    await q.query(
      `CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, attempted_at)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_attempts`);
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhooks`);
  }
}
