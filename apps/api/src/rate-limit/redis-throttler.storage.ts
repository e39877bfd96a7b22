import { Logger } from '@nestjs/common';
import { type ThrottlerStorage, ThrottlerStorageService } from '@nestjs/throttler';
import { redisKeys, type RedisKeys } from '@radiobroadcaster/sfu';
import type { Redis } from 'ioredis';
import { withTimeout } from '../common/with-timeout.js';

/**
 * One atomic step per hit: a window opened by the key's first hit, and a block once the count
 * passes the limit (the counter restarts when the block ends, like the in-memory storage).
 * Returns [hits, ms left in the window, blocked 0/1, ms left in the block].
 */
const INCREMENT = `
local hitsKey, blockKey = KEYS[1], KEYS[2]
local ttl, limit, block = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local blockLeft = redis.call('PTTL', blockKey)
if blockLeft > 0 then
  return { tonumber(redis.call('GET', hitsKey) or '0'), redis.call('PTTL', hitsKey), 1, blockLeft }
end
local hits = redis.call('INCR', hitsKey)
local left = redis.call('PTTL', hitsKey)
if left < 0 then
  redis.call('PEXPIRE', hitsKey, ttl)
  left = ttl
end
if hits > limit and block > 0 then
  redis.call('SET', blockKey, '1', 'PX', block)
  redis.call('DEL', hitsKey)
  return { hits, left, 1, block }
end
return { hits, left, 0, 0 }
`;

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

type RedisWithIncrement = Redis & {
  throttlerIncrement(
    hitsKey: string,
    blockKey: string,
    ttl: number,
    limit: number,
    block: number,
  ): Promise<[number, number, number, number]>;
};

/**
 * `@nestjs/throttler` storage in Redis, so a limit holds across every API node. While Redis is
 * unreachable it counts in this process instead of failing the request.
 */
export class RedisThrottlerStorage implements ThrottlerStorage {
  private readonly logger = new Logger('RateLimit');
  private readonly fallback = new ThrottlerStorageService();
  private readonly redis: RedisWithIncrement;
  private readonly keys: RedisKeys;
  private warned = false;

  constructor(
    redis: Redis,
    prefix: string,
    private readonly timeoutMs = 1000,
  ) {
    redis.defineCommand('throttlerIncrement', { numberOfKeys: 2, lua: INCREMENT });
    this.redis = redis as RedisWithIncrement;
    this.keys = redisKeys(prefix);
  }

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    if (this.redis.status === 'ready') {
      try {
        const base = `${this.keys.rateLimit(throttlerName)}:${key}`;
        const [hits, left, blocked, blockLeft] = await withTimeout(
          this.redis.throttlerIncrement(`${base}:hits`, `${base}:block`, ttl, limit, blockDuration),
          this.timeoutMs,
        );
        this.warned = false;
        return {
          totalHits: hits,
          timeToExpire: Math.max(0, Math.ceil(left / 1000)),
          isBlocked: blocked === 1,
          timeToBlockExpire: Math.max(0, Math.ceil(blockLeft / 1000)),
        };
      } catch (err) {
        this.warnOnce((err as Error).message);
      }
    } else {
      this.warnOnce(`connection ${this.redis.status}`);
    }
    return this.fallback.increment(key, ttl, limit, blockDuration, throttlerName);
  }

  private warnOnce(reason: string): void {
    if (this.warned) return;
    this.warned = true;
    this.logger.warn(`Redis unavailable for rate limits (${reason}); counting on this node`);
  }
}
