import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Initial1763850000000 implements MigrationInterface {
  name = 'Initial1763850000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email varchar(320) NOT NULL,
        username varchar(32) NOT NULL,
        name varchar(80) NOT NULL,
        password_hash varchar(255) NOT NULL,
        email_verified boolean NOT NULL DEFAULT false,
        image varchar(2048),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX users_email_key ON users (email)`);
    await q.query(`CREATE UNIQUE INDEX users_username_key ON users (username)`);
    await q.query(`
      CREATE TABLE sessions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        expires_at timestamptz NOT NULL,
        ip_address varchar(64),
        user_agent varchar(512),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX sessions_user_id_idx ON sessions (user_id)`);
    await q.query(`
      CREATE TABLE email_verification_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        token_hash varchar(64) NOT NULL,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE UNIQUE INDEX email_verification_tokens_hash_key ON email_verification_tokens (token_hash)`,
    );
    await q.query(
      `CREATE INDEX email_verification_tokens_user_id_idx ON email_verification_tokens (user_id)`,
    );
    await q.query(`
      CREATE TABLE stations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        broadcaster_id uuid NOT NULL,
        name varchar(80) NOT NULL,
        slug varchar(64) NOT NULL,
        description text NOT NULL DEFAULT '',
        status varchar(16) NOT NULL DEFAULT 'offline',
        is_active boolean NOT NULL DEFAULT false,
        now_playing_track varchar(200),
        now_playing_artist varchar(200),
        now_playing_album varchar(200),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        last_active_at timestamptz,
        CONSTRAINT stations_broadcaster_id_fkey FOREIGN KEY (broadcaster_id) REFERENCES users (id) ON DELETE CASCADE,
        CONSTRAINT stations_status_check CHECK (status IN ('live', 'offline', 'ended'))
      )`);
    await q.query(
      `CREATE UNIQUE INDEX stations_broadcaster_slug_key ON stations (broadcaster_id, slug)`,
    );
    await q.query(`CREATE INDEX stations_discover_idx ON stations (is_active, last_active_at)`);
    await q.query(`
      CREATE TABLE allowed_domains (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        domain varchar(255) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE UNIQUE INDEX allowed_domains_user_domain_key ON allowed_domains (user_id, domain)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE allowed_domains`);
    await q.query(`DROP TABLE stations`);
    await q.query(`DROP TABLE email_verification_tokens`);
    await q.query(`DROP TABLE sessions`);
    await q.query(`DROP TABLE users`);
  }
}
