import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { RTCPeerConnection, RtpPacket } from 'werift';
import {
  ListenerShard,
  type ShardConfig,
  type ShardEvent,
  type ShardStats,
} from './listener-shard.js';
import {
  CapacityError,
  SdpError,
  type EngineEvent,
  type EngineStats,
  type MediaEngine,
  type MediaEngineOptions,
  type PublisherGoneReason,
  type SessionAnswer,
} from './media-engine.js';
import { mungeAnswer, validateOffer } from './sdp.js';
import type { ShardPacket, ShardReply, ShardRequest } from './shard-protocol.js';
import { announceCandidates, createPeer, type PeerSettings } from './werift-config.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

const EMPTY_STATS: ShardStats = {
  listeners: 0,
  pending: 0,
  packetsOut: 0,
  bytesOut: 0,
  sendErrors: 0,
  packetsIn: 0,
  gcm: 0,
  cm: 0,
};

/** How the engine talks to a shard, wherever it runs. */
interface ShardHandle {
  readonly index: number;
  /** Event-loop utilization of the thread running this shard (cumulative; diff two samples). */
  elu(): EventLoopUtilization;
  /** Sessions placed on this shard (pending + connected), tracked by the engine. */
  sessions: number;
  alive: boolean;
  stats(): ShardStats;
  add(stationId: string, sessionId: string, offer: string): Promise<string>;
  remove(stationId: string, sessionId: string): Promise<boolean>;
  closeStation(stationId: string): Promise<void>;
  restartIce(stationId: string, sessionId: string, offer: string): Promise<string | null>;
  packet(stationId: string, seq: number, ts: number, marker: boolean, payload: Buffer): void;
  close(): Promise<void>;
}

class InThreadShard implements ShardHandle {
  sessions = 0;
  alive = true;
  private readonly shard: ListenerShard;
  constructor(
    readonly index: number,
    cfg: ShardConfig,
    onEvent: (index: number, e: ShardEvent) => void,
  ) {
    this.shard = new ListenerShard(cfg, (e) => onEvent(index, e));
  }
  stats(): ShardStats {
    return this.shard.stats();
  }
  elu(): EventLoopUtilization {
    return performance.eventLoopUtilization();
  }
  add(stationId: string, sessionId: string, offer: string): Promise<string> {
    return this.shard.addListener(stationId, sessionId, offer);
  }
  remove(stationId: string, sessionId: string): Promise<boolean> {
    return this.shard.removeListener(stationId, sessionId);
  }
  closeStation(stationId: string): Promise<void> {
    return this.shard.closeStation(stationId);
  }
  restartIce(stationId: string, sessionId: string, offer: string): Promise<string | null> {
    return this.shard.restartIce(stationId, sessionId, offer);
  }
  packet(stationId: string, seq: number, ts: number, marker: boolean, payload: Buffer): void {
    this.shard.packet(stationId, seq, ts, marker, payload);
  }
  close(): Promise<void> {
    this.alive = false;
    return this.shard.close();
  }
}

class WorkerShard implements ShardHandle {
  sessions = 0;
  alive = true;
  private lastStats: ShardStats = EMPTY_STATS;
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void }
  >();
  constructor(
    readonly index: number,
    url: URL,
    cfg: ShardConfig,
    private readonly onEvent: (index: number, e: ShardEvent) => void,
    private readonly onDeath: (index: number, err: Error) => void,
  ) {
    this.worker = new Worker(url, { workerData: cfg, name: `sfu-shard-${index}` });
    this.worker.on('message', (m: ShardReply) => this.onMessage(m));
    this.worker.on('error', (err) => this.die(err));
    this.worker.on('exit', (code) =>
      this.die(new Error(`shard ${index} exited with code ${code}`)),
    );
  }
  private die(err: Error): void {
    if (!this.alive) return;
    this.alive = false;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.onDeath(this.index, err);
  }
  private onMessage(m: ShardReply): void {
    if (m.op === 'event') {
      if (m.e.t === 'stats') this.lastStats = m.e.stats;
      this.onEvent(this.index, m.e);
      return;
    }
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (m.ok) p.resolve(m.value);
    else {
      const err =
        m.error.name === 'SdpError' ? new SdpError(m.error.message) : new Error(m.error.message);
      p.reject(err);
    }
  }
  private call<T>(req: DistributiveOmit<ShardRequest, 'id'>): Promise<T> {
    if (!this.alive) return Promise.reject(new Error(`shard ${this.index} is down`));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ ...req, id });
    });
  }
  stats(): ShardStats {
    return this.lastStats;
  }
  elu(): EventLoopUtilization {
    return this.worker.performance.eventLoopUtilization();
  }
  add(stationId: string, sessionId: string, offer: string): Promise<string> {
    return this.call<string>({ op: 'add', stationId, sessionId, offer });
  }
  remove(stationId: string, sessionId: string): Promise<boolean> {
    return this.call<boolean>({ op: 'remove', stationId, sessionId });
  }
  closeStation(stationId: string): Promise<void> {
    return this.call<void>({ op: 'closeStation', stationId });
  }
  restartIce(stationId: string, sessionId: string, offer: string): Promise<string | null> {
    return this.call<string | null>({ op: 'restartIce', stationId, sessionId, offer });
  }
  packet(stationId: string, seq: number, ts: number, marker: boolean, payload: Buffer): void {
    if (!this.alive) return;
    const msg: ShardPacket = { op: 'pkt', s: stationId, q: seq, ts, m: marker, p: payload };
    this.worker.postMessage(msg);
  }
  async close(): Promise<void> {
    if (!this.alive) return;
    const done = new Promise<void>((r) => this.worker.once('exit', () => r()));
    await Promise.race([this.call({ op: 'close' }), new Promise((r) => setTimeout(r, 2000))]).catch(
      () => undefined,
    );
    this.alive = false;
    await this.worker.terminate().catch(() => undefined);
    await Promise.race([done, new Promise((r) => setTimeout(r, 1000))]);
  }
}

/**
 * Where the compiled worker entry is. From `dist/` it sits beside this module; when this module runs
 * from the TypeScript sources (ts-jest, tsx) the worker is taken from `../dist/` (build it with
 * `tsc -b apps/sfu`): a worker thread does not get the test runner's TypeScript transform.
 */
export function resolveShardWorker(): URL | null {
  const candidates = [
    new URL('./shard-worker.js', import.meta.url),
    new URL('../dist/shard-worker.js', import.meta.url),
  ];
  for (const u of candidates) {
    if (u.protocol === 'file:' && existsSync(fileURLToPath(u))) return u;
  }
  return null;
}

interface Publisher {
  readonly sessionId: string;
  readonly stationId: string;
  readonly pc: RTCPeerConnection;
  readonly createdAt: number;
  lastRtpAt: number;
  gotMedia: boolean;
  seqDelta: number;
  tsDelta: number;
  gone: boolean;
}

interface Station {
  readonly id: string;
  publisher?: Publisher;
  shardCounts: number[];
  emitted: number;
  flushTimer?: NodeJS.Timeout;
  lastOut?: { seq: number; ts: number; at: number };
}

interface ListenerSession {
  stationId: string;
  shard: ShardHandle;
}

export interface WeriftEngineInternals {
  /** Where shards run: 'worker' threads or 'in-thread'. */
  readonly shardMode: 'worker' | 'in-thread';
  /** Cumulative event-loop utilization per shard thread (diff two samples for a window). */
  shardUtilization(): EventLoopUtilization[];
}

class WeriftEngine implements MediaEngine, WeriftEngineInternals {
  private readonly stations = new Map<string, Station>();
  private readonly listeners = new Map<string, ListenerSession>();
  private readonly subscribers = new Set<(e: EngineEvent) => void>();
  private readonly shards: ShardHandle[] = [];
  private spawnShard?: (index: number) => ShardHandle;
  private loadTimer?: NodeJS.Timeout;
  private lastElu: EventLoopUtilization[] = [];
  /** Recent event-loop utilization (0..1) per shard, sampled every second. */
  private shardLoad: number[] = [];
  private readonly maxShardLoad: number;
  private readonly watchdog: NodeJS.Timeout;
  private readonly settings: PeerSettings;
  private readonly publisherTimeoutMs: number;
  private readonly listenerTimeoutMs: number;
  private readonly maxListeners: number;
  private packetsIn = 0;
  private closed = false;
  shardMode: 'worker' | 'in-thread' = 'in-thread';

  constructor(private readonly opts: MediaEngineOptions) {
    this.settings = {
      announcedAddress: opts.announcedAddress,
      portRange: opts.portRange,
      iceServers: opts.iceServers ?? [],
    };
    this.publisherTimeoutMs = opts.publisherTimeoutMs ?? 5000;
    this.listenerTimeoutMs = Math.min(10000, Math.max(1000, opts.listenerTimeoutMs ?? 10000));
    this.maxListeners = opts.maxListeners ?? Infinity;
    this.maxShardLoad = opts.maxShardLoad ?? 0.95;
    this.watchdog = setInterval(() => this.checkPublishers(), 250);
    this.watchdog.unref();
  }

  async start(): Promise<void> {
    const wanted = this.opts.shards ?? availableParallelism();
    const count = Math.max(0, Math.floor(wanted));
    const cfg = (index: number): ShardConfig => ({
      index,
      settings: this.settings,
      listenerTimeoutMs: this.listenerTimeoutMs,
    });
    const url = count > 0 ? resolveShardWorker() : null;
    if (count > 0 && !url) {
      console.warn(
        '[sfu] compiled shard worker not found (run `tsc -b apps/sfu`); listeners run in-thread',
      );
    }
    if (count === 0 || !url) {
      this.shards.push(new InThreadShard(0, cfg(0), (i, e) => this.onShardEvent(i, e)));
      return;
    }
    this.shardMode = 'worker';
    this.spawnShard = (i: number) =>
      new WorkerShard(
        i,
        url,
        cfg(i),
        (idx, e) => this.onShardEvent(idx, e),
        (idx, err) => this.onShardDeath(idx, err),
      );
    for (let i = 0; i < count; i++) this.shards.push(this.spawnShard(i));
    this.loadTimer = setInterval(() => this.sampleLoad(), 1000);
    this.loadTimer.unref();
  }

  // ---------------------------------------------------------------- events

  on(listener: (e: EngineEvent) => void): () => void {
    this.subscribers.add(listener);
    return () => this.subscribers.delete(listener);
  }

  private emit(e: EngineEvent): void {
    for (const s of this.subscribers) {
      try {
        s(e);
      } catch (err) {
        console.error('[sfu] event listener threw', err);
      }
    }
  }

  private station(id: string, create: true): Station;
  private station(id: string, create: false): Station | undefined;
  private station(id: string, create: boolean): Station | undefined {
    let st = this.stations.get(id);
    if (!st && create) {
      st = { id, shardCounts: new Array<number>(this.shards.length).fill(0), emitted: 0 };
      this.stations.set(id, st);
    }
    return st;
  }

  private maybeDropStation(st: Station): void {
    if (st.publisher || st.flushTimer) return;
    if (st.shardCounts.some((c) => c > 0)) return;
    for (const s of this.listeners.values()) if (s.stationId === st.id) return;
    this.stations.delete(st.id);
  }

  private onShardEvent(index: number, e: ShardEvent): void {
    if (e.t === 'count') {
      const st = this.station(e.stationId, true);
      st.shardCounts[index] = e.count;
      this.scheduleCountFlush(st);
    } else if (e.t === 'gone') {
      const s = this.listeners.get(e.sessionId);
      if (s && s.stationId === e.stationId) {
        this.listeners.delete(e.sessionId);
        s.shard.sessions--;
        this.emit({
          type: 'listener-gone',
          stationId: e.stationId,
          sessionId: e.sessionId,
          reason: e.reason,
        });
      }
    }
  }

  private sampleLoad(): void {
    const now = this.shards.map((s) => s.elu());
    this.shardLoad = now.map((e, i) => {
      const prev = this.lastElu[i];
      const cur = prev ? performance.eventLoopUtilization(e, prev).utilization : 0;
      // smooth over ~3 s so one stall does not refuse joins
      return (this.shardLoad[i] ?? cur) * 0.6 + cur * 0.4;
    });
    this.lastElu = now;
  }

  private onShardDeath(index: number, err: Error): void {
    if (this.closed) return;
    console.error(`[sfu] shard ${index} died; restarting it`, err);
    if (this.spawnShard) {
      this.shards[index] = this.spawnShard(index);
      this.lastElu[index] = undefined as unknown as EventLoopUtilization;
    }
    for (const [sessionId, s] of [...this.listeners]) {
      if (s.shard.index !== index) continue;
      this.listeners.delete(sessionId);
      this.emit({
        type: 'listener-gone',
        stationId: s.stationId,
        sessionId,
        reason: 'shard-failed',
      });
    }
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

  private sum(st: Station): number {
    let n = 0;
    for (const c of st.shardCounts) n += c;
    return n;
  }

  // ---------------------------------------------------------------- publisher

  async publish(stationId: string, offerSdp: string): Promise<SessionAnswer> {
    this.assertOpen();
    const offer = validateOffer(offerSdp, 'publisher');
    const pc = createPeer(this.settings);
    const sessionId = randomUUID();
    const pub: Publisher = {
      sessionId,
      stationId,
      pc,
      createdAt: Date.now(),
      lastRtpAt: 0,
      gotMedia: false,
      seqDelta: 0,
      tsDelta: 0,
      gone: false,
    };
    const transceiver = pc.addTransceiver('audio', { direction: 'recvonly' });
    transceiver.onTrack.subscribe((track) => {
      track.onReceiveRtp.subscribe((rtp) => this.onPublisherRtp(pub, rtp));
    });
    let answer: string;
    try {
      await pc.setRemoteDescription({ type: 'offer', sdp: offer });
      const local = await pc.createAnswer();
      await pc.setLocalDescription(local);
      const sdp = pc.localDescription?.sdp;
      if (!sdp) throw new Error('no local description');
      if (!/^a=recvonly/m.test(sdp) && !/^a=sendrecv/m.test(sdp)) {
        throw new SdpError('could not negotiate a receiving audio track');
      }
      answer = announceCandidates(mungeAnswer(sdp, sessionId), this.settings.announcedAddress);
    } catch (err) {
      await pc.close().catch(() => undefined);
      if (err instanceof SdpError) throw err;
      throw new SdpError(`SDP negotiation failed: ${(err as Error)?.message ?? String(err)}`);
    }
    if (this.closed) {
      await pc.close().catch(() => undefined);
      throw new Error('engine closed');
    }
    pc.connectionStateChange.subscribe((state) => {
      if (state === 'failed') void this.closePublisher(pub, 'ice-failed');
      else if (state === 'closed') void this.closePublisher(pub, 'closed');
    });
    const st = this.station(stationId, true);
    const old = st.publisher;
    st.publisher = pub;
    if (old) void this.closePublisher(old, 'replaced');
    return { sessionId, answerSdp: answer };
  }

  private onPublisherRtp(pub: Publisher, rtp: RtpPacket): void {
    if (pub.gone) return;
    const st = this.stations.get(pub.stationId);
    if (!st || st.publisher !== pub) return;
    const payload = rtp.payload;
    if (!payload || payload.length === 0) return;
    const now = Date.now();
    const h = rtp.header;
    if (!pub.gotMedia) {
      pub.gotMedia = true;
      const last = st.lastOut;
      if (last) {
        // continue the station's outbound stream where the previous publisher left it
        pub.seqDelta = (last.seq + 1 - h.sequenceNumber) & 0xffff;
        const samples = Math.max(960, Math.round((now - last.at) * 48));
        pub.tsDelta = (last.ts + samples - h.timestamp) >>> 0;
      }
      this.emit({ type: 'publisher-media', stationId: pub.stationId, sessionId: pub.sessionId });
    }
    pub.lastRtpAt = now;
    this.packetsIn++;
    const seq = (h.sequenceNumber + pub.seqDelta) & 0xffff;
    const ts = (h.timestamp + pub.tsDelta) >>> 0;
    const last = st.lastOut;
    if (!last || ((seq - last.seq) & 0xffff) < 0x8000) st.lastOut = { seq, ts, at: now };
    // one copy with its own small ArrayBuffer (a pooled Buffer would clone the whole pool per shard)
    const data = this.shardMode === 'worker' ? Buffer.from(payload) : payload;
    for (const shard of this.shards) shard.packet(pub.stationId, seq, ts, h.marker, data);
  }

  private async closePublisher(pub: Publisher, reason: PublisherGoneReason): Promise<void> {
    if (pub.gone) return;
    pub.gone = true;
    const st = this.stations.get(pub.stationId);
    if (st && st.publisher === pub) st.publisher = undefined;
    this.emit({
      type: 'publisher-gone',
      stationId: pub.stationId,
      sessionId: pub.sessionId,
      reason,
    });
    await pub.pc.close().catch(() => undefined);
    if (st) this.maybeDropStation(st);
  }

  private checkPublishers(): void {
    const now = Date.now();
    for (const st of this.stations.values()) {
      const pub = st.publisher;
      if (!pub) continue;
      const ref = pub.lastRtpAt || pub.createdAt;
      if (now - ref > this.publisherTimeoutMs) void this.closePublisher(pub, 'timeout');
    }
  }

  async unpublish(stationId: string, sessionId: string): Promise<boolean> {
    const pub = this.stations.get(stationId)?.publisher;
    if (!pub || pub.sessionId !== sessionId) return false;
    await this.closePublisher(pub, 'deleted');
    return true;
  }

  // ---------------------------------------------------------------- listeners

  async addListener(stationId: string, offerSdp: string): Promise<SessionAnswer> {
    this.assertOpen();
    validateOffer(offerSdp, 'listener');
    if (this.listeners.size >= this.maxListeners) {
      throw new CapacityError(`listener capacity reached (${this.maxListeners})`);
    }
    const alive = this.shards.filter(
      (s) => s.alive && (this.shardLoad[s.index] ?? 0) < this.maxShardLoad,
    );
    if (alive.length === 0) throw new CapacityError('listener shards are saturated');
    const shard = alive.reduce((a, b) => (b.sessions < a.sessions ? b : a));
    const sessionId = randomUUID();
    this.station(stationId, true);
    this.listeners.set(sessionId, { stationId, shard });
    shard.sessions++;
    try {
      const answerSdp = await shard.add(stationId, sessionId, offerSdp);
      if (!this.listeners.has(sessionId)) {
        await shard.remove(stationId, sessionId).catch(() => false);
        throw new Error('listener removed during set-up');
      }
      return { sessionId, answerSdp };
    } catch (err) {
      if (this.listeners.get(sessionId)) {
        this.listeners.delete(sessionId);
        shard.sessions--;
      }
      const st = this.stations.get(stationId);
      if (st) this.maybeDropStation(st);
      throw err;
    }
  }

  async removeListener(stationId: string, sessionId: string): Promise<boolean> {
    const s = this.listeners.get(sessionId);
    if (!s || s.stationId !== stationId) return false;
    this.listeners.delete(sessionId);
    s.shard.sessions--;
    await s.shard.remove(stationId, sessionId).catch(() => false);
    return true;
  }

  async restartIce(stationId: string, sessionId: string, offerSdp: string): Promise<string | null> {
    const s = this.listeners.get(sessionId);
    if (s && s.stationId === stationId) return s.shard.restartIce(stationId, sessionId, offerSdp);
    const pub = this.stations.get(stationId)?.publisher;
    if (!pub || pub.sessionId !== sessionId) return null;
    const offer = validateOffer(offerSdp, 'publisher');
    try {
      await pub.pc.setRemoteDescription({ type: 'offer', sdp: offer });
      const local = await pub.pc.createAnswer();
      await pub.pc.setLocalDescription(local);
      return announceCandidates(
        mungeAnswer(pub.pc.localDescription?.sdp ?? '', sessionId),
        this.settings.announcedAddress,
      );
    } catch (err) {
      throw new SdpError(`ICE restart failed: ${(err as Error)?.message ?? String(err)}`);
    }
  }

  async closeStation(stationId: string): Promise<void> {
    const st = this.stations.get(stationId);
    if (!st) return;
    if (st.publisher) await this.closePublisher(st.publisher, 'closed');
    st.lastOut = undefined;
    for (const [sessionId, s] of [...this.listeners]) {
      if (s.stationId !== stationId) continue;
      this.listeners.delete(sessionId);
      s.shard.sessions--;
      this.emit({ type: 'listener-gone', stationId, sessionId, reason: 'station-closed' });
    }
    await Promise.all(
      this.shards
        .filter((s) => s.alive)
        .map((s) => s.closeStation(stationId).catch(() => undefined)),
    );
  }

  listenerCount(stationId: string): number {
    const st = this.stations.get(stationId);
    return st ? this.sum(st) : 0;
  }

  hasSession(stationId: string, sessionId: string): 'publisher' | 'listener' | null {
    if (this.stations.get(stationId)?.publisher?.sessionId === sessionId) return 'publisher';
    if (this.listeners.get(sessionId)?.stationId === stationId) return 'listener';
    return null;
  }

  stats(): EngineStats {
    const perShard = this.shards.map((s) => s.stats());
    let publishers = 0;
    let listeners = 0;
    for (const st of this.stations.values()) {
      if (st.publisher) publishers++;
      listeners += this.sum(st);
    }
    return {
      stations: this.stations.size,
      publishers,
      listeners,
      pendingListeners: Math.max(0, this.listeners.size - listeners),
      shards: this.shardMode === 'worker' ? this.shards.length : 0,
      packetsIn: this.packetsIn,
      packetsOut: perShard.reduce((a, s) => a + s.packetsOut, 0),
      bytesOut: perShard.reduce((a, s) => a + s.bytesOut, 0),
      perShard: perShard.map((s) => ({
        listeners: s.listeners,
        packetsOut: s.packetsOut,
        sendErrors: s.sendErrors,
        srtp: { gcm: s.gcm, cm: s.cm },
      })),
    };
  }

  shardUtilization(): EventLoopUtilization[] {
    return this.shards.map((s) => s.elu());
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('media engine is closed');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.watchdog);
    if (this.loadTimer) clearInterval(this.loadTimer);
    for (const st of this.stations.values()) {
      if (st.flushTimer) clearTimeout(st.flushTimer);
      st.flushTimer = undefined;
      if (st.publisher) await this.closePublisher(st.publisher, 'closed');
    }
    await Promise.all(this.shards.map((s) => s.close().catch(() => undefined)));
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
