/**
 * The SFU in this process: publisher PeerConnections and station state on the calling thread,
 * listeners on shards (worker threads by default). Embedded in the API, and what every SFU node runs.
 */
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { EventLoopUtilization } from 'node:perf_hooks';
import {
  GenericNack,
  RtcpTransportLayerFeedback,
  type RTCPeerConnection,
  type RTCRtpTransceiver,
  type RtpPacket,
} from '../boundary/werift.js';
import {
  CapacityError,
  EngineEvents,
  type EngineEvent,
  type EngineStats,
  type MediaEngine,
  type MediaEngineOptions,
  type PacketPublisher,
  type PacketTap,
  type PublisherGoneReason,
  type SessionAnswer,
  type SessionKind,
} from '../media-engine.js';
import { IceMux, MUX_TAG_LENGTH, type IceMuxStats } from '../boundary/ice-mux.js';
import { IceMuxRouter } from '../net/ice-mux-router.js';
import { NackRequester } from '../nack.js';
import { validateOffer } from '../sdp.js';
import { ShardCapacity, ShardLoad } from './capacity.js';
import type { ShardConfig, ShardEvent } from './listener-shard.js';
import { negotiateAnswer } from './negotiate.js';
import {
  InThreadShard,
  resolveShardWorker,
  WorkerShard,
  type ShardHandle,
} from './shard-handles.js';
import { createPeer, type PeerSettings } from './werift-config.js';

interface Publisher {
  readonly sessionId: string;
  readonly stationId: string;
  /** WebRTC publishers; packet publishers (see publishPackets) have none. */
  readonly pc?: RTCPeerConnection;
  /** Packet publishers: sequence number and timestamp of their next packet (before the deltas). */
  next?: { seq: number; ts: number };
  readonly onGone?: (reason: PublisherGoneReason) => void;
  /** WebRTC publishers: asks for what they lost on the way to us (RFC 4585 generic NACK). */
  readonly nack?: NackRequester;
  /** WebRTC publishers: their RTP stream's SSRC (what the NACKs name). */
  ssrc?: number;
  readonly createdAt: number;
  lastRtpAt: number;
  gotMedia: boolean;
  seqDelta: number;
  tsDelta: number;
  gone: boolean;
}

/** A publisher that has sent nothing yet: WebRTC (`pc`, `nack`) or packets (`next`, `onGone`). */
function newPublisher(
  sessionId: string,
  stationId: string,
  kind: Pick<Publisher, 'pc' | 'nack' | 'next' | 'onGone'>,
): Publisher {
  return {
    sessionId,
    stationId,
    ...kind,
    createdAt: Date.now(),
    lastRtpAt: 0,
    gotMedia: false,
    seqDelta: 0,
    tsDelta: 0,
    gone: false,
  };
}

interface Station {
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
  private readonly taps = new Map<string, Set<PacketTap>>();
  private readonly events = new EngineEvents((err) =>
    console.error('[sfu] event listener threw', err),
  );
  private readonly shards: ShardHandle[] = [];
  private spawnShard?: (index: number) => ShardHandle;
  /** Recent event-loop utilization (0..1) per shard, sampled every second. */
  private readonly watchdog: NodeJS.Timeout;
  private readonly settings: PeerSettings;
  private readonly publisherTimeoutMs: number;
  private readonly listenerTimeoutMs: number;
  /** Engine-wide cap set by the operator (Infinity: none). */
  private readonly maxListeners: number;
  /** Admission by what each shard's thread is measured to hold; off with `maxListeners: 0`. */
  private readonly measured: boolean;
  /** Per shard index: its load reports and the capacity they show. */
  private readonly loads: ShardLoad[] = [];
  private packetsIn = 0;
  private nackedFromPublishers = 0;
  private closed = false;
  /** One port per node: the shared sockets and this thread's sessions (publishers, in-thread shard). */
  private router?: IceMuxRouter;
  private mux?: IceMux;
  private ports?: { udpPort: number; tcpPort?: number };
  shardMode: 'worker' | 'in-thread' = 'in-thread';

  constructor(private readonly opts: MediaEngineOptions) {
    this.settings = {
      announcedAddress: opts.announcedAddress,
      portRange: opts.portRange,
      iceServers: opts.iceServers ?? [],
    };
    this.publisherTimeoutMs = opts.publisherTimeoutMs ?? 5000;
    this.listenerTimeoutMs = Math.min(10000, Math.max(1000, opts.listenerTimeoutMs ?? 10000));
    const max = opts.maxListeners;
    this.maxListeners = max !== undefined && max > 0 ? max : Infinity;
    this.measured = max !== 0;
    this.watchdog = setInterval(() => this.checkPublishers(), 250);
    this.watchdog.unref();
  }

  async start(): Promise<void> {
    const wanted = this.opts.shards ?? availableParallelism();
    const count = Math.max(0, Math.floor(wanted));
    if (this.opts.tcpPort !== undefined && this.opts.udpPort === undefined) {
      throw new Error('an ICE-TCP port (RTC_TCP_PORT) needs the one UDP port (RTC_UDP_PORT)');
    }
    if (this.opts.udpPort !== undefined) {
      this.router = new IceMuxRouter({ udpPort: this.opts.udpPort, tcpPort: this.opts.tcpPort });
      const ports = await this.router.start();
      this.ports = ports;
      this.mux = new IceMux(
        { tag: MAIN_TAG, udpPort: ports.udpPort, tcpPort: ports.tcpPort },
        this.router,
      );
      this.router.addTarget(MAIN_TAG, this.mux);
    }
    const ports = this.ports;
    const cfg = (index: number): ShardConfig => ({
      index,
      settings: this.settings,
      listenerTimeoutMs: this.listenerTimeoutMs,
      mux: ports
        ? { tag: shardTag(index), udpPort: ports.udpPort, tcpPort: ports.tcpPort }
        : undefined,
    });
    const url = count > 0 ? resolveShardWorker() : null;
    if (count > 0 && !url) {
      console.warn(
        '[sfu] compiled shard worker not found (run `tsc -b apps/sfu`); listeners run in-thread',
      );
    }
    if (count === 0 || !url) {
      this.shards.push(new InThreadShard(0, cfg(0), (i, e) => this.onShardEvent(i, e), this.mux));
      return;
    }
    this.shardMode = 'worker';
    this.spawnShard = (i: number) => {
      const shard = new WorkerShard(
        i,
        url,
        cfg(i),
        (idx, e) => this.onShardEvent(idx, e),
        (idx, err) => this.onShardDeath(idx, err),
        this.router,
      );
      this.router?.addTarget(shardTag(i), shard.muxTarget);
      return shard;
    };
    for (let i = 0; i < count; i++) this.shards.push(this.spawnShard(i));
  }

  // ---------------------------------------------------------------- events

  on(listener: (e: EngineEvent) => void): () => void {
    return this.events.on(listener);
  }

  private emit(e: EngineEvent): void {
    this.events.emit(e);
  }

  private station(id: string, create: true): Station;
  private station(id: string, create: false): Station | undefined;
  private station(id: string, create: boolean): Station | undefined {
    let st = this.stations.get(id);
    if (!st && create) {
      st = {
        id,
        pending: new Set(),
        shardCounts: new Array<number>(this.shards.length).fill(0),
        emitted: 0,
      };
      this.stations.set(id, st);
    }
    return st;
  }

  private maybeDropStation(st: Station): void {
    if (st.publisher || st.pending.size > 0 || st.flushTimer) return;
    if (st.shardCounts.some((c) => c > 0)) return;
    for (const s of this.listeners.values()) if (s.stationId === st.id) return;
    this.stations.delete(st.id);
  }

  private onShardEvent(index: number, e: ShardEvent): void {
    if (e.t === 'stats') {
      const shard = this.shards[index];
      // an in-thread shard shares its thread with the rest of the process (the API, publishers):
      // its CPU says nothing about what its listeners cost, and the prior stands
      if (!shard || this.shardMode !== 'worker') return;
      const load = (this.loads[index] ??= new ShardLoad(new ShardCapacity(this.opts.capacity)));
      load.report({
        at: Date.now(),
        // where the OS gives no thread CPU time, the time the worker's event loop was busy
        cpuSeconds: e.stats.cpuSeconds ?? shard.elu().active / 1000,
        sends: e.stats.packetsOut,
        handshakes: e.stats.handshakes,
        listeners: e.stats.listeners,
      });
    } else if (e.t === 'count') {
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

  private onShardDeath(index: number, err: Error): void {
    if (this.closed) return;
    console.error(`[sfu] shard ${index} died; restarting it`, err);
    if (this.spawnShard) {
      this.shards[index] = this.spawnShard(index);
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
    const transceiver = pc.addTransceiver('audio', { direction: 'recvonly' });
    const pub: Publisher = newPublisher(sessionId, stationId, {
      pc,
      nack: new NackRequester((lost) => sendNack(transceiver, pub.ssrc, lost)),
    });
    transceiver.onTrack.subscribe((track) => {
      track.onReceiveRtp.subscribe((rtp) => this.onPublisherRtp(pub, rtp));
    });
    const answer = await negotiateAnswer(pc, offer, {
      sessionId,
      direction: 'receive',
      announcedAddress: this.settings.announcedAddress,
      attach: this.mux ? (p) => this.mux!.attach(p) : undefined,
    });
    if (this.closed) {
      await pc.close().catch(() => undefined);
      throw new Error('engine closed');
    }
    pc.connectionStateChange.subscribe((state) => {
      if (state === 'failed') void this.closePublisher(pub, 'ice-failed');
      else if (state === 'closed') void this.closePublisher(pub, 'closed');
    });
    this.attach(pub);
    return { sessionId, answerSdp: answer };
  }

  async publishPackets(stationId: string): Promise<PacketPublisher> {
    this.assertOpen();
    const sessionId = randomUUID();
    let onGone!: (reason: PublisherGoneReason) => void;
    const gone = new Promise<PublisherGoneReason>((resolve) => (onGone = resolve));
    const pub = newPublisher(sessionId, stationId, {
      next: { seq: Math.floor(Math.random() * 0x10000), ts: 0 },
      onGone,
    });
    this.attach(pub);
    return {
      sessionId,
      gone,
      push: (payload, samples) => {
        const next = pub.next!;
        const first = !pub.gotMedia;
        const { seq, ts } = next;
        next.seq = (seq + 1) & 0xffff;
        next.ts = (ts + Math.max(1, Math.round(samples))) >>> 0;
        this.forward(pub, seq, ts, first, payload);
      },
      close: async () => {
        await this.unpublish(stationId, sessionId);
      },
    };
  }

  /**
   * `pub` waits for its first packet: then it becomes the station's publisher and the one it
   * replaces goes (listeners stay). One that never sends times out and changes nothing.
   */
  private attach(pub: Publisher): void {
    this.station(pub.stationId, true).pending.add(pub);
  }

  /** `pub` sent its first packet: it is the station's publisher now. */
  private takeOver(st: Station, pub: Publisher): void {
    const replaced: Publisher[] = [];
    if (st.publisher) replaced.push(st.publisher);
    // older attempts still waiting (a client that retried) lose to the one that got through
    for (const p of st.pending) {
      if (p === pub) break;
      replaced.push(p);
    }
    st.pending.delete(pub);
    st.publisher = pub;
    this.emit({ type: 'publisher-media', stationId: pub.stationId, sessionId: pub.sessionId });
    for (const p of replaced) void this.closePublisher(p, 'replaced');
  }

  tap(stationId: string, onPacket: PacketTap): () => void {
    let set = this.taps.get(stationId);
    if (!set) this.taps.set(stationId, (set = new Set()));
    // one subscription per call, even when the same function is passed twice
    const entry: PacketTap = (p) => onPacket(p);
    set.add(entry);
    return () => {
      const current = this.taps.get(stationId);
      if (!current?.delete(entry)) return;
      if (current.size === 0) this.taps.delete(stationId);
    };
  }

  private onPublisherRtp(pub: Publisher, rtp: RtpPacket): void {
    const payload = rtp.payload;
    if (!payload || payload.length === 0) return;
    const h = rtp.header;
    if (pub.nack && !pub.gone) {
      pub.ssrc = h.ssrc;
      pub.nack.push(h.sequenceNumber);
    }
    this.forward(pub, h.sequenceNumber, h.timestamp, h.marker, payload);
  }

  /** One publisher packet to every listener shard and tap of the station. */
  private forward(
    pub: Publisher,
    inSeq: number,
    inTs: number,
    marker: boolean,
    payload: Buffer,
  ): void {
    if (pub.gone) return;
    const st = this.stations.get(pub.stationId);
    if (!st || (st.publisher !== pub && !st.pending.has(pub))) return;
    if (payload.length === 0) return;
    const now = Date.now();
    const h = { sequenceNumber: inSeq, timestamp: inTs };
    if (!pub.gotMedia) {
      pub.gotMedia = true;
      const last = st.lastOut;
      if (last) {
        // continue the station's outbound stream where the previous publisher left it
        pub.seqDelta = (last.seq + 1 - h.sequenceNumber) & 0xffff;
        const samples = Math.max(960, Math.round((now - last.at) * 48));
        pub.tsDelta = (last.ts + samples - h.timestamp) >>> 0;
      }
      this.takeOver(st, pub);
    }
    pub.lastRtpAt = now;
    this.packetsIn++;
    const seq = (h.sequenceNumber + pub.seqDelta) & 0xffff;
    const ts = (h.timestamp + pub.tsDelta) >>> 0;
    const last = st.lastOut;
    if (!last || ((seq - last.seq) & 0xffff) < 0x8000) st.lastOut = { seq, ts, at: now };
    // one copy with its own small ArrayBuffer (a pooled Buffer would clone the whole pool per shard)
    const taps = this.taps.get(pub.stationId);
    const data = this.shardMode === 'worker' || taps ? Buffer.from(payload) : payload;
    for (const shard of this.shards) shard.packet(pub.stationId, seq, ts, marker, data);
    if (taps) {
      for (const t of taps) {
        try {
          t(data);
        } catch (err) {
          console.error('[sfu] packet tap threw', err);
        }
      }
    }
  }

  private async closePublisher(pub: Publisher, reason: PublisherGoneReason): Promise<void> {
    if (pub.gone) return;
    pub.gone = true;
    this.nackedFromPublishers += pub.nack?.requested ?? 0;
    pub.nack?.close();
    const st = this.stations.get(pub.stationId);
    if (st && st.publisher === pub) st.publisher = undefined;
    st?.pending.delete(pub);
    this.emit({
      type: 'publisher-gone',
      stationId: pub.stationId,
      sessionId: pub.sessionId,
      reason,
    });
    pub.onGone?.(reason);
    await pub.pc?.close().catch(() => undefined);
    if (st) this.maybeDropStation(st);
  }

  private checkPublishers(): void {
    const now = Date.now();
    for (const st of this.stations.values()) {
      for (const pub of [...(st.publisher ? [st.publisher] : []), ...st.pending]) {
        const ref = pub.lastRtpAt || pub.createdAt;
        if (now - ref > this.publisherTimeoutMs) void this.closePublisher(pub, 'timeout');
      }
    }
  }

  /** The station's publisher or one waiting to take over, by session id. */
  private findPublisher(stationId: string, sessionId: string): Publisher | undefined {
    const st = this.stations.get(stationId);
    if (!st) return undefined;
    if (st.publisher?.sessionId === sessionId) return st.publisher;
    for (const p of st.pending) if (p.sessionId === sessionId) return p;
    return undefined;
  }

  async unpublish(stationId: string, sessionId: string): Promise<boolean> {
    const pub = this.findPublisher(stationId, sessionId);
    if (!pub) return false;
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
    const alive = this.shards.filter((s) => s.alive && s.sessions < this.shardLimit(s.index));
    if (alive.length === 0) {
      throw new CapacityError(`listener capacity reached (${this.capacity() ?? 'no limit'})`);
    }
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

  async closeStation(stationId: string): Promise<void> {
    const st = this.stations.get(stationId);
    if (!st) return;
    for (const p of [...st.pending]) await this.closePublisher(p, 'closed');
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

  /**
   * Listeners one shard may hold: its share of the operator's cap, and what its thread is measured
   * to hold on this machine (ShardCapacity). A burst of joins is not read as a full shard.
   */
  private shardLimit(index: number): number {
    const share = Math.ceil(this.maxListeners / this.shards.length);
    if (!this.measured) return share;
    return Math.min(share, this.shardCapacity(index));
  }

  private shardCapacity(index: number): number {
    return (this.loads[index] ??= new ShardLoad(
      new ShardCapacity(this.opts.capacity),
    )).capacity.listeners();
  }

  /** What admission lets in engine-wide now; null when unlimited. */
  private capacity(): number | null {
    const measured = this.measured
      ? this.shards.reduce((n, s) => n + (s.alive ? this.shardCapacity(s.index) : 0), 0)
      : Infinity;
    const cap = Math.min(this.maxListeners, measured);
    return Number.isFinite(cap) ? cap : null;
  }

  listenerCount(stationId: string): number {
    const st = this.stations.get(stationId);
    return st ? this.sum(st) : 0;
  }

  async hasSession(stationId: string, sessionId: string): Promise<SessionKind | null> {
    if (this.findPublisher(stationId, sessionId)) return 'publisher';
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
      maxListeners: this.capacity(),
      shards: this.shardMode === 'worker' ? this.shards.length : 0,
      packetsIn: this.packetsIn,
      packetsOut: perShard.reduce((a, s) => a + s.packetsOut, 0),
      bytesOut: perShard.reduce((a, s) => a + s.bytesOut, 0),
      recovery: {
        nackedFromPublishers: [...this.stations.values()].reduce(
          (a, st) => a + (st.publisher?.nack?.requested ?? 0),
          this.nackedFromPublishers,
        ),
        retransmittedToListeners: perShard.reduce((a, s) => a + s.retransmits, 0),
      },
      perShard: perShard.map((s, i) => {
        const limit = this.shardLimit(i);
        return {
          listeners: s.listeners,
          packetsOut: s.packetsOut,
          sendErrors: s.sendErrors,
          srtp: { gcm: s.gcm, cm: s.cm },
          capacity: Number.isFinite(limit) ? limit : null,
          measuredCapacity: this.shardCapacity(i),
          cpuSeconds: s.cpuSeconds,
          consent: s.consent,
        };
      }),
      net: this.netStats(perShard.map((s) => s.mux)),
    };
  }

  private netStats(shardMux: (IceMuxStats | undefined)[]): EngineStats['net'] {
    if (!this.router || !this.ports || !this.mux) return undefined;
    const r = this.router.stats();
    // the in-thread shard shares this thread's mux
    const all = [this.mux.stats(), ...(this.shardMode === 'worker' ? shardMux : [])];
    const sum = (k: keyof IceMuxStats) => all.reduce((a, m) => a + (m?.[k] ?? 0), 0);
    return {
      udpPort: this.ports.udpPort,
      tcpPort: this.ports.tcpPort ?? null,
      sessions: sum('sessions'),
      links: sum('links'),
      tcpConnections: r.tcpOpen,
      firstContact: r.routed,
      dropped: r.dropped + r.tcpRefused + sum('dropped'),
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
    for (const st of this.stations.values()) {
      if (st.flushTimer) clearTimeout(st.flushTimer);
      st.flushTimer = undefined;
      for (const p of [...st.pending]) await this.closePublisher(p, 'closed');
      if (st.publisher) await this.closePublisher(st.publisher, 'closed');
    }
    await Promise.all(this.shards.map((s) => s.close().catch(() => undefined)));
    this.mux?.close();
    await this.router?.close();
    this.stations.clear();
    this.listeners.clear();
    this.taps.clear();
  }
}

/** ufrag prefix of the engine's own thread (publishers, the in-thread shard) on the node's one port. */
const MAIN_TAG = 'm00';
/** ufrag prefix of worker shard `i` (one port per node, see net/ice-mux.ts). */
function shardTag(i: number): string {
  return `s${i.toString(36).padStart(MUX_TAG_LENGTH - 1, '0')}`;
}

/** One RTCP generic NACK to the publisher for `lost` (its own sequence numbers). */
function sendNack(t: RTCRtpTransceiver, mediaSourceSsrc: number | undefined, lost: number[]): void {
  if (!mediaSourceSsrc) return;
  const feedback = new GenericNack({ senderSsrc: t.receiver.rtcpSsrc, mediaSourceSsrc, lost });
  t.receiver.dtlsTransport
    .sendRtcp([new RtcpTransportLayerFeedback({ feedback })])
    .catch(() => undefined);
}

/** Creates the werift media engine and starts its listener shards. */
export async function createWeriftEngine(
  opts: MediaEngineOptions = {},
): Promise<MediaEngine & WeriftEngineInternals> {
  const engine = new WeriftEngine(opts);
  await engine.start();
  return engine;
}
