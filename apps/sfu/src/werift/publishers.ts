/**
 * The publishers of every station: WebRTC and packet publishers, the hand-over from one to the
 * next (their streams rewritten into one continuous outbound stream), NACKs to them for what they
 * lost, taps, and the timeout of those that fall silent.
 */
import { randomUUID } from 'node:crypto';
import type { RtpPacket } from '../boundary/werift.js';
import type { IceMux } from '../boundary/ice-mux.js';
import type {
  EngineEvent,
  PacketPublisher,
  PacketTap,
  PublisherGoneReason,
  SessionAnswer,
} from '../media-engine.js';
import { NackRequester } from '../nack.js';
import { validateOffer } from '../sdp.js';
import { negotiateAnswer } from './negotiate.js';
import { newPublisher, sendNack, type Publisher } from './publisher.js';
import type { ShardPool } from './shard-pool.js';
import type { Station, StationBook } from './stations.js';
import { createPeer, type PeerSettings } from './werift-config.js';
import { takeOverPublisher } from '../publisher-takeover.js';

export interface PublishersDeps {
  readonly stations: StationBook;
  readonly shards: ShardPool;
  readonly settings: PeerSettings;
  readonly publisherTimeoutMs: number;
  readonly emit: (e: EngineEvent) => void;
  /** This thread's share of the node's one port, once the engine has started. */
  readonly mux: () => IceMux | undefined;
  readonly closed: () => boolean;
}

export class Publishers {
  private readonly taps = new Map<string, Set<PacketTap>>();
  private readonly stations: StationBook;
  private readonly watchdog: NodeJS.Timeout;
  packetsIn = 0;
  private nackedFromGone = 0;

  constructor(private readonly deps: PublishersDeps) {
    this.stations = deps.stations;
    this.watchdog = setInterval(() => this.checkPublishers(), 250);
    this.watchdog.unref();
  }

  private emit(e: EngineEvent): void {
    this.deps.emit(e);
  }

  async publish(stationId: string, offerSdp: string): Promise<SessionAnswer> {
    const offer = validateOffer(offerSdp, 'publisher');
    const settings = this.deps.settings;
    const pc = createPeer(settings);
    const sessionId = randomUUID();
    const transceiver = pc.addTransceiver('audio', { direction: 'recvonly' });
    const pub: Publisher = newPublisher(sessionId, stationId, {
      pc,
      nack: new NackRequester((lost) => sendNack(transceiver, pub.ssrc, lost)),
    });
    transceiver.onTrack.subscribe((track) => {
      track.onReceiveRtp.subscribe((rtp) => this.onPublisherRtp(pub, rtp));
    });
    const mux = this.deps.mux();
    const answer = await negotiateAnswer(pc, offer, {
      sessionId,
      direction: 'receive',
      announcedAddress: settings.announcedAddress,
      attach: mux ? (p) => mux.attach(p) : undefined,
    });
    if (this.deps.closed()) {
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

  publishPackets(stationId: string): PacketPublisher {
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
    this.stations.station(pub.stationId, true).pending.add(pub);
  }

  /** `pub` sent its first packet: it is the station's publisher now. */
  private takeOver(st: Station, pub: Publisher): void {
    const replaced = takeOverPublisher(st, pub);
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
    const shards = this.deps.shards;
    const data = shards.mode === 'worker' || taps ? Buffer.from(payload) : payload;
    shards.packet(pub.stationId, seq, ts, marker, data);
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
    this.nackedFromGone += pub.nack?.requested ?? 0;
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
    if (st) this.stations.maybeDropStation(st);
  }

  private checkPublishers(): void {
    const now = Date.now();
    const timeoutMs = this.deps.publisherTimeoutMs;
    for (const st of this.stations.values()) {
      for (const pub of [...(st.publisher ? [st.publisher] : []), ...st.pending]) {
        const ref = pub.lastRtpAt || pub.createdAt;
        if (now - ref > timeoutMs) void this.closePublisher(pub, 'timeout');
      }
    }
  }

  async unpublish(stationId: string, sessionId: string): Promise<boolean> {
    const pub = this.stations.findPublisher(stationId, sessionId);
    if (!pub) return false;
    await this.closePublisher(pub, 'deleted');
    return true;
  }

  /** Closes the station's publishers, those waiting first. */
  async closeStation(st: Station): Promise<void> {
    for (const p of [...st.pending]) await this.closePublisher(p, 'closed');
    if (st.publisher) await this.closePublisher(st.publisher, 'closed');
  }

  /** Packets asked again from publishers so far (RFC 4585 NACKs), gone ones included. */
  nackedFromPublishers(): number {
    let n = this.nackedFromGone;
    for (const st of this.stations.values()) n += st.publisher?.nack?.requested ?? 0;
    return n;
  }

  async close(): Promise<void> {
    clearInterval(this.watchdog);
    for (const st of this.stations.values()) await this.closeStation(st);
    this.taps.clear();
  }
}
