import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Redis, RedisOptions } from 'ioredis';
import { withTimeout } from '../common/with-timeout.js';

/**
 * Closes `c` once Redis answered what was sent on it (QUIT), so commands a library sent without
 * waiting for them (socket.io's adapter unsubscribes on close) are not rejected unhandled; at once
 * when it is not connected, or after `ms`.
 */
export async function quitRedis(c: Redis, ms = 1000): Promise<void> {
  if (c.status === 'end') return;
  if (c.status !== 'ready') return void c.disconnect();
  try {
    await withTimeout(c.quit(), ms, 'QUIT');
  } catch {
    c.disconnect();
  }
}

/**
 * The API's one Redis connection (`REDIS_URL`), or none: rate limits, the event bus, socket.io and
 * the SFU registry all derive theirs from it with `duplicate()` (pub/sub needs its own connection).
 */
@Injectable()
export class RedisService implements OnApplicationShutdown {
  private readonly logger = new Logger('Redis');
  private readonly owned: Redis[] = [];
  private down = false;

  constructor(readonly client: Redis | null) {
    if (client) this.watch(client, 'main');
  }

  /**
   * A new connection with the main one's options (and `options`), named after its purpose (no
   * spaces), closed with the app; `null` without Redis.
   */
  duplicate(purpose: string, options: RedisOptions = {}): Redis | null {
    if (!this.client) return null;
    const base = this.client.options.connectionName ?? 'api';
    const c = this.client.duplicate({
      ...options,
      connectionName: `${base.replace(/:main$/, '')}:${purpose}`,
      lazyConnect: false,
    });
    this.watch(c, purpose);
    this.owned.push(c);
    return c;
  }

  /** Whether commands would go out now (not queued behind a reconnect). */
  get ready(): boolean {
    return this.client?.status === 'ready';
  }

  async onApplicationShutdown(): Promise<void> {
    for (const c of [...this.owned, ...(this.client ? [this.client] : [])]) {
      if (c.status !== 'end') c.disconnect();
    }
  }

  /** One warning when Redis goes away and one line when it is back, not one per retry. */
  private watch(c: Redis, purpose: string): void {
    c.on('error', (err: Error) => {
      if (purpose !== 'main' || this.down) return;
      this.down = true;
      this.logger.warn(`Redis unavailable (${err.message}); retrying`);
    });
    if (purpose === 'main') {
      c.on('ready', () => {
        if (!this.down) return;
        this.down = false;
        this.logger.log('Redis connection restored');
      });
    }
  }
}
