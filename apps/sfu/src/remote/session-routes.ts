/**
 * Where sessions and stations live in the cluster: which SFU node holds a WHIP/WHEP session (so any
 * API node can end it), which node is a station's origin, and every session routed to a node (so
 * they are declared gone once when the node dies).
 */
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { RedisKeys } from '../protocol/keys.js';
import { parseRedisJson } from '../protocol/redis-json.js';

export const SessionRoute = z.object({
  stationId: z.string(),
  nodeId: z.string(),
  kind: z.enum(['publisher', 'listener']),
});
export type SessionRoute = z.infer<typeof SessionRoute>;

/** A route outlives any real session: it is deleted when the session ends, this bounds leftovers. */
const ROUTE_TTL_S = 24 * 3600;

export class SessionRoutes {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async set(sessionId: string, route: SessionRoute): Promise<void> {
    const set = this.keys.nodeSessions(route.nodeId);
    await this.redis
      .multi()
      .set(this.keys.route(sessionId), JSON.stringify(route), 'EX', ROUTE_TTL_S)
      .sadd(set, sessionId)
      .expire(set, ROUTE_TTL_S)
      .exec();
  }

  async get(sessionId: string): Promise<SessionRoute | null> {
    return parseRedisJson(SessionRoute, await this.redis.get(this.keys.route(sessionId)));
  }

  async delete(sessionId: string, route: SessionRoute): Promise<void> {
    await this.redis
      .multi()
      .del(this.keys.route(sessionId))
      .srem(this.keys.nodeSessions(route.nodeId), sessionId)
      .exec();
  }

  /** Removes every route to the node and returns them. */
  async takeNode(nodeId: string): Promise<[string, SessionRoute][]> {
    const set = this.keys.nodeSessions(nodeId);
    const ids = await this.redis.smembers(set);
    if (ids.length === 0) return [];
    const raws = await this.redis.mget(ids.map((id) => this.keys.route(id)));
    await this.redis.del(set, ...ids.map((id) => this.keys.route(id)));
    const out: [string, SessionRoute][] = [];
    ids.forEach((id, i) => {
      const route = parseRedisJson(SessionRoute, raws[i]);
      if (route?.nodeId === nodeId) out.push([id, route]);
    });
    return out;
  }

  origin(stationId: string): Promise<string | null> {
    return this.redis.get(this.keys.origin(stationId));
  }

  async setOrigin(stationId: string, nodeId: string): Promise<void> {
    await this.redis.set(this.keys.origin(stationId), nodeId);
  }

  async clearOrigin(stationId: string): Promise<void> {
    await this.redis.del(this.keys.origin(stationId));
  }
}
