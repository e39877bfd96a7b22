/**
 * Every Redis key and channel of the product, in one table (`p` = REDIS_PREFIX):
 * the SFU nodes' and the API's (sessions, rate limits).
 *
 * Written by SFU nodes:
 * - `p:sfu:nodes`                  SET of node ids seen (a node is live only while its record exists)
 * - `p:sfu:node:{id}`              JSON NodeInfo, PX = node TTL (default 5 s), renewed every ~1.2 s
 * - channel `p:sfu:events`         JSON NodeEvent
 *
 * Written by API nodes (cluster engine):
 * - `p:sfu:leader`                 the API node that aggregates counts and runs lifecycles (PX)
 * - `p:sfu:origin:{stationId}`     the node where the station's publisher is (its origin)
 * - `p:sfu:route:{sessionId}`      JSON SessionRoute: which node holds a session
 * - `p:sfu:node-sessions:{nodeId}` SET of the session ids routed to a node (cleanup when it dies)
 *
 * Written by API nodes (session store):
 * - `p:media:publisher:{stationId}` JSON PublisherRecord: the station's current publisher
 * - `p:media:session:{sessionId}`  JSON SessionRecord: a WHIP/WHEP session's owner and token
 * - `p:media:token:{tokenId}`      a listener token already opened its session
 * - `p:media:ip:{ip}`, `p:media:station:{id}` ZSET of listener slots (caps per IP and per station)
 * - `p:media:once:{key}`           a lifecycle step already taken by some API node
 *
 * Written by API nodes (rate limits, RedisThrottlerStorage; `rateLimit(name)` is the stem):
 * - `p:rl:{name}:{key}:hits`       hits in the current window (PX = the window)
 * - `p:rl:{name}:{key}:block`      set while the key is blocked (PX = the block)
 */
export const redisKeys = (p: string) => ({
  nodes: `${p}:sfu:nodes`,
  node: (id: string) => `${p}:sfu:node:${id}`,
  events: `${p}:sfu:events`,

  leader: `${p}:sfu:leader`,
  origin: (stationId: string) => `${p}:sfu:origin:${stationId}`,
  route: (sessionId: string) => `${p}:sfu:route:${sessionId}`,
  nodeSessions: (nodeId: string) => `${p}:sfu:node-sessions:${nodeId}`,

  publisher: (stationId: string) => `${p}:media:publisher:${stationId}`,
  session: (sessionId: string) => `${p}:media:session:${sessionId}`,
  listenerToken: (tokenId: string) => `${p}:media:token:${tokenId}`,
  listenersByIp: (ip: string) => `${p}:media:ip:${ip}`,
  listenersByStation: (stationId: string) => `${p}:media:station:${stationId}`,
  once: (key: string) => `${p}:media:once:${key}`,
  rateLimit: (name: string) => `${p}:rl:${name}`,
});

export type RedisKeys = ReturnType<typeof redisKeys>;

/** @deprecated the old name of {@link redisKeys} (it holds the API's keys too). */
export const mediaKeys = redisKeys;
/** @deprecated the old name of {@link RedisKeys}. */
export type MediaKeys = RedisKeys;
