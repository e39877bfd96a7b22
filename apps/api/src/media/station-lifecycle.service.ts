import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import type { EngineEvent, MediaEngine } from '@radiobroadcaster/sfu';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { EventBus } from '../events/event-bus.js';
import { StationsService } from '../stations/stations.service.js';
import { ListenerCounts } from './listener-counts.js';
import { MEDIA_ENGINE } from './media.providers.js';
import { SessionStore } from './session-store.js';

/** Long enough that every API node's copy of the same step has run; short enough to allow the next one. */
const ONCE_TTL_MS = 60_000;

/**
 * A station's life as the media engine reports it: live on the publisher's first media; when the
 * publisher goes, listeners stay connected for the grace period, then the station goes offline.
 * After a crash or the loss of an SFU node, live stations without a publisher take the same path.
 */
@Injectable()
export class StationLifecycle implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('StationLifecycle');
  /** stationId -> the grace timer and the publisher session it waits on (null: none known). */
  private readonly graces = new Map<string, { sessionId: string | null; timer: NodeJS.Timeout }>();
  private readonly off: (() => void)[] = [];

  constructor(
    @Inject(MEDIA_ENGINE) private readonly engine: MediaEngine,
    @Inject(SessionStore) private readonly sessions: SessionStore,
    @Inject(StationsService) private readonly stations: StationsService,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ListenerCounts) private readonly counts: ListenerCounts,
  ) {}

  onModuleInit(): void {
    this.off.push(this.engine.on((e) => void this.onEngineEvent(e)));
    this.off.push(
      this.bus.subscribe('station.ended', ({ stationId, lastActiveAt }) => {
        this.clearGrace(stationId);
        void this.closeEnded(stationId, lastActiveAt);
      }),
    );
  }

  /** After a crash or restart, stations the database still calls live may have no publisher. */
  onApplicationBootstrap(): void {
    void this.reconcile();
  }

  async onModuleDestroy(): Promise<void> {
    for (const off of this.off) off();
    const waiting = [...this.graces.keys()];
    for (const { timer } of this.graces.values()) clearTimeout(timer);
    this.graces.clear();
    // With the SFU in this process, no node is left to end its stations: they end now, before
    // the sources and listeners are cut (SFU nodes of a cluster stay, and so do their stations).
    if (!this.engine.clusterInfo) await this.endHere(waiting);
  }

  /** Stations whose publisher is in this process, or that wait for one here, go offline. */
  private async endHere(waiting: string[]): Promise<void> {
    try {
      for (const stationId of await this.stations.liveIds()) {
        const current = await this.sessions.publisher(stationId);
        const here =
          waiting.includes(stationId) ||
          (current && (await this.engine.hasSession(stationId, current.sessionId)) === 'publisher');
        if (!here) continue;
        await this.sessions.clearPublisher(stationId);
        await this.stations.transition(stationId, 'offline', false, true);
        await this.engine.closeStation(stationId);
        this.logger.log(`station ${stationId} ended: the server is shutting down`);
      }
    } catch (err) {
      this.logger.warn(`ending stations at shutdown: ${(err as Error).message}`);
    }
  }

  /** Every live station without a live publisher starts its grace period. */
  async reconcile(): Promise<void> {
    try {
      for (const stationId of await this.stations.liveIds()) {
        const current = await this.sessions.publisher(stationId);
        const alive =
          current && (await this.engine.hasSession(stationId, current.sessionId)) === 'publisher';
        if (!alive) this.startGrace(stationId, current?.sessionId ?? null);
      }
    } catch (err) {
      this.logger.warn(`reconcile: ${(err as Error).message}`);
    }
  }

  private async onEngineEvent(e: EngineEvent): Promise<void> {
    try {
      switch (e.type) {
        case 'publisher-media':
          this.clearGrace(e.stationId);
          await this.tookOver(e.stationId, e.sessionId);
          await this.stations.transition(e.stationId, 'live', true, true);
          break;
        case 'publisher-gone': {
          await this.sessions.takeSession(e.sessionId);
          const current = await this.sessions.publisher(e.stationId);
          // 'replaced': another publisher's media flows, the station is on the air
          if (current?.sessionId === e.sessionId && e.reason !== 'replaced')
            this.startGrace(e.stationId, e.sessionId);
          break;
        }
        case 'listeners':
          await this.counts.fromEngine(e.stationId, e.count);
          break;
        case 'listener-gone':
          await this.sessions.takeSession(e.sessionId);
          break;
        case 'resync':
          await this.reconcile();
          break;
      }
    } catch (err) {
      const station = 'stationId' in e ? ` for ${e.stationId}` : '';
      this.logger.warn(`engine event ${e.type}${station}: ${(err as Error).message}`);
    }
  }

  /** The publisher `sessionId` sends media: it is the station's publisher now (MediaEngine.publish). */
  private async tookOver(stationId: string, sessionId: string): Promise<void> {
    const current = await this.sessions.publisher(stationId);
    if (current?.sessionId === sessionId) return;
    const rec = await this.sessions.session(sessionId);
    if (rec?.stationId === stationId && rec.publisher)
      await this.sessions.setPublisher(stationId, { sessionId, ...rec.publisher });
  }

  /** The publisher `sessionId` (null: none known) is gone; the station goes offline unless one returns. */
  private startGrace(stationId: string, sessionId: string | null): void {
    if (this.graces.has(stationId) && this.graces.get(stationId)!.sessionId === sessionId) return;
    this.clearGrace(stationId);
    const timer = setTimeout(() => {
      this.graces.delete(stationId);
      void this.endGrace(stationId, sessionId);
    }, this.config.rtc.publisherGraceMs);
    this.graces.set(stationId, { sessionId, timer });
    void this.markReconnecting(stationId);
  }

  /** A publisher is connected again: a station still marked reconnecting is live. */
  private async backOnAir(stationId: string): Promise<void> {
    const station = await this.stations.entity(stationId);
    if (station.status === 'reconnecting')
      await this.stations.transition(stationId, 'live', true, false);
  }

  /** Listeners are told the station waits for its publisher (unless one came back meanwhile). */
  private async markReconnecting(stationId: string): Promise<void> {
    try {
      const station = await this.stations.entity(stationId);
      if (station.status === 'live' && this.graces.has(stationId))
        await this.stations.transition(stationId, 'reconnecting', true, false);
    } catch (err) {
      this.logger.warn(`reconnecting ${stationId}: ${(err as Error).message}`);
    }
  }

  private async endGrace(stationId: string, sessionId: string | null): Promise<void> {
    try {
      const current = await this.sessions.publisher(stationId);
      // A publisher reconnected meanwhile (maybe through another API node), or the station ended.
      if (
        (current?.sessionId ?? null) !== sessionId ||
        (current && (await this.engine.hasSession(stationId, current.sessionId)))
      ) {
        if (current && (await this.engine.hasSession(stationId, current.sessionId)) === 'publisher')
          await this.backOnAir(stationId);
        return;
      }
      if (!(await this.sessions.once(`offline:${stationId}:${sessionId}`, ONCE_TTL_MS))) return;
      await this.sessions.clearPublisher(stationId);
      const station = await this.stations.entity(stationId);
      if (station.status === 'live' || station.status === 'reconnecting')
        await this.stations.transition(stationId, 'offline', false, true);
      await this.engine.closeStation(stationId);
    } catch (err) {
      this.logger.warn(`offline transition for ${stationId}: ${(err as Error).message}`);
    }
  }

  private clearGrace(stationId: string): void {
    const grace = this.graces.get(stationId);
    if (grace) clearTimeout(grace.timer);
    this.graces.delete(stationId);
  }

  /** Ended by its owner: everyone is disconnected, once wherever the engine reaches. */
  private async closeEnded(stationId: string, lastActiveAt: string | null): Promise<void> {
    try {
      if (!(await this.sessions.once(`ended:${stationId}:${lastActiveAt}`, ONCE_TTL_MS))) return;
      await this.sessions.clearPublisher(stationId);
      await this.engine.closeStation(stationId);
    } catch (err) {
      this.logger.warn(`closing ended station ${stationId}: ${(err as Error).message}`);
    }
  }
}
