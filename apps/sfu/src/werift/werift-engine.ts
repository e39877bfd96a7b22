/**
 * The SFU in this process: publisher PeerConnections and station state on the calling thread,
 * listeners on shards (worker threads by default). Embedded in the API, and what every SFU node runs.
 *
 * The engine wires its parts: the stations (stations.ts), their publishers (publishers.ts), the
 * listener sessions (listener-sessions.ts) that admission (admission.ts) places on the shards
 * (shard-pool.ts), and the figures (engine-stats.ts).
 */
import { availableParallelism } from 'node:os';
import type { EventLoopUtilization } from 'node:perf_hooks';
import {
  EngineEvents,
  type EngineEvent,
  type EngineStats,
  type MediaEngine,
  type MediaEngineOptions,
  type PacketPublisher,
  type PacketTap,
  type SessionAnswer,
  type SessionKind,
} from '../media-engine.js';
import { IceMux } from '../boundary/ice-mux.js';
import { IceMuxRouter } from '../net/ice-mux-router.js';
import { Admission } from './admission.js';
import { engineStats, type EngineParts } from './engine-stats.js';
import type { ShardConfig, ShardEvent } from './listener-shard.js';
import { ListenerSessions } from './listener-sessions.js';
import { Publishers } from './publishers.js';
import { MAIN_TAG, ShardPool, shardTag } from './shard-pool.js';
import { StationBook } from './stations.js';
import type { PeerSettings } from './werift-config.js';

export interface WeriftEngineInternals {
  /** Where shards run: 'worker' threads or 'in-thread'. */
  readonly shardMode: 'worker' | 'in-thread';
  /** Cumulative event-loop utilization per shard thread (diff two samples for a window). */
  shardUtilization(): EventLoopUtilization[];
}

class WeriftEngine implements MediaEngine, WeriftEngineInternals {
  private readonly events = new EngineEvents((err) =>
    console.error('[sfu] event listener threw', err),
  );
  private readonly settings: PeerSettings;
  private readonly listenerTimeoutMs: number;
  private readonly shards: ShardPool;
  private readonly admission: Admission;
  private readonly stations: StationBook;
  private readonly publishers: Publishers;
  private readonly listeners: ListenerSessions;
  private closed = false;
  /** One port per node: the shared sockets and this thread's sessions (publishers, in-thread shard). */
  private net?: EngineParts['net'];

  constructor(private readonly opts: MediaEngineOptions) {
    this.settings = {
      announcedAddress: opts.announcedAddress,
      portRange: opts.portRange,
      iceServers: opts.iceServers ?? [],
    };
    this.listenerTimeoutMs = Math.min(10000, Math.max(1000, opts.listenerTimeoutMs ?? 10000));
    const emit = (e: EngineEvent) => this.events.emit(e);
    this.shards = new ShardPool(
      (i, e) => this.onShardEvent(i, e),
      (i, err) => this.onShardDeath(i, err),
    );
    this.admission = new Admission(opts, this.shards);
    this.stations = new StationBook(
      emit,
      () => this.shards.length,
      (stationId) => this.listeners.onStation(stationId),
    );
    this.listeners = new ListenerSessions(this.stations, this.admission, emit);
    this.publishers = new Publishers({
      stations: this.stations,
      shards: this.shards,
      settings: this.settings,
      publisherTimeoutMs: opts.publisherTimeoutMs ?? 5000,
      emit,
      mux: () => this.net?.mux,
      closed: () => this.closed,
    });
  }

  get shardMode(): 'worker' | 'in-thread' {
    return this.shards.mode;
  }

  async start(): Promise<void> {
    const wanted = this.opts.shards ?? availableParallelism();
    const count = Math.max(0, Math.floor(wanted));
    if (this.opts.tcpPort !== undefined && this.opts.udpPort === undefined) {
      throw new Error('an ICE-TCP port (RTC_TCP_PORT) needs the one UDP port (RTC_UDP_PORT)');
    }
    if (this.opts.udpPort !== undefined) {
      const router = new IceMuxRouter({ udpPort: this.opts.udpPort, tcpPort: this.opts.tcpPort });
      const ports = await router.start();
      const mux = new IceMux(
        { tag: MAIN_TAG, udpPort: ports.udpPort, tcpPort: ports.tcpPort },
        router,
      );
      router.addTarget(MAIN_TAG, mux);
      this.net = { router, mux, ports };
    }
    const ports = this.net?.ports;
    const cfg = (index: number): ShardConfig => ({
      index,
      settings: this.settings,
      listenerTimeoutMs: this.listenerTimeoutMs,
      mux: ports
        ? { tag: shardTag(index), udpPort: ports.udpPort, tcpPort: ports.tcpPort }
        : undefined,
    });
    this.shards.start(count, cfg, this.net?.mux, this.net?.router);
  }

  on(listener: (e: EngineEvent) => void): () => void {
    return this.events.on(listener);
  }

  private onShardEvent(index: number, e: ShardEvent): void {
    if (e.t === 'stats') this.admission.report(index, e.stats);
    else if (e.t === 'count') this.stations.setShardCount(e.stationId, index, e.count);
    else if (e.t === 'gone') this.listeners.gone(e.stationId, e.sessionId, e.reason);
  }

  private onShardDeath(index: number, err: Error): void {
    if (this.closed) return;
    console.error(`[sfu] shard ${index} died; restarting it`, err);
    this.shards.respawn(index);
    this.listeners.shardFailed(index);
    this.stations.shardFailed(index);
  }

  // ---------------------------------------------------------------- publishers

  async publish(stationId: string, offerSdp: string): Promise<SessionAnswer> {
    this.assertOpen();
    return this.publishers.publish(stationId, offerSdp);
  }

  async publishPackets(stationId: string): Promise<PacketPublisher> {
    this.assertOpen();
    return this.publishers.publishPackets(stationId);
  }

  unpublish(stationId: string, sessionId: string): Promise<boolean> {
    return this.publishers.unpublish(stationId, sessionId);
  }

  tap(stationId: string, onPacket: PacketTap): () => void {
    return this.publishers.tap(stationId, onPacket);
  }

  // ---------------------------------------------------------------- listeners

  async addListener(stationId: string, offerSdp: string): Promise<SessionAnswer> {
    this.assertOpen();
    return this.listeners.add(stationId, offerSdp);
  }

  removeListener(stationId: string, sessionId: string): Promise<boolean> {
    return this.listeners.remove(stationId, sessionId);
  }

  listenerCount(stationId: string): number {
    return this.stations.listenerCount(stationId);
  }

  async closeStation(stationId: string): Promise<void> {
    const st = this.stations.get(stationId);
    if (!st) return;
    await this.publishers.closeStation(st);
    st.lastOut = undefined;
    this.listeners.stationClosed(stationId);
    await this.shards.closeStation(stationId);
  }

  async hasSession(stationId: string, sessionId: string): Promise<SessionKind | null> {
    if (this.stations.findPublisher(stationId, sessionId)) return 'publisher';
    if (this.listeners.has(stationId, sessionId)) return 'listener';
    return null;
  }

  stats(): EngineStats {
    const { stations, publishers, listeners, shards, admission, net } = this;
    return engineStats({ stations, publishers, listeners, shards, admission, net });
  }

  shardUtilization(): EventLoopUtilization[] {
    return this.shards.utilization();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('media engine is closed');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stations.stopFlushes();
    await this.publishers.close();
    await this.shards.close();
    this.net?.mux.close();
    await this.net?.router.close();
    this.stations.clear();
    this.listeners.clear();
  }
}

/** Creates the werift media engine and starts its listener shards. */
export async function createWeriftEngine(
  opts: MediaEngineOptions = {},
): Promise<MediaEngine & WeriftEngineInternals> {
  const engine = new WeriftEngine(opts);
  await engine.start();
  return engine;
}
