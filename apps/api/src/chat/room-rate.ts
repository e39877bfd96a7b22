import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { withTimeout } from '../common/with-timeout.js';
import { TokenBucket } from '../realtime/token-bucket.js';

/**
 * One atomic token-bucket step on Redis's own clock, so every API node draws from the same bucket:
 * `burst` tokens at once, refilled at `rate` a second. Returns 1 when a token was taken, else 0.
 */
const TAKE = `
local key = KEYS[1]
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', key, 'tokens', 'at')
local tokens, at = tonumber(state[1]), tonumber(state[2])
if tokens == nil or at == nil then
  tokens, at = burst, now
end
tokens = math.min(burst, tokens + math.max(0, now - at) * rate / 1000)
local taken = 0
if tokens >= 1 then
  tokens = tokens - 1
  taken = 1
end
redis.call('HSET', key, 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', key, math.ceil(burst / rate * 1000) + 1000)
return taken
`;

type RedisWithTake = Redis & {
  chatRoomTake(key: string, rate: number, burst: number): Promise<number>;
};

/**
 * The per-room chat rate limit, shared by every API node through Redis (a flood split across
 * nodes is still limited). Without Redis, or while it is unreachable, each node counts alone.
 */
export class RoomRateLimit {
  private readonly logger = new Logger('ChatRoomRate');
  private readonly local = new Map<string, TokenBucket>();
  private readonly redis: RedisWithTake | null;
  private warned = false;

  constructor(
    redis: Redis | null,
    private readonly prefix: string,
    readonly perSecond: number,
    readonly burst = 2 * perSecond,
    private readonly timeoutMs = 1000,
  ) {
    if (redis) redis.defineCommand('chatRoomTake', { numberOfKeys: 1, lua: TAKE });
    this.redis = redis as RedisWithTake | null;
  }

  /** Takes one message's token from the room's bucket; false when the room is at its limit. */
  async take(stationId: string): Promise<boolean> {
    if (this.perSecond <= 0) return true;
    if (this.redis?.status === 'ready') {
      try {
        const taken = await withTimeout(
          this.redis.chatRoomTake(
            `${this.prefix}:room-rate:${stationId}`,
            this.perSecond,
            this.burst,
          ),
          this.timeoutMs,
          'chat room rate',
        );
        this.warned = false;
        return taken === 1;
      } catch (err) {
        this.warnOnce((err as Error).message);
      }
    } else if (this.redis) {
      this.warnOnce(`connection ${this.redis.status}`);
    }
    return this.takeLocal(stationId);
  }

  private takeLocal(stationId: string): boolean {
    let bucket = this.local.get(stationId);
    if (!bucket) {
      if (this.local.size > 10_000) this.local.clear();
      this.local.set(stationId, (bucket = new TokenBucket(this.perSecond, this.burst)));
    }
    return bucket.take();
  }

  private warnOnce(reason: string): void {
    if (this.warned) return;
    this.warned = true;
    this.logger.warn(
      `Redis unavailable for the chat room limit (${reason}); counting on this node`,
    );
  }
}
