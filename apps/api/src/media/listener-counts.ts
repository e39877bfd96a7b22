import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { MediaEngine } from '@radiobroadcaster/sfu';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { EventBus } from '../events/event-bus.js';
import { MEDIA_ENGINE } from './media.providers.js';
import { SessionStore } from './session-store.js';
import { countedViewers } from './viewer-count.js';

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
  private readonly httpCounts = new Map<string, Map<string, number>>();
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
      if (count > 0) byNode.set(node, count);
      else byNode.delete(node);
      if (byNode.size === 0) this.httpCounts.delete(stationId);
      void this.publish(stationId).catch((err: Error) =>
        this.logger.warn(`listener count of ${stationId}: ${err.message}`),
      );
    });
  }

  onModuleDestroy(): void {
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
    for (const n of this.httpCounts.get(stationId)?.values() ?? []) connections += n;
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
