import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Followers of stations (issue 29): accounts and e-mail guests (double opt-in), their per-station
 * switches, Web Push subscriptions, the notices already decided (one per go-live or show reminder,
 * whichever node decides first) and the notification jobs, queued with leases like webhooks.
 */
export class Follow1797200000000 implements MigrationInterface {
  name = 'Follow1797200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE follows (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        station_id uuid NOT NULL REFERENCES stations (id) ON DELETE CASCADE,
        user_id uuid REFERENCES users (id) ON DELETE CASCADE,
        email varchar(320),
        confirmed_at timestamptz,
        confirm_sent_at timestamptz,
        email_enabled boolean NOT NULL DEFAULT true,
        push_enabled boolean NOT NULL DEFAULT true,
        on_live boolean NOT NULL DEFAULT true,
        before_show boolean NOT NULL DEFAULT false,
        at_show_start boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((user_id IS NULL) <> (email IS NULL))
      )`);
    await q.query(
      `CREATE UNIQUE INDEX follows_user_uq ON follows (station_id, user_id) WHERE user_id IS NOT NULL`,
    );
    await q.query(
      `CREATE UNIQUE INDEX follows_email_uq ON follows (station_id, email) WHERE email IS NOT NULL`,
    );
    await q.query(`CREATE INDEX follows_user_idx ON follows (user_id)`);
    await q.query(`
      CREATE TABLE push_subscriptions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        endpoint varchar(2048) NOT NULL UNIQUE,
        p256dh varchar(200) NOT NULL,
        auth varchar(100) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX push_subscriptions_user_idx ON push_subscriptions (user_id)`);
    await q.query(`
      CREATE TABLE follow_station_state (
        station_id uuid PRIMARY KEY REFERENCES stations (id) ON DELETE CASCADE,
        last_live_notice_at timestamptz,
        last_offline_at timestamptz
      )`);
    await q.query(`
      CREATE TABLE follow_notices (
        station_id uuid NOT NULL REFERENCES stations (id) ON DELETE CASCADE,
        kind varchar(16) NOT NULL,
        key varchar(120) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (station_id, kind, key)
      )`);
    await q.query(`
      CREATE TABLE notification_jobs (
        id bigserial PRIMARY KEY,
        follow_id uuid NOT NULL REFERENCES follows (id) ON DELETE CASCADE,
        channel varchar(8) NOT NULL,
        kind varchar(16) NOT NULL,
        payload jsonb NOT NULL,
        status varchar(12) NOT NULL DEFAULT 'pending',
        attempts integer NOT NULL DEFAULT 0,
        run_at timestamptz NOT NULL DEFAULT now(),
        locked_until timestamptz,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX notification_jobs_due_idx ON notification_jobs (run_at) WHERE status = 'pending'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE notification_jobs`);
    await q.query(`DROP TABLE follow_notices`);
    await q.query(`DROP TABLE follow_station_state`);
    await q.query(`DROP TABLE push_subscriptions`);
    await q.query(`DROP TABLE follows`);
  }
}
