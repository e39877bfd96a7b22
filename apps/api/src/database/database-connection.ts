import pg from 'pg';
import { connectionFailure, redactUrl, StartupError } from '../common/startup-error.js';
import { withTimeout } from '../common/with-timeout.js';

/**
 * Checks that `DATABASE_URL` answers before the app is built: an unreachable server, a refused
 * login or a missing database becomes one readable `StartupError` instead of TypeORM's retries
 * and stack traces.
 */
export async function checkDatabase(url: string, timeoutMs = 5000): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  // A late socket error after a failed connect must not reach the process as unhandled.
  client.on('error', () => undefined);
  try {
    await withTimeout(
      client.connect().then(() => client.query('SELECT 1')),
      timeoutMs,
      'connection',
    );
  } catch (err) {
    throw new StartupError(
      `Cannot reach PostgreSQL at ${redactUrl(url, 'DATABASE_URL')} (DATABASE_URL): ${connectionFailure(err as Error)}`,
    );
  } finally {
    void client.end().catch(() => undefined);
  }
}
