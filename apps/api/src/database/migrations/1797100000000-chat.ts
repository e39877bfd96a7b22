import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Live together (issue 27): chat messages, their moderation, and who shows in presence lists. */
export class Chat1797100000000 implements MigrationInterface {
  name = 'Chat1797100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE chat_settings (
        station_id uuid PRIMARY KEY REFERENCES stations (id) ON DELETE CASCADE,
        enabled boolean NOT NULL DEFAULT true,
        signed_in_only boolean NOT NULL DEFAULT false,
        links_allowed boolean NOT NULL DEFAULT false,
        slow_mode_seconds integer NOT NULL DEFAULT 0,
        player_chat boolean NOT NULL DEFAULT false,
        retention_days integer NOT NULL DEFAULT 30,
        words jsonb NOT NULL DEFAULT '[]',
        pinned_message_id uuid,
        webhooks boolean NOT NULL DEFAULT false
      )`);
    await q.query(`
      CREATE TABLE chat_messages (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        station_id uuid NOT NULL REFERENCES stations (id) ON DELETE CASCADE,
        user_id uuid REFERENCES users (id) ON DELETE CASCADE,
        guest_id uuid,
        author_name varchar(80) NOT NULL,
        author_username varchar(32),
        author_kind varchar(16) NOT NULL,
        text varchar(500) NOT NULL,
        sent_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX chat_messages_station_idx ON chat_messages (station_id, sent_at)`);
    await q.query(`CREATE INDEX chat_messages_user_idx ON chat_messages (user_id)`);
    await q.query(`
      CREATE TABLE chat_moderators (
        station_id uuid NOT NULL REFERENCES stations (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        PRIMARY KEY (station_id, user_id)
      )`);
    await q.query(`
      CREATE TABLE chat_bans (
        station_id uuid NOT NULL REFERENCES stations (id) ON DELETE CASCADE,
        subject varchar(80) NOT NULL,
        name varchar(80) NOT NULL,
        until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (station_id, subject)
      )`);
    await q.query(`
      CREATE TABLE chat_log (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        station_id uuid NOT NULL REFERENCES stations (id) ON DELETE CASCADE,
        actor varchar(80) NOT NULL,
        action varchar(32) NOT NULL,
        target varchar(120),
        detail text,
        at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX chat_log_station_idx ON chat_log (station_id, at)`);
    await q.query(`
      CREATE TABLE chat_reports (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        station_id uuid NOT NULL REFERENCES stations (id) ON DELETE CASCADE,
        message_id uuid REFERENCES chat_messages (id) ON DELETE SET NULL,
        reporter varchar(80) NOT NULL,
        reason varchar(200),
        at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE presence_settings (
        user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        visible boolean NOT NULL DEFAULT false
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [
      'presence_settings',
      'chat_reports',
      'chat_log',
      'chat_bans',
      'chat_moderators',
      'chat_messages',
      'chat_settings',
    ])
      await q.query(`DROP TABLE ${t}`);
  }
}
