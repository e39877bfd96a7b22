import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { EventBus } from '../events/event-bus.js';

/** How long listeners without a grant hear a station that just became private (the player's notice). */
export const PRIVATE_NOTICE_MS = 10_000;

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
 * grant does not admit to it (`check`, set by the access module).
 */
@Injectable()
export class AccessSessions implements OnModuleDestroy {
  private readonly logger = new Logger('AccessSessions');
  private readonly held = new Set<HeldSession>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly off: (() => void)[];
  /** Whether a session's grant still admits (AccessService.grantValid). */
  check: (s: HeldSession) => Promise<boolean> = async () => true;

  constructor(@Inject(EventBus) bus: EventBus) {
    this.off = [
      bus.subscribe('station.accessRevoked', ({ stationId, gids, allInvites }) => {
        const revoked = new Set(gids);
        for (const s of [...this.held]) {
          if (s.stationId !== stationId || !s.gid) continue;
          if (revoked.has(s.gid) || (allInvites && s.gid.startsWith('invite:'))) this.endOne(s);
        }
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
    return () => this.held.delete(s);
  }

  of(stationId: string): HeldSession[] {
    return [...this.held].filter((s) => s.stationId === stationId);
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
    this.held.delete(s);
    try {
      s.end();
    } catch (err) {
      this.logger.warn(`could not end a listener: ${(err as Error).message}`);
    }
  }

  onModuleDestroy(): void {
    for (const o of this.off) o();
    for (const t of this.timers) clearTimeout(t);
  }
}
