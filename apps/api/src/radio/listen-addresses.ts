import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { EventBus } from '../events/event-bus.js';
import type { StationEntity } from '../stations/station.entity.js';
import { StationsService } from '../stations/stations.service.js';
import { StreamKeysService } from './stream-keys.service.js';

/** Station lookups by address are reused this long (many listeners arrive together). */
const LOOKUP_TTL_MS = 1000;

/** A station found at a listening address, and whether its plain stream URL plays without a signed link. */
export interface Lookup {
  station: StationEntity | null;
  publicStreamUrl: boolean;
  at: number;
}

/** The stations at listening addresses (`username/slug`), cached until a station changes. */
@Injectable()
export class ListenAddresses implements OnModuleDestroy {
  private readonly logger = new Logger('HttpListen');
  private readonly lookups = new Map<string, Lookup>();
  private readonly refreshing = new Map<string, Promise<Lookup>>();
  private readonly off: (() => void)[] = [];

  constructor(
    @Inject(StationsService) private readonly stations: StationsService,
    @Inject(StreamKeysService) private readonly keys: StreamKeysService,
    @Inject(EventBus) bus: EventBus,
  ) {
    for (const name of [
      'station.offline',
      'station.ended',
      'station.deleted',
      'station.live',
      'station.updated',
    ] as const)
      this.off.push(bus.subscribe(name, () => this.lookups.clear()));
  }

  onModuleDestroy(): void {
    for (const off of this.off) off();
  }

  /**
   * The station at an address, from the database at most once a second per address: thousands of
   * listeners arriving together must not queue thousands of queries (behind the listening-stats
   * writes). A known address answers at once and is refreshed behind the answer.
   */
  lookup(username: string, slug: string): Promise<Lookup> {
    const key = `${username.toLowerCase()}/${slug.toLowerCase()}`;
    const hit = this.lookups.get(key);
    const fresh = hit && Date.now() - hit.at < LOOKUP_TTL_MS;
    if (hit && !fresh && !this.refreshing.has(key)) void this.refresh(key, username, slug);
    if (hit) return Promise.resolve(hit);
    return this.refreshing.get(key) ?? this.refresh(key, username, slug);
  }

  private refresh(key: string, username: string, slug: string): Promise<Lookup> {
    const p = (async () => {
      const station = await this.stations.byAddress(username, slug);
      const publicStreamUrl = station
        ? await this.keys.publicStreamUrl(station.id, station.broadcasterId)
        : true;
      const found = { station, publicStreamUrl, at: Date.now() };
      if (this.lookups.size > 10_000) this.lookups.clear();
      this.lookups.set(key, found);
      return found;
    })().finally(() => this.refreshing.delete(key));
    this.refreshing.set(key, p);
    p.catch((err: Error) => this.logger.warn(`station lookup ${key}: ${err.message}`));
    return p;
  }
}
