import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { EventBus } from '../events/event-bus.js';

/**
 * Listener counts per station as the SFU reports them (`station.listeners`), kept on every API
 * node from the bus so any node answers with the current `viewerCount`.
 */
@Injectable()
export class PresenceService implements OnModuleDestroy {
  private readonly counts = new Map<string, number>();
  private readonly unsubscribe: () => void;
  /** Bumped on every change, so renders of station lists know when a count moved. */
  version = 0;

  constructor(@Inject(EventBus) bus: EventBus) {
    this.unsubscribe = bus.subscribe('station.listeners', ({ stationId, viewerCount }) => {
      if (viewerCount === this.viewerCount(stationId)) return;
      if (viewerCount > 0) this.counts.set(stationId, viewerCount);
      else this.counts.delete(stationId);
      this.version++;
    });
  }

  viewerCount(stationId: string): number {
    return this.counts.get(stationId) ?? 0;
  }

  onModuleDestroy(): void {
    this.unsubscribe();
  }
}
