import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { MediaEngine } from '@radiobroadcaster/sfu';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { EventBus } from '../events/event-bus.js';
import { MEDIA_ENGINE } from './media.providers.js';
import { SessionStore } from './session-store.js';
import { countedViewers } from './viewer-count.js';

/** A node's HTTP counts are dropped when it has not re-sent them for this long (it re-sends every 10 s). */
export const HTTP_COUNT_TTL_MS = 24_000;

/**
 * A station's `viewerCount`: its listening connections, WebRTC (the engine's count) + HTTP on every
 * API node, each address counting for at most `VIEWER_COUNT_PER_ADDRESS` of them (viewer-count.ts:
 * the one place the count is made), sent as `station.listeners` by the node that gets the engine's
 * counts (in a cluster, its leader).
 */
@Injectable()
export class ListenerCounts implements OnModuleDestroy {
  private readonly logger = new Logger('ListenerCounts');
  /** By station: WebRTC from the engine, HTTP per API node, and the last sum sent. */
  private readonly engineCounts = new Map<string, number>();
  /** By station, then node: its HTTP count and when that node last sent it. */
  private readonly httpCounts = new Map<string, Map<string, { count: number; at: number }>>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly publishedCounts = new Map<string, number>();
  private readonly off: () => void;

  constructor(
    @Inject(MEDIA_ENGINE) private readonly engine: MediaEngine,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(SessionStore) private readonly sessions: SessionStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.off = bus.subscribe('station.httpListeners', ({ stationId, node, count }) => {
      let byNode = this.httpCounts.get(stationId);
      if (!byNode) this.httpCounts.set(stationId, (byNode = new Map()));
      if (count > 0) byNode.set(node, { count, at: Date.now() });
      else byNode.delete(node);
      if (byNode.size === 0) this.httpCounts.delete(stationId);
      this.republish(stationId);
    });
    // A node that died stops re-sending its counts: its listeners leave the count.
    this.sweeper = setInterval(() => this.expire(), 5_000);
    this.sweeper.unref();
  }

  private republish(stationId: string): void {
    void this.publish(stationId).catch((err: Error) =>
      this.logger.warn(`listener count of ${stationId}: ${err.message}`),
    );
  }

  /** Drops HTTP counts of nodes silent for longer than HTTP_COUNT_TTL_MS. */
  expire(now = Date.now()): void {
    for (const [stationId, byNode] of this.httpCounts) {
      let changed = false;
      for (const [node, entry] of byNode)
        if (now - entry.at > HTTP_COUNT_TTL_MS) {
          byNode.delete(node);
          changed = true;
        }
      if (byNode.size === 0) this.httpCounts.delete(stationId);
      if (changed) this.republish(stationId);
    }
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
    this.off();
  }

  /** The engine's count of the station's WebRTC listeners, sent on even when the sum is unchanged. */
  async fromEngine(stationId: string, count: number): Promise<void> {
    if (count > 0) this.engineCounts.set(stationId, count);
    else this.engineCounts.delete(stationId);
    await this.publish(stationId, true);
  }

  private async publish(stationId: string, fromEngine = false): Promise<void> {
    const cluster = this.engine.clusterInfo?.();
    if (cluster && !cluster.leader) return;
    let connections = this.engineCounts.get(stationId) ?? 0;
    for (const n of this.httpCounts.get(stationId)?.values() ?? []) connections += n.count;
    const perAddress = this.config.rtc.viewerCountPerAddress;
    const total =
      connections > perAddress && perAddress > 0
        ? countedViewers(connections, await this.sessions.listenersByAddress(stationId), perAddress)
            .viewerCount
        : connections;
    if (!fromEngine && this.publishedCounts.get(stationId) === total) return;
    if (total > 0) this.publishedCounts.set(stationId, total);
    else this.publishedCounts.delete(stationId);
    await this.bus.publish('station.listeners', { stationId, viewerCount: total });
  }
}
