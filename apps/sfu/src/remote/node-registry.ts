/**
 * An API node's view of the SFU nodes registered in Redis, and the election of the one API node
 * (the leader, a Redis lock) that aggregates counts and runs the stations' lifecycle.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RedisKeys } from '../protocol/keys.js';
import { parseRedisJson } from '../protocol/redis-json.js';
import { clusterEngine, NodeEvent, NodeInfo } from '../protocol/schemas.js';

export interface NodeRegistryHooks {
  /** Every live node's record, read at each refresh. */
  onNodes(infos: NodeInfo[]): void;
  /** A node left this API node's view (record expired, or it said goodbye). */
  onNodeGone(nodeId: string): void;
  /** Leader only: a node is dead for the cluster; whatever it held must be cleaned up once. */
  onNodeDead(nodeId: string): void;
  /** This API node became the leader. */
  onLeadership(): void;
  /** An event a node published (validated). */
  onEvent(e: NodeEvent): void;
  warn(message: string): void;
}

export interface NodeRegistryOptions {
  redis: Redis;
  keys: RedisKeys;
  /** How often the registry is read and the leader lock renewed (ms). */
  refreshMs: number;
}

export class NodeRegistry {
  /** This API node's id in the leader election. */
  readonly id = randomUUID();
  private readonly nodes = new Map<string, NodeInfo>();
  /** Live nodes left out because they run another engine than the cluster's (logged once each). */
  private readonly otherEngine = new Set<string>();
  private readonly sub: Redis;
  private leader = false;
  private timer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly o: NodeRegistryOptions,
    private readonly hooks: NodeRegistryHooks,
  ) {
    this.sub = o.redis.duplicate();
    this.sub.on('error', (err: Error) => hooks.warn(`redis: ${err.message}`));
    this.sub.on('message', (_channel: string, message: string) => this.onMessage(message));
  }

  async start(): Promise<void> {
    await this.sub.subscribe(this.o.keys.events);
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.o.refreshMs);
    this.timer.unref();
  }

  live(): NodeInfo[] {
    return [...this.nodes.values()];
  }

  get(nodeId: string): NodeInfo | undefined {
    return this.nodes.get(nodeId);
  }

  isLeader(): boolean {
    return this.leader;
  }

  /** Fresher figures for one node (read from the node itself). */
  update(info: NodeInfo): void {
    if (this.nodes.has(info.id)) this.nodes.set(info.id, info);
  }

  /** The node said it is draining: placement skips it now, not at the next refresh. */
  markDraining(nodeId: string): void {
    const info = this.nodes.get(nodeId);
    if (info) this.nodes.set(nodeId, { ...info, draining: true });
  }

  async refresh(): Promise<void> {
    if (this.closed) return;
    try {
      const { redis, keys } = this.o;
      const ids = await redis.smembers(keys.nodes);
      const raws = ids.length ? await redis.mget(ids.map((id) => keys.node(id))) : [];
      const seen = new Set<string>();
      const dead: string[] = [];
      const infos: NodeInfo[] = [];
      ids.forEach((id, i) => {
        const info = parseRedisJson(NodeInfo, raws[i]);
        if (!info) return void dead.push(id);
        infos.push(info);
      });
      // every node of a cluster runs one engine (the oldest live node's): another is ignored
      const cluster = clusterEngine(infos);
      for (const info of infos) {
        const engine = info.engine ?? 'werift';
        if (cluster && engine !== cluster.engine) {
          if (!this.otherEngine.has(info.id)) {
            this.otherEngine.add(info.id);
            this.hooks.warn(
              `SFU node ${info.id} ignored: it runs the ${engine} engine, the cluster runs ${cluster.engine} (its oldest node ${cluster.node}); every SFU node of a cluster runs one engine (MEDIA_ENGINE)`,
            );
          }
          continue;
        }
        if (this.otherEngine.delete(info.id))
          this.hooks.warn(`SFU node ${info.id} (${engine}) joins: the cluster now runs ${engine}`);
        seen.add(info.id);
        this.nodes.set(info.id, info);
      }
      for (const id of this.otherEngine) if (!ids.includes(id)) this.otherEngine.delete(id);
      for (const id of [...this.nodes.keys()]) if (!seen.has(id)) this.drop(id);
      await this.elect();
      this.hooks.onNodes(this.live());
      if (this.leader) {
        for (const id of dead) {
          this.hooks.onNodeDead(id);
          await redis.srem(keys.nodes, id);
        }
      }
    } catch (err) {
      this.hooks.warn(`registry refresh: ${(err as Error).message}`);
    }
  }

  /** The node is gone from this API node's view. */
  drop(nodeId: string): void {
    if (!this.nodes.delete(nodeId)) return;
    this.hooks.warn(`SFU node ${nodeId} left the cluster`);
    this.hooks.onNodeGone(nodeId);
  }

  private async elect(): Promise<void> {
    const { redis, keys } = this.o;
    const ttl = Math.max(3000, this.o.refreshMs * 5);
    const was = this.leader;
    if ((await redis.set(keys.leader, this.id, 'PX', ttl, 'NX')) === 'OK') this.leader = true;
    else {
      this.leader = (await redis.get(keys.leader)) === this.id;
      if (this.leader) await redis.pexpire(keys.leader, ttl);
    }
    if (this.leader && !was) this.hooks.onLeadership();
  }

  private onMessage(message: string): void {
    let json: unknown;
    try {
      json = JSON.parse(message);
    } catch {
      return;
    }
    const e = NodeEvent.safeParse(json);
    if (!e.success) return this.hooks.warn(`dropped a malformed node event: ${e.error.message}`);
    this.hooks.onEvent(e.data);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.leader) await this.o.redis.del(this.o.keys.leader).catch(() => 0);
    this.sub.disconnect();
  }
}
