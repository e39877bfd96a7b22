import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A deleted account's e-mail leaves every private station's listener list and admission log it
 * was on: a trigger on `users`, so every way an account is deleted (the account page, an operator's
 * SQL) forgets it, in the same transaction. (Its live sessions end too: the access module sweeps
 * on `user.deleted`.)
 */
export class ForgetDeletedListeners1797300000000 implements MigrationInterface {
  name = 'ForgetDeletedListeners1797300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION forget_deleted_listener() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM station_listeners WHERE lower(email) = lower(OLD.email);
        UPDATE station_admissions SET label = '' WHERE via = 'account' AND lower(label) = lower(OLD.email);
        RETURN OLD;
      END
      $$`);
    await q.query(`
      CREATE TRIGGER users_forget_deleted_listener AFTER DELETE ON users
        FOR EACH ROW EXECUTE FUNCTION forget_deleted_listener()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER users_forget_deleted_listener ON users`);
    await q.query(`DROP FUNCTION forget_deleted_listener()`);
  }
}
