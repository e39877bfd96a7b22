import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { PresenceListener } from '@radiobroadcaster/contracts';
import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { RedisService } from '../redis/redis.service.js';

/** One page (socket) in a station's room. */
export interface PresenceEntry {
  userId: string | null;
  guestId: string | null;
  name: string | null;
  username: string | null;
  avatarUrl: string | null;
  /** The user chose to show as listening (guests show only once they named themselves in chat). */
  visible: boolean;
  playing: boolean;
}

interface Stored extends PresenceEntry {
  /** When this entry expires unless its node renews it (ms since the epoch). */
  exp: number;
}

/** A node renews its entries this often; an entry it stops renewing goes after ENTRY_TTL_MS. */
export const HEARTBEAT_MS = 5_000;
export const ENTRY_TTL_MS = 20_000;

/**
 * Who is in each station's room, across API nodes: with Redis one hash per station (field = socket,
 * value = entry with its expiry) that each node renews for its own sockets; in process otherwise.
 * A node that dies stops renewing, and its entries expire within ENTRY_TTL_MS + one sweep.
 */
@Injectable()
export class PresenceRegistry implements OnModuleDestroy {
  private readonly logger = new Logger('PresenceRegistry');
  readonly nodeId = randomUUID();
  private readonly redis: Redis | null;
  private readonly prefix: string;
  /** This node's entries: station → socket → entry. */
  private readonly local = new Map<string, Map<string, PresenceEntry>>();
  private readonly timer: NodeJS.Timeout;
  /** Called with a station whose entries expired (a node went away). */
  onExpired: (stationId: string) => void = () => {};

  constructor(@Inject(RedisService) redis: RedisService, @Inject(APP_CONFIG) config: AppConfig) {
    this.redis = redis.client;
    this.prefix = `${config.redisPrefix}:presence`;
    this.timer = setInterval(() => void this.tick(), HEARTBEAT_MS);
    this.timer.unref();
  }

  private hashKey(stationId: string) {
    return `${this.prefix}:${stationId}`;
  }

  async set(stationId: string, socketId: string, entry: PresenceEntry): Promise<void> {
    let m = this.local.get(stationId);
    if (!m) this.local.set(stationId, (m = new Map()));
    const before = m.get(socketId);
    m.set(socketId, entry);
    if (!this.redis) return;
    if (!listed(entry)) {
      // Only named, visible people are listed: the anonymous thousands stay on their node.
      if (before && listed(before))
        await this.redis
          .hdel(this.hashKey(stationId), socketId)
          .catch((err: Error) => this.logger.warn(`presence not removed: ${err.message}`));
      return;
    }
    const stored: Stored = { ...entry, exp: Date.now() + ENTRY_TTL_MS };
    await this.redis
      .multi()
      .hset(this.hashKey(stationId), socketId, JSON.stringify(stored))
      .sadd(`${this.prefix}:stations`, stationId)
      .exec()
      .catch((err: Error) => this.logger.warn(`presence not stored: ${err.message}`));
  }

  get(stationId: string, socketId: string): PresenceEntry | undefined {
    return this.local.get(stationId)?.get(socketId);
  }

  /** Drops a socket's entry; true when it was listed (the list changed). */
  async remove(stationId: string, socketId: string): Promise<boolean> {
    const m = this.local.get(stationId);
    const before = m?.get(socketId);
    m?.delete(socketId);
    if (m?.size === 0) this.local.delete(stationId);
    if (!before || !listed(before)) return false;
    if (!this.redis) return true;
    await this.redis
      .hdel(this.hashKey(stationId), socketId)
      .catch((err: Error) => this.logger.warn(`presence not removed: ${err.message}`));
    return true;
  }

  /** Every live entry of the station, on every node (with Redis: the named, visible ones). */
  async entries(stationId: string): Promise<PresenceEntry[]> {
    if (!this.redis) return [...(this.local.get(stationId)?.values() ?? [])];
    const all = await this.redis.hgetall(this.hashKey(stationId));
    const now = Date.now();
    const live: PresenceEntry[] = [];
    for (const v of Object.values(all)) {
      const e = JSON.parse(v) as Stored;
      if (e.exp > now) live.push(e);
    }
    return live;
  }

  /** The named people of a station's presence list and how many of them are listening. */
  async listeners(stationId: string): Promise<{ listeners: PresenceListener[]; named: number }> {
    const byPerson = new Map<string, PresenceListener>();
    for (const e of await this.entries(stationId)) {
      if (!e.visible || !e.name) continue;
      const key = e.userId ? `u:${e.userId}` : `g:${e.guestId}`;
      const state = e.playing ? 'listening' : 'chat';
      const prev = byPerson.get(key);
      if (prev && prev.state === 'listening') continue;
      byPerson.set(key, {
        name: e.name,
        username: e.username,
        avatarUrl: e.avatarUrl,
        state,
        kind: e.userId ? 'user' : 'guest',
      });
    }
    const listeners = [...byPerson.values()].sort(
      (a, b) =>
        (a.state === b.state ? 0 : a.state === 'listening' ? -1 : 1) ||
        a.name.localeCompare(b.name),
    );
    return { listeners, named: listeners.filter((l) => l.state === 'listening').length };
  }

  /** Renews this node's entries and drops the expired entries of other nodes. */
  private async tick(): Promise<void> {
    if (!this.redis) return;
    try {
      const exp = Date.now() + ENTRY_TTL_MS;
      const multi = this.redis.multi();
      let renewed = 0;
      for (const [stationId, m] of this.local)
        for (const [socketId, e] of m)
          if (listed(e)) {
            multi.hset(this.hashKey(stationId), socketId, JSON.stringify({ ...e, exp }));
            renewed++;
          }
      if (renewed) await multi.exec();
      else multi.discard();
      await this.sweep();
    } catch (err) {
      this.logger.warn(`presence heartbeat: ${(err as Error).message}`);
    }
  }

  async sweep(): Promise<void> {
    if (!this.redis) return;
    const stations = await this.redis.smembers(`${this.prefix}:stations`);
    const now = Date.now();
    for (const stationId of stations) {
      const key = this.hashKey(stationId);
      const all = await this.redis.hgetall(key);
      const dead = Object.entries(all)
        .filter(([, v]) => (JSON.parse(v) as Stored).exp <= now)
        .map(([k]) => k);
      if (dead.length) {
        // Only the node whose delete removed them tells the room.
        const removed = await this.redis.hdel(key, ...dead);
        if (removed > 0) this.onExpired(stationId);
      }
      if (Object.keys(all).length === dead.length) {
        await this.redis.srem(`${this.prefix}:stations`, stationId);
        // A node may have added one in between: keep the station listed then.
        if ((await this.redis.hlen(key)) > 0)
          await this.redis.sadd(`${this.prefix}:stations`, stationId);
      }
    }
  }

  /** Local sockets of a station (for counting on this node). */
  localStations(): string[] {
    return [...this.local.keys()];
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** On a clean stop, this node's entries leave at once. */
  async close(): Promise<void> {
    if (!this.redis) return;
    const multi = this.redis.multi();
    for (const [stationId, m] of this.local)
      for (const [socketId, e] of m) if (listed(e)) multi.hdel(this.hashKey(stationId), socketId);
    await multi.exec().catch(() => undefined);
  }
}

/** Whether an entry is listed (and so kept in Redis for every node): a named person who shows. */
export function listed(e: PresenceEntry): boolean {
  return e.visible && !!e.name;
}
