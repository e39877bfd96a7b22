import { Redis, type RedisOptions } from 'ioredis';
import { StartupError } from '../common/startup-error.js';
import { withTimeout } from '../common/with-timeout.js';

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '(unparsable REDIS_URL)';
  }
}

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
    const reason = describe(lastError ?? (err as Error));
    throw new StartupError(`Cannot reach Redis at ${redactUrl(url)} (REDIS_URL): ${reason}`);
  } finally {
    client.off('error', onError);
  }
  return client;
}

function describe(err: Error): string {
  const e = err as Error & { code?: string; errors?: Error[] };
  // Node reports "localhost" refusals as an AggregateError over IPv4 and IPv6.
  const first = e.errors?.[0] as (Error & { code?: string }) | undefined;
  return first?.message ?? e.message ?? e.code ?? 'unknown error';
}
