import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One table for every emailed account link: verify an address, reset a password, confirm a new
 * address (`email` holds it). Each is single-use and expires.
 */
export class AccountTokens1795700000001 implements MigrationInterface {
  name = 'AccountTokens1795700000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE email_verification_tokens ADD COLUMN purpose varchar(16) NOT NULL DEFAULT 'verify-email'`,
    );
    await q.query(`ALTER TABLE email_verification_tokens ADD COLUMN email varchar(320)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE email_verification_tokens DROP COLUMN email`);
    await q.query(`ALTER TABLE email_verification_tokens DROP COLUMN purpose`);
  }
}
