import { Redis, type RedisOptions } from 'ioredis';
import { connectionFailure, redactUrl, StartupError } from '../common/startup-error.js';
import { withTimeout } from '../common/with-timeout.js';

/**
 * Opens the API's one Redis connection and waits until it answers; everything else uses
 * `duplicate()` of it. An unreachable server becomes one readable `StartupError`.
 */
export async function connectRedis(
  url: string,
  connectionName: string,
  timeoutMs = 5000,
): Promise<Redis> {
  const options: RedisOptions = {
    lazyConnect: true,
    // A command waits at most this many reconnects during an outage, then fails (callers fall back).
    maxRetriesPerRequest: 2,
    connectTimeout: timeoutMs,
    // Named (`CLIENT LIST`), so operators see which node and purpose each connection serves.
    connectionName,
  };
  const client = new Redis(url, options);
  let lastError: Error | null = null;
  // Without a listener ioredis prints "Unhandled error event" for every failed attempt.
  const onError = (err: Error) => (lastError = err);
  client.on('error', onError);
  try {
    await withTimeout(
      client.connect().then(() => client.ping()),
      timeoutMs,
      'connection',
    );
  } catch (err) {
    client.disconnect();
    const reason = connectionFailure(lastError ?? (err as Error));
    throw new StartupError(
      `Cannot reach Redis at ${redactUrl(url, 'REDIS_URL')} (REDIS_URL): ${reason}`,
    );
  } finally {
    client.off('error', onError);
  }
  return client;
}
