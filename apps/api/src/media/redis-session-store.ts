/** The session store of cluster mode: every API node sees the same records, through Redis. */
import { redisKeys, parseRedisJson, type RedisKeys } from '@radiobroadcaster/sfu';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { slotsByAddress } from './viewer-count.js';
import {
  RECORD_TTL_MS,
  SessionStore,
  type Admission,
  type ListenerCaps,
  type ListenerSlot,
  type PublisherRecord,
  type SessionRecord,
} from './session-store.js';

const PublisherRecordSchema = z.object({
  sessionId: z.string(),
  tokenId: z.string(),
  userId: z.string(),
});

const SessionRecordSchema = z.object({
  stationId: z.string(),
  kind: z.enum(['publisher', 'listener']),
  tokenHash: z.string().nullable(),
  slot: z.object({ id: z.string(), ip: z.string(), stationId: z.string() }).nullable(),
  publisher: PublisherRecordSchema.omit({ sessionId: true }).optional(),
});

/**
 * KEYS: slots of the IP, slots of the station. ARGV: slot id, now, caps per IP and per station,
 * TTL. Stale slots (older than the TTL) are dropped first; then the slot is taken in both sets, or
 * the reason it can't be: 1 = the IP is full, 2 = the station is full.
 */
const ADMIT = `
local now = tonumber(ARGV[2])
local ttl = tonumber(ARGV[5])
for i = 1, 2 do redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - ttl) end
if tonumber(ARGV[3]) > 0 and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 1 end
if tonumber(ARGV[4]) > 0 and redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 2 end
for i = 1, 2 do
  redis.call('ZADD', KEYS[i], now, ARGV[1])
  redis.call('PEXPIRE', KEYS[i], ttl)
end
return 0
`;

export class RedisSessionStore extends SessionStore {
  private readonly keys: RedisKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    super();
    this.keys = redisKeys(prefix);
  }

  async publisher(stationId: string): Promise<PublisherRecord | null> {
    return parseRedisJson(
      PublisherRecordSchema,
      await this.redis.get(this.keys.publisher(stationId)),
    );
  }
  async setPublisher(stationId: string, rec: PublisherRecord): Promise<void> {
    await this.redis.set(this.keys.publisher(stationId), JSON.stringify(rec), 'PX', RECORD_TTL_MS);
  }
  async clearPublisher(stationId: string): Promise<void> {
    await this.redis.del(this.keys.publisher(stationId));
  }

  async session(sessionId: string): Promise<SessionRecord | null> {
    return parseRedisJson(SessionRecordSchema, await this.redis.get(this.keys.session(sessionId)));
  }
  async putSession(sessionId: string, rec: SessionRecord): Promise<void> {
    await this.redis.set(this.keys.session(sessionId), JSON.stringify(rec), 'PX', RECORD_TTL_MS);
  }
  async takeSession(sessionId: string): Promise<SessionRecord | null> {
    const rec = parseRedisJson(
      SessionRecordSchema,
      await this.redis.getdel(this.keys.session(sessionId)),
    );
    if (rec?.slot) await this.releaseListener(rec.slot);
    return rec;
  }

  async claimToken(tokenId: string, ttlMs: number): Promise<boolean> {
    const ok = await this.redis.set(this.keys.listenerToken(tokenId), '1', 'PX', ttlMs, 'NX');
    return ok === 'OK';
  }
  async releaseToken(tokenId: string): Promise<void> {
    await this.redis.del(this.keys.listenerToken(tokenId));
  }

  async admitListener(slot: ListenerSlot, caps: ListenerCaps): Promise<Admission> {
    const code = await this.redis.eval(
      ADMIT,
      2,
      this.keys.listenersByIp(slot.ip),
      this.keys.listenersByStation(slot.stationId),
      slot.id,
      Date.now(),
      caps.perIp,
      caps.perStation,
      RECORD_TTL_MS,
    );
    return code === 1 ? 'ip-full' : code === 2 ? 'station-full' : 'ok';
  }
  async releaseListener(slot: ListenerSlot): Promise<void> {
    await this.redis
      .multi()
      .zrem(this.keys.listenersByIp(slot.ip), slot.id)
      .zrem(this.keys.listenersByStation(slot.stationId), slot.id)
      .exec();
  }

  async listenersByAddress(stationId: string): Promise<Map<string, number>> {
    const key = this.keys.listenersByStation(stationId);
    const [, ids] = (await this.redis
      .multi()
      .zremrangebyscore(key, '-inf', Date.now() - RECORD_TTL_MS)
      .zrange(key, 0, -1)
      .exec())!;
    return slotsByAddress((ids?.[1] as string[] | undefined) ?? []);
  }

  async once(key: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(this.keys.once(key), '1', 'PX', ttlMs, 'NX')) === 'OK';
  }

  async close(): Promise<void> {
    // The connection belongs to whoever made it.
  }
}
