/**
 * A node's presence in the cluster: its record in Redis (renewed by a heartbeat), its events on the
 * cluster's channel, and what it reads of the cluster (a station's origin, another node's record).
 */
import { Redis } from 'ioredis';
import { redisKeys, type RedisKeys } from '../protocol/keys.js';
import { NodeInfo, type NodeEventBody } from '../protocol/schemas.js';
import type { SfuNodeConfig } from './config.js';

export class NodeRegistration {
  private readonly redis: Redis;
  private readonly keys: RedisKeys;
  private heartbeat?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly id: string,
    private readonly cfg: Pick<SfuNodeConfig, 'prefix' | 'redisUrl' | 'nodeTtlMs'>,
    /** The node's record as it stands now. */
    private readonly info: () => NodeInfo,
  ) {
    this.keys = redisKeys(cfg.prefix);
    this.redis = new Redis(cfg.redisUrl, { maxRetriesPerRequest: 2 });
    this.redis.on('error', (err: Error) => console.warn(`[sfu-node] redis: ${err.message}`));
  }

  async register(): Promise<void> {
    await this.redis
      .multi()
      .set(this.keys.node(this.id), JSON.stringify(this.info()), 'PX', this.cfg.nodeTtlMs)
      .sadd(this.keys.nodes, this.id)
      .exec();
  }

  /** Renews the record every quarter of its TTL, then runs `alsoEachBeat` (errors are logged). */
  startHeartbeat(alsoEachBeat: () => Promise<void>): void {
    const every = Math.max(250, Math.floor(this.cfg.nodeTtlMs / 4));
    this.heartbeat = setInterval(() => void this.tick(alsoEachBeat), every);
  }

  private async tick(alsoEachBeat: () => Promise<void>): Promise<void> {
    if (this.stopped) return;
    try {
      await this.register();
      await alsoEachBeat();
    } catch (err) {
      console.warn(`[sfu-node] heartbeat: ${(err as Error).message}`);
    }
  }

  async emit(body: NodeEventBody): Promise<void> {
    try {
      await this.redis.publish(this.keys.events, JSON.stringify({ ...body, node: this.id }));
    } catch (err) {
      console.warn(`[sfu-node] event ${body.type}: ${(err as Error).message}`);
    }
  }

  /** The node where the station's publisher is, if any. */
  origin(stationId: string): Promise<string | null> {
    return this.redis.get(this.keys.origin(stationId));
  }

  /** Every live node's record (this node's too once registered). */
  async liveNodes(): Promise<NodeInfo[]> {
    const ids = await this.redis.smembers(this.keys.nodes);
    const raws = ids.length ? await this.redis.mget(ids.map((id) => this.keys.node(id))) : [];
    return raws.flatMap((raw) => {
      if (!raw) return [];
      const info = NodeInfo.safeParse(JSON.parse(raw));
      return info.success ? [info.data] : [];
    });
  }

  /** Another node's record, if it is live. */
  async node(nodeId: string): Promise<NodeInfo | null> {
    const raw = await this.redis.get(this.keys.node(nodeId));
    return raw ? NodeInfo.parse(JSON.parse(raw)) : null;
  }

  stopHeartbeat(): void {
    this.stopped = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
  }

  /** Takes the node's record out of the cluster. */
  async deregister(): Promise<void> {
    await this.redis
      .multi()
      .del(this.keys.node(this.id))
      .srem(this.keys.nodes, this.id)
      .exec()
      .catch(() => undefined);
  }

  disconnect(): void {
    this.redis.disconnect();
  }
}
