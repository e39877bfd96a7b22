/** The engine's stations: who publishes to each, how many listen, and the 'listeners' events. */
import type { EngineEvent } from '../media-engine.js';
import type { Publisher } from './publisher.js';

export interface Station {
  readonly id: string;
  /** The publisher whose media reaches listeners now. */
  publisher?: Publisher;
  /**
   * Publishers opened but not sending yet, oldest first: one takes over at its first packet (see
   * {@link MediaEngine.publish}); until then the station's publisher keeps going.
   */
  readonly pending: Set<Publisher>;
  shardCounts: number[];
  emitted: number;
  flushTimer?: NodeJS.Timeout;
  lastOut?: { seq: number; ts: number; at: number };
}

export class StationBook {
  private readonly stations = new Map<string, Station>();

  constructor(
    private readonly emit: (e: EngineEvent) => void,
    /** How many shards there are (a new station's count per shard). */
    private readonly shardCount: () => number,
    /** Whether a listener session of the station is still open (placed, not yet counted). */
    private readonly hasListeners: (stationId: string) => boolean,
  ) {}

  get size(): number {
    return this.stations.size;
  }

  values(): IterableIterator<Station> {
    return this.stations.values();
  }

  get(id: string): Station | undefined {
    return this.stations.get(id);
  }

  station(id: string, create: true): Station;
  station(id: string, create: false): Station | undefined;
  station(id: string, create: boolean): Station | undefined {
    let st = this.stations.get(id);
    if (!st && create) {
      st = {
        id,
        pending: new Set(),
        shardCounts: new Array<number>(this.shardCount()).fill(0),
        emitted: 0,
      };
      this.stations.set(id, st);
    }
    return st;
  }

  maybeDropStation(st: Station): void {
    if (st.publisher || st.pending.size > 0 || st.flushTimer) return;
    if (st.shardCounts.some((c) => c > 0)) return;
    if (this.hasListeners(st.id)) return;
    this.stations.delete(st.id);
  }

  /** A shard counted `count` connected listeners of the station. */
  setShardCount(stationId: string, index: number, count: number): void {
    const st = this.station(stationId, true);
    st.shardCounts[index] = count;
    this.scheduleCountFlush(st);
  }

  /** Shard `index` died: its listeners count no more. */
  shardFailed(index: number): void {
    for (const st of this.stations.values()) {
      if (st.shardCounts[index]) {
        st.shardCounts[index] = 0;
        this.scheduleCountFlush(st);
      }
    }
  }

  /** Coalesces bursts of joins/leaves into one exact 'listeners' event within ~100 ms. */
  private scheduleCountFlush(st: Station): void {
    if (st.flushTimer) return;
    st.flushTimer = setTimeout(() => {
      st.flushTimer = undefined;
      const count = this.sum(st);
      if (count !== st.emitted) {
        st.emitted = count;
        this.emit({ type: 'listeners', stationId: st.id, count });
      }
      this.maybeDropStation(st);
    }, 100);
  }

  sum(st: Station): number {
    let n = 0;
    for (const c of st.shardCounts) n += c;
    return n;
  }

  listenerCount(stationId: string): number {
    const st = this.stations.get(stationId);
    return st ? this.sum(st) : 0;
  }

  /** The station's publisher or one waiting to take over, by session id. */
  findPublisher(stationId: string, sessionId: string): Publisher | undefined {
    const st = this.stations.get(stationId);
    if (!st) return undefined;
    if (st.publisher?.sessionId === sessionId) return st.publisher;
    for (const p of st.pending) if (p.sessionId === sessionId) return p;
    return undefined;
  }

  /** Stops every pending count flush (the engine closes). */
  stopFlushes(): void {
    for (const st of this.stations.values()) {
      if (st.flushTimer) clearTimeout(st.flushTimer);
      st.flushTimer = undefined;
    }
  }

  clear(): void {
    this.stations.clear();
  }
}
