import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * At most 100 allowed domains per user, enforced by the database so concurrent adds cannot pass
 * it: each insert locks the owner's user row, then counts.
 */
export class AllowedDomainsCap1795500000000 implements MigrationInterface {
  name = 'AllowedDomainsCap1795500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION allowed_domains_cap() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM 1 FROM users WHERE id = NEW.user_id FOR UPDATE;
        IF (SELECT count(*) FROM allowed_domains WHERE user_id = NEW.user_id) >= 100 THEN
          RAISE EXCEPTION 'at most 100 allowed domains per user'
            USING ERRCODE = 'check_violation', CONSTRAINT = 'allowed_domains_per_user_max';
        END IF;
        RETURN NEW;
      END
      $$`);
    await q.query(`
      CREATE TRIGGER allowed_domains_cap BEFORE INSERT ON allowed_domains
        FOR EACH ROW EXECUTE FUNCTION allowed_domains_cap()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER allowed_domains_cap ON allowed_domains`);
    await q.query(`DROP FUNCTION allowed_domains_cap()`);
  }
}
