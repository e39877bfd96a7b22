import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { ActiveListener } from '@radiobroadcaster/contracts';
import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { EventBus } from '../events/event-bus.js';
import { RedisService } from '../redis/redis.service.js';

/** How long listeners without a grant hear a station that just became private (the player's notice). */
export const PRIVATE_NOTICE_MS = 10_000;

/** A node renews its listeners in the shared list this often… */
export const LISTENING_RENEW_MS = 5_000;
/** …and a listener it stops renewing (the node died) leaves the list after this long. */
export const LISTENING_TTL_MS = 20_000;

/** Someone listening now, with the grant they listen by (`invite:{id}`…, null: public). */
export interface SharedListener extends ActiveListener {
  gid: string | null;
}

/** A listener as the shared list keeps it, with when it expires unless renewed (ms). */
interface StoredListener extends SharedListener {
  exp: number;
}

/** A listening session on this node, with how its listener got in. */
export interface HeldSession {
  stationId: string;
  /** The grant it was opened with (`invite:{id}`…), null for a public admission. */
  gid: string | null;
  via: string;
  lid: string;
  label: string;
  transport: 'webrtc' | 'http';
  since: Date;
  /** Ends it now (closes the HTTP stream, removes the WebRTC listener). */
  end: () => void;
}

/**
 * The listening sessions opened on this node, so a revocation ends them: every node gets
 * `station.accessRevoked` on the bus (a Redis stream across nodes, in-process otherwise; while
 * Redis is away the node that made the change acts at once and the others when it is back) and
 * ends its own. A station turned private ends, after {@link PRIVATE_NOTICE_MS}, those whose
 * grant does not admit to it (`check`, set by the access module). Who listens, with how they got
 * in, is shared across nodes for the owner's list ({@link listening}).
 */
@Injectable()
export class AccessSessions implements OnModuleDestroy {
  private readonly logger = new Logger('AccessSessions');
  private readonly held = new Set<HeldSession>();
  /** Each held session's field in the shared list (`{node}:{session}`). */
  private readonly fields = new Map<HeldSession, string>();
  private readonly nodeId = randomUUID();
  private readonly redis: Redis | null;
  private readonly prefix: string;
  private readonly renewTimer: NodeJS.Timeout;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly off: (() => void)[];
  /** Whether a session's grant still admits (AccessService.grantValid). */
  check: (s: HeldSession) => Promise<boolean> = async () => true;

  constructor(
    @Inject(EventBus) bus: EventBus,
    @Inject(RedisService) redis: RedisService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.redis = redis.client;
    this.prefix = `${config.redisPrefix}:access-listening`;
    this.renewTimer = setInterval(() => void this.renew(), LISTENING_RENEW_MS);
    this.renewTimer.unref();
    this.off = [
      bus.subscribe('station.accessRevoked', ({ stationId, gids, allInvites }) => {
        const revoked = new Set(gids);
        for (const s of [...this.held]) {
          if (s.stationId !== stationId || !s.gid) continue;
          if (revoked.has(s.gid) || (allInvites && s.gid.startsWith('invite:'))) this.endOne(s);
        }
      }),
      // a deleted account left the listener lists (a database trigger): its sessions end
      bus.subscribe('user.deleted', () => {
        for (const stationId of new Set([...this.held].map((s) => s.stationId)))
          void this.sweep(stationId);
      }),
      bus.subscribe('station.visibilityChanged', ({ stationId, visibility }) => {
        if (visibility !== 'private') return;
        const t = setTimeout(() => {
          this.timers.delete(t);
          void this.sweep(stationId);
        }, PRIVATE_NOTICE_MS);
        this.timers.add(t);
      }),
    ];
  }

  /** Keeps `s` until the returned function is called (when the session ends anyway). */
  add(s: HeldSession): () => void {
    this.held.add(s);
    const field = `${this.nodeId}:${randomUUID()}`;
    this.fields.set(s, field);
    if (this.redis) {
      const key = this.key(s.stationId);
      void this.redis
        .multi()
        .hset(key, field, JSON.stringify(this.stored(s, Date.now() + LISTENING_TTL_MS)))
        .pexpire(key, LISTENING_TTL_MS * 2)
        .exec()
        .catch((err: Error) => this.logger.warn(`listener not shared: ${err.message}`));
    }
    return () => this.forget(s);
  }

  /** This node's sessions of `stationId`. */
  of(stationId: string): HeldSession[] {
    return [...this.held].filter((s) => s.stationId === stationId);
  }

  /**
   * Who listens to `stationId` now, on every API node (with Redis: a hash per station that each
   * node renews for its own listeners; a node that dies stops renewing and its listeners leave
   * within {@link LISTENING_TTL_MS}); this node's alone without Redis, or while it is away.
   */
  async listening(stationId: string): Promise<SharedListener[]> {
    const local = this.of(stationId).map((s) => this.view(s));
    if (!this.redis) return local;
    try {
      const key = this.key(stationId);
      const all = await this.redis.hgetall(key);
      const now = Date.now();
      const live: SharedListener[] = [];
      const dead: string[] = [];
      for (const [field, v] of Object.entries(all)) {
        const { exp, ...e } = JSON.parse(v) as StoredListener;
        if (exp > now) live.push(e);
        else dead.push(field);
      }
      if (dead.length) await this.redis.hdel(key, ...dead);
      return live.sort((a, b) => a.since.localeCompare(b.since));
    } catch (err) {
      this.logger.warn(`shared listener list unavailable: ${(err as Error).message}`);
      return local;
    }
  }

  private key(stationId: string): string {
    return `${this.prefix}:${stationId}`;
  }

  private view(s: HeldSession): SharedListener {
    return {
      gid: s.gid,
      listener: s.lid.slice(0, 8),
      via: s.via,
      label: s.label,
      transport: s.transport,
      since: s.since.toISOString(),
    };
  }

  private stored(s: HeldSession, exp: number): StoredListener {
    return { ...this.view(s), exp };
  }

  private forget(s: HeldSession): void {
    this.held.delete(s);
    const field = this.fields.get(s);
    this.fields.delete(s);
    if (field && this.redis)
      void this.redis
        .hdel(this.key(s.stationId), field)
        .catch((err: Error) => this.logger.warn(`listener not unshared: ${err.message}`));
  }

  /** Renews this node's listeners in the shared list. */
  private async renew(): Promise<void> {
    if (!this.redis || this.fields.size === 0) return;
    try {
      const exp = Date.now() + LISTENING_TTL_MS;
      const multi = this.redis.multi();
      for (const [s, field] of this.fields) {
        const key = this.key(s.stationId);
        multi.hset(key, field, JSON.stringify(this.stored(s, exp)));
        multi.pexpire(key, LISTENING_TTL_MS * 2);
      }
      await multi.exec();
    } catch (err) {
      this.logger.warn(`listener list renewal: ${(err as Error).message}`);
    }
  }

  /** Ends the sessions of `stationId` whose grant no longer admits. */
  async sweep(stationId: string): Promise<void> {
    for (const s of this.of(stationId)) {
      try {
        if (!(await this.check(s))) this.endOne(s);
      } catch (err) {
        this.logger.warn(`access check failed: ${(err as Error).message}`);
      }
    }
  }

  private endOne(s: HeldSession): void {
    this.forget(s);
    try {
      s.end();
    } catch (err) {
      this.logger.warn(`could not end a listener: ${(err as Error).message}`);
    }
  }

  onModuleDestroy(): void {
    clearInterval(this.renewTimer);
    for (const o of this.off) o();
    for (const t of this.timers) clearTimeout(t);
  }
}
