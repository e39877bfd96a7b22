/**
 * The mediasoup engine: `MediaEngine` over mediasoup's C++ workers, beside the werift engine.
 *
 * - One mediasoup Worker per core, each with one Router and one WebRtcServer (one UDP and one TCP
 *   port per worker, consecutive from `udpPort` / `tcpPort`).
 * - A station has a home worker. Its publishers (WHIP) produce there; a DirectTransport consumer of
 *   each publisher hands its packets to this process, which keeps the station's outbound stream
 *   continuous across publishers (sequence numbers and timestamps carry on, as the werift engine
 *   does), feeds the taps and sends the packets into the station's feed: a Producer on a
 *   DirectTransport of the home router. Packet publishers (Icecast ingest, relays) push into the same
 *   path. Listeners (WHEP) consume the feed on the worker placement picks (the fewest listeners); on
 *   another worker than the home, the feed is piped there once (`pipeToRouter`).
 * - mediasoup is ICE-lite and sends no consent checks of its own: its ICE consent timeout is set so a
 *   listener that stops sending checks goes within `listenerTimeoutMs` (≤ 10 s).
 * - A worker that dies is replaced on the same ports; its sessions end (`listener-gone` with reason
 *   'worker-died', publishers 'closed'), and players that reconnect are placed again by load.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { availableParallelism, networkInterfaces } from 'node:os';
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
import { validateOffer } from '../sdp.js';
import { buildAnswer, listenerCapabilities, parseOffer, producerParameters } from './ms-sdp.js';
import type {
  MediasoupModule,
  MsConsumer,
  MsDirectTransport,
  MsListenInfo,
  MsProducer,
  MsRouter,
  MsRtpCodecCapability,
  MsWebRtcServer,
  MsWebRtcTransport,
  MsWorker,
} from './ms-types.js';
import { findMediasoupWorker, WORKER_BUILD_HINT } from './worker-bin.js';
import { takeOverPublisher } from '../publisher-takeover.js';

/**
 * Listeners one worker is admitted without a fixed cap: the shared note's loopback fan-out measured
 * ~2,100 SRTP consumers of one Opus stream per worker core (9.3 µs per packet per consumer); 1,500
 * leaves room for handshakes and the controller on the same core.
 */
export const MEDIASOUP_WORKER_PRIOR = 1500;

const OPUS_PT = 111;
const OPUS: MsRtpCodecCapability = {
  kind: 'audio',
  mimeType: 'audio/opus',
  preferredPayloadType: OPUS_PT,
  clockRate: 48000,
  channels: 2,
  parameters: { useinbandfec: 1, stereo: 1, 'sprop-stereo': 1 },
  rtcpFeedback: [{ type: 'nack' }],
};

export interface MediasoupEngineOptions extends MediaEngineOptions {
  /** Workers (one per core by default); `shards` is read the same way when this is unset. */
  workers?: number;
  /** mediasoup's log level for its workers (default 'warn'). */
  logLevel?: 'debug' | 'warn' | 'error' | 'none';
  /** mediasoup's log tags (ice, dtls, srtp, rtp, ...) at `logLevel` debug. */
  logTags?: string[];
}

interface Slot {
  index: number;
  worker: MsWorker;
  router: MsRouter;
  server: MsWebRtcServer;
  listeners: number;
  packetsOut: number;
  cpuSeconds: number | null;
  dead: boolean;
}

interface Publisher {
  sessionId: string;
  stationId: string;
  transport: MsWebRtcTransport | null;
  producer: MsProducer | null;
  tapConsumer: MsConsumer | null;
  createdAt: number;
  lastRtpAt: number;
  gotMedia: boolean;
  gone: boolean;
  seqDelta: number;
  tsDelta: number;
  onGone?: (reason: PublisherGoneReason) => void;
}

interface Listener {
  sessionId: string;
  stationId: string;
  slot: Slot;
  transport: MsWebRtcTransport;
  consumer: MsConsumer | null;
  connected: boolean;
  gone: boolean;
  timer: NodeJS.Timeout | null;
}

interface Station {
  id: string;
  home: Slot;
  feedTransport: MsDirectTransport;
  feed: MsProducer;
  feedSsrc: number;
  tapTransport: MsDirectTransport;
  /** Workers the feed was piped to (the home needs none). */
  piped: Map<number, Promise<void>>;
  publisher: Publisher | null;
  pending: Set<Publisher>;
  listeners: Map<string, Listener>;
  connected: number;
  lastOut: { seq: number; ts: number; at: number } | null;
}

function rtpPayload(
  packet: Buffer,
): { seq: number; ts: number; marker: boolean; payload: Buffer } | null {
  if (packet.length < 12 || packet[0]! >> 6 !== 2) return null;
  const cc = packet[0]! & 0x0f;
  let offset = 12 + cc * 4;
  if (packet[0]! & 0x10) {
    if (packet.length < offset + 4) return null;
    offset += 4 + packet.readUInt16BE(offset + 2) * 4;
  }
  let end = packet.length;
  if (packet[0]! & 0x20) end -= packet[end - 1]!;
  if (end <= offset) return null;
  return {
    seq: packet.readUInt16BE(2),
    ts: packet.readUInt32BE(4),
    marker: (packet[1]! & 0x80) !== 0,
    payload: packet.subarray(offset, end),
  };
}

function rtpPacket(
  ssrc: number,
  seq: number,
  ts: number,
  marker: boolean,
  payload: Buffer,
): Buffer {
  const b = Buffer.allocUnsafe(12 + payload.length);
  b[0] = 0x80;
  b[1] = (marker ? 0x80 : 0) | OPUS_PT;
  b.writeUInt16BE(seq & 0xffff, 2);
  b.writeUInt32BE(ts >>> 0, 4);
  b.writeUInt32BE(ssrc >>> 0, 8);
  payload.copy(b, 12);
  return b;
}

/**
 * The worker's WebRtcServer sockets: one per local IPv4 address (as werift gathers a host
 * candidate per interface; 127.0.0.1 always), each on the worker's UDP port (and TCP port). With
 * `announcedAddress`, the non-loopback sockets announce it instead of their own address (once).
 */
export function webRtcListenInfos(
  announcedAddress: string | undefined,
  udpPort: number | undefined,
  tcpPort: number | undefined,
): MsListenInfo[] {
  const addresses = new Set<string>(['127.0.0.1']);
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4') addresses.add(a.address);
  }
  const infos: MsListenInfo[] = [];
  let announced = false;
  for (const ip of addresses) {
    const loopback = ip.startsWith('127.');
    if (!loopback && announcedAddress) {
      if (announced) continue;
      announced = true;
    }
    const announce = !loopback && announcedAddress ? announcedAddress : undefined;
    infos.push({ protocol: 'udp', ip, announcedAddress: announce, port: udpPort });
    if (tcpPort) infos.push({ protocol: 'tcp', ip, announcedAddress: announce, port: tcpPort });
  }
  return infos;
}

/**
 * The UDP and TCP ports worker `index` listens on: consecutive from `RTC_UDP_PORT` / `RTC_TCP_PORT`
 * (a WebRtcServer belongs to one worker). Unset or 0: a free port chosen by the worker.
 */
export function workerPorts(
  udpPort: number | undefined,
  tcpPort: number | undefined,
  index: number,
): { udp: number | undefined; tcp: number | undefined } {
  return { udp: udpPort ? udpPort + index : undefined, tcp: tcpPort ? tcpPort + index : undefined };
}

export class MediasoupEngine implements MediaEngine {
  private readonly events = new EngineEvents((err) =>
    console.error('[sfu] event listener threw', err),
  );
  private readonly slots: Slot[] = [];
  private readonly stations = new Map<string, Promise<Station>>();
  private readonly ready = new Map<string, Station>();
  private readonly taps = new Map<string, Set<PacketTap>>();
  private readonly publishers = new Map<string, Publisher>();
  private readonly listeners = new Map<string, Listener>();
  private readonly publisherTimeoutMs: number;
  private readonly listenerTimeoutMs: number;
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  private packetsIn = 0;
  private packetsOut = 0;
  private bytesOut = 0;

  private constructor(
    private readonly ms: MediasoupModule,
    private readonly opts: MediasoupEngineOptions,
    readonly workerBin: string,
  ) {
    this.publisherTimeoutMs = opts.publisherTimeoutMs ?? 5000;
    this.listenerTimeoutMs = Math.min(10000, Math.max(1000, opts.listenerTimeoutMs ?? 10000));
    this.timer = setInterval(() => this.tick(), 500);
    this.timer.unref();
  }

  /** Starts the workers; throws with a hint when no worker binary is available. */
  static async create(opts: MediasoupEngineOptions = {}): Promise<MediasoupEngine> {
    const found = findMediasoupWorker();
    if (!found.available)
      throw new Error(`mediasoup unavailable: ${found.reason}; ${WORKER_BUILD_HINT}`);
    // mediasoup reads the binary's path from the environment when its module loads
    process.env.MEDIASOUP_WORKER_BIN = found.bin;
    const name = 'mediasoup';
    const mod = (await import(name)) as MediasoupModule & { default?: MediasoupModule };
    const ms = typeof mod.createWorker === 'function' ? mod : mod.default!;
    const engine = new MediasoupEngine(ms, opts, found.bin);
    const count = Math.max(1, opts.workers ?? (opts.shards || availableParallelism()));
    try {
      for (let i = 0; i < count; i++) engine.slots.push(await engine.startSlot(i));
    } catch (err) {
      await engine.close();
      throw err;
    }
    return engine;
  }

  private async startSlot(index: number): Promise<Slot> {
    const { portRange, udpPort, tcpPort, announcedAddress } = this.opts;
    const worker = await this.ms.createWorker({
      logLevel: this.opts.logLevel ?? 'warn',
      logTags: this.opts.logTags,
      rtcMinPort: portRange?.min,
      rtcMaxPort: portRange?.max,
    });
    try {
      const router = await worker.createRouter({ mediaCodecs: [OPUS] });
      const ports = workerPorts(udpPort, tcpPort, index);
      const listenInfos = webRtcListenInfos(announcedAddress, ports.udp, ports.tcp);
      const server = await worker.createWebRtcServer({ listenInfos });
      const slot: Slot = {
        index,
        worker,
        router,
        server,
        listeners: 0,
        packetsOut: 0,
        cpuSeconds: null,
        dead: false,
      };
      worker.on('died', (err: Error) => void this.onWorkerDied(slot, err));
      return slot;
    } catch (err) {
      worker.close();
      throw err;
    }
  }

  private async onWorkerDied(slot: Slot, err: Error): Promise<void> {
    if (slot.dead || this.closed) return;
    slot.dead = true;
    console.error(
      `[sfu] mediasoup worker ${slot.index} (pid ${slot.worker.pid}) died: ${err.message}`,
    );
    for (const l of [...this.listeners.values()]) {
      if (l.slot === slot) this.dropListener(l, 'worker-died');
    }
    for (const [id, st] of [...this.ready]) {
      if (st.home !== slot) {
        st.piped.delete(slot.index);
        continue;
      }
      // the feed is gone with its worker: every listener of the station reconnects
      for (const l of [...st.listeners.values()]) this.dropListener(l, 'worker-died');
      for (const p of [st.publisher, ...st.pending]) if (p) this.dropPublisher(p, 'closed');
      this.ready.delete(id);
      this.stations.delete(id);
    }
    try {
      this.slots[slot.index] = await this.startSlot(slot.index);
    } catch (e) {
      console.error(`[sfu] mediasoup worker ${slot.index} could not be restarted`, e);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('engine closed');
  }

  private emit(e: EngineEvent): void {
    this.events.emit(e);
  }

  on(listener: (e: EngineEvent) => void): () => void {
    return this.events.on(listener);
  }

  private liveSlots(): Slot[] {
    return this.slots.filter((s) => !s.dead && !s.worker.closed);
  }

  private station(stationId: string): Promise<Station> {
    let p = this.stations.get(stationId);
    if (!p) {
      p = this.openStation(stationId);
      this.stations.set(stationId, p);
      p.catch(() => this.stations.delete(stationId));
    }
    return p;
  }

  private async openStation(id: string): Promise<Station> {
    const slots = this.liveSlots();
    if (slots.length === 0) throw new Error('no mediasoup worker is running');
    // the home with the fewest stations' publishers: listeners spread on their own
    const homes = new Map<Slot, number>();
    for (const st of this.ready.values()) homes.set(st.home, (homes.get(st.home) ?? 0) + 1);
    const home = slots.reduce((a, b) => ((homes.get(a) ?? 0) <= (homes.get(b) ?? 0) ? a : b));
    const feedTransport = await home.router.createDirectTransport();
    const feedSsrc = randomBytes(4).readUInt32BE(0) || 1;
    const feed = await feedTransport.produce({
      kind: 'audio',
      rtpParameters: {
        codecs: [
          {
            mimeType: 'audio/opus',
            payloadType: OPUS_PT,
            clockRate: 48000,
            channels: 2,
            parameters: OPUS.parameters,
            rtcpFeedback: [{ type: 'nack' }],
          },
        ],
        encodings: [{ ssrc: feedSsrc }],
        rtcp: { cname: `station-${id.slice(0, 32)}`, reducedSize: true },
      },
    });
    const tapTransport = await home.router.createDirectTransport();
    const st: Station = {
      id,
      home,
      feedTransport,
      feed,
      feedSsrc,
      tapTransport,
      piped: new Map(),
      publisher: null,
      pending: new Set(),
      listeners: new Map(),
      connected: 0,
      lastOut: null,
    };
    this.ready.set(id, st);
    return st;
  }

  /** The station's feed is consumable on `slot`'s router (piped there the first time). */
  private feedOn(st: Station, slot: Slot): Promise<void> {
    if (slot === st.home) return Promise.resolve();
    let p = st.piped.get(slot.index);
    if (!p) {
      p = st.home.router
        .pipeToRouter({ producerId: st.feed.id, router: slot.router })
        .then(() => undefined);
      st.piped.set(slot.index, p);
      p.catch(() => st.piped.delete(slot.index));
    }
    return p;
  }

  async publish(stationId: string, offerSdp: string): Promise<SessionAnswer> {
    this.assertOpen();
    const offer = parseOffer(validateOffer(offerSdp, 'publisher'));
    const rtpParameters = producerParameters(offer);
    const st = await this.station(stationId);
    const transport = await st.home.router.createWebRtcTransport({
      webRtcServer: st.home.server,
      enableUdp: true,
      enableTcp: Boolean(this.opts.tcpPort),
      preferUdp: true,
      iceConsentTimeout: Math.ceil(this.publisherTimeoutMs / 1000) + 5,
    });
    const pub = this.newPublisher(stationId, transport);
    try {
      await transport.connect({ dtlsParameters: offer.dtls });
      pub.producer = await transport.produce({ kind: 'audio', rtpParameters });
      pub.tapConsumer = await st.tapTransport.consume({
        producerId: pub.producer.id,
        rtpCapabilities: st.home.router.rtpCapabilities,
      });
    } catch (err) {
      this.dropPublisher(pub, 'closed');
      throw err;
    }
    pub.tapConsumer.on('rtp', (packet: Buffer) => {
      const p = rtpPayload(packet);
      if (p) this.forward(pub, p.seq, p.ts, p.marker, p.payload);
    });
    transport.on('dtlsstatechange', (state: string) => {
      if (state === 'failed') this.dropPublisher(pub, 'ice-failed');
      else if (state === 'closed') this.dropPublisher(pub, 'closed');
    });
    transport.on('icestatechange', (state: string) => {
      if (state === 'disconnected') this.dropPublisher(pub, 'ice-failed');
    });
    st.pending.add(pub);
    return { sessionId: pub.sessionId, answerSdp: buildAnswer(offer, transport, null) };
  }

  private newPublisher(stationId: string, transport: MsWebRtcTransport | null): Publisher {
    const pub: Publisher = {
      sessionId: randomUUID(),
      stationId,
      transport,
      producer: null,
      tapConsumer: null,
      createdAt: Date.now(),
      lastRtpAt: 0,
      gotMedia: false,
      gone: false,
      seqDelta: 0,
      tsDelta: 0,
    };
    this.publishers.set(pub.sessionId, pub);
    return pub;
  }

  async publishPackets(stationId: string): Promise<PacketPublisher> {
    this.assertOpen();
    const st = await this.station(stationId);
    let onGone!: (reason: PublisherGoneReason) => void;
    const gone = new Promise<PublisherGoneReason>((resolve) => (onGone = resolve));
    const pub = this.newPublisher(stationId, null);
    pub.onGone = onGone;
    st.pending.add(pub);
    let seq = randomBytes(2).readUInt16BE(0);
    let ts = 0;
    return {
      sessionId: pub.sessionId,
      gone,
      push: (payload, samples) => {
        const s = seq;
        const t = ts;
        seq = (seq + 1) & 0xffff;
        ts = (ts + Math.max(1, Math.round(samples))) >>> 0;
        this.forward(pub, s, t, !pub.gotMedia, payload);
      },
      close: async () => {
        await this.unpublish(stationId, pub.sessionId);
      },
    };
  }

  /** One publisher packet: takeover at the first, then into the station's feed and to its taps. */
  private forward(
    pub: Publisher,
    inSeq: number,
    inTs: number,
    marker: boolean,
    payload: Buffer,
  ): void {
    if (pub.gone || payload.length === 0) return;
    const st = this.ready.get(pub.stationId);
    if (!st || (st.publisher !== pub && !st.pending.has(pub))) return;
    const now = Date.now();
    if (!pub.gotMedia) {
      pub.gotMedia = true;
      const last = st.lastOut;
      if (last) {
        // continue the station's outbound stream where the previous publisher left it
        pub.seqDelta = (last.seq + 1 - inSeq) & 0xffff;
        const samples = Math.max(960, Math.round((now - last.at) * 48));
        pub.tsDelta = (last.ts + samples - inTs) >>> 0;
      } else {
        pub.seqDelta = 0;
        pub.tsDelta = 0;
      }
      this.takeOver(st, pub);
    }
    pub.lastRtpAt = now;
    this.packetsIn++;
    const seq = (inSeq + pub.seqDelta) & 0xffff;
    const ts = (inTs + pub.tsDelta) >>> 0;
    const last = st.lastOut;
    if (!last || ((seq - last.seq) & 0xffff) < 0x8000) st.lastOut = { seq, ts, at: now };
    if (!st.feed.closed) {
      st.feed.send(rtpPacket(st.feedSsrc, seq, ts, marker, payload));
      this.packetsOut += st.connected;
      this.bytesOut += st.connected * (payload.length + 12);
      for (const l of st.listeners.values()) if (l.connected) l.slot.packetsOut++;
    }
    const taps = this.taps.get(pub.stationId);
    if (taps) {
      const data = Buffer.from(payload);
      for (const t of taps) {
        try {
          t(data);
        } catch (err) {
          console.error('[sfu] packet tap threw', err);
        }
      }
    }
  }

  private takeOver(st: Station, pub: Publisher): void {
    const replaced = takeOverPublisher(st, pub);
    this.emit({ type: 'publisher-media', stationId: pub.stationId, sessionId: pub.sessionId });
    for (const p of replaced) this.dropPublisher(p, 'replaced');
  }

  private dropPublisher(pub: Publisher, reason: PublisherGoneReason): void {
    if (pub.gone) return;
    pub.gone = true;
    this.publishers.delete(pub.sessionId);
    const st = this.ready.get(pub.stationId);
    if (st?.publisher === pub) st.publisher = null;
    st?.pending.delete(pub);
    pub.tapConsumer?.close();
    pub.producer?.close();
    pub.transport?.close();
    pub.onGone?.(reason);
    this.emit({
      type: 'publisher-gone',
      stationId: pub.stationId,
      sessionId: pub.sessionId,
      reason,
    });
  }

  tap(stationId: string, onPacket: PacketTap): () => void {
    let set = this.taps.get(stationId);
    if (!set) this.taps.set(stationId, (set = new Set()));
    const entry: PacketTap = (p) => onPacket(p);
    set.add(entry);
    return () => {
      const current = this.taps.get(stationId);
      if (!current?.delete(entry)) return;
      if (current.size === 0) this.taps.delete(stationId);
    };
  }

  async unpublish(stationId: string, sessionId: string): Promise<boolean> {
    const pub = this.publishers.get(sessionId);
    if (!pub || pub.stationId !== stationId) return false;
    this.dropPublisher(pub, 'deleted');
    return true;
  }

  /** Admission: the engine-wide cap, then a live worker with room (the fewest listeners). */
  private place(): Slot {
    const slots = this.liveSlots();
    const { maxListeners } = this.opts;
    // joins in flight count: a slot's count goes up before its first await
    const total = slots.reduce((a, s) => a + s.listeners, 0);
    if (maxListeners !== undefined && maxListeners > 0 && total >= maxListeners) {
      throw new CapacityError(`listener capacity reached (${maxListeners})`);
    }
    const perWorker = maxListeners === undefined ? MEDIASOUP_WORKER_PRIOR : Infinity;
    const open = slots.filter((s) => s.listeners < perWorker);
    if (open.length === 0) {
      throw new CapacityError(`listener capacity reached (${slots.length} workers full)`);
    }
    return open.reduce((a, b) => (a.listeners <= b.listeners ? a : b));
  }

  async addListener(stationId: string, offerSdp: string): Promise<SessionAnswer> {
    this.assertOpen();
    const offer = parseOffer(validateOffer(offerSdp, 'listener'));
    const slot = this.place();
    slot.listeners++;
    let transport: MsWebRtcTransport;
    try {
      const st = await this.station(stationId);
      await this.feedOn(st, slot);
      transport = await slot.router.createWebRtcTransport({
        webRtcServer: slot.server,
        enableUdp: true,
        enableTcp: Boolean(this.opts.tcpPort),
        preferUdp: true,
        iceConsentTimeout: Math.max(1, Math.floor(this.listenerTimeoutMs / 1000)),
      });
    } catch (err) {
      slot.listeners--;
      throw err;
    }
    const l: Listener = {
      sessionId: randomUUID(),
      stationId,
      slot,
      transport,
      consumer: null,
      connected: false,
      gone: false,
      timer: null,
    };
    this.listeners.set(l.sessionId, l);
    const st = this.ready.get(stationId);
    st?.listeners.set(l.sessionId, l);
    let answerSdp: string;
    try {
      if (!st) throw new Error('station closed');
      await transport.connect({ dtlsParameters: offer.dtls });
      const consumer = await transport.consume({
        producerId: st.feed.id,
        rtpCapabilities: listenerCapabilities(offer),
        // the MID header extension must name the listener's own m-line
        mid: offer.mid,
        // resend what the listener NACKs: mediasoup's default for audio is none (it strips `nack`
        // from the consumer's codec, so nothing is stored and every NACK goes unanswered)
        enableRtx: true,
      });
      l.consumer = consumer;
      const pt = consumer.rtpParameters.codecs[0]?.payloadType;
      if (pt !== offer.opus.payloadType) {
        throw new Error(
          `the mediasoup engine sends Opus as payload type ${OPUS_PT} (offer has ${offer.opus.payloadType})`,
        );
      }
      consumer.on('producerclose', () => this.dropListener(l, 'station-closed'));
      answerSdp = buildAnswer(offer, transport, {
        ssrc: consumer.rtpParameters.encodings?.[0]?.ssrc ?? 0,
        cname: consumer.rtpParameters.rtcp?.cname ?? 'sfu',
        streamId: l.sessionId,
        nack: (consumer.rtpParameters.codecs[0]?.rtcpFeedback ?? []).some(
          (fb) => fb.type === 'nack' && !fb.parameter,
        ),
      });
    } catch (err) {
      this.dropListener(l, 'failed', false);
      throw err;
    }
    transport.on('dtlsstatechange', (state: string) => {
      if (state === 'connected') this.listenerUp(l);
      else if (state === 'failed' || state === 'closed') this.dropListener(l, 'dtls-failed');
    });
    transport.on('icestatechange', (state: string) => {
      // no consent check for iceConsentTimeout seconds: the listener has gone
      if (state === 'disconnected') this.dropListener(l, 'consent-expired');
    });
    l.timer = setTimeout(() => {
      if (!l.connected) this.dropListener(l, 'never-connected');
    }, this.listenerTimeoutMs + 5000);
    l.timer.unref();
    return { sessionId: l.sessionId, answerSdp };
  }

  private listenerUp(l: Listener): void {
    if (l.connected || l.gone) return;
    l.connected = true;
    const st = this.ready.get(l.stationId);
    if (!st) return;
    st.connected++;
    this.emit({ type: 'listeners', stationId: l.stationId, count: st.connected });
  }

  private dropListener(l: Listener, reason: string, announce = true): void {
    if (l.gone) return;
    l.gone = true;
    if (l.timer) clearTimeout(l.timer);
    this.listeners.delete(l.sessionId);
    l.slot.listeners--;
    l.consumer?.close();
    if (!l.transport.closed) l.transport.close();
    const st = this.ready.get(l.stationId);
    st?.listeners.delete(l.sessionId);
    if (st && l.connected) {
      st.connected--;
      this.emit({ type: 'listeners', stationId: l.stationId, count: st.connected });
    }
    if (announce)
      this.emit({ type: 'listener-gone', stationId: l.stationId, sessionId: l.sessionId, reason });
  }

  async removeListener(stationId: string, sessionId: string): Promise<boolean> {
    const l = this.listeners.get(sessionId);
    if (!l || l.stationId !== stationId) return false;
    this.dropListener(l, 'deleted');
    return true;
  }

  async closeStation(stationId: string): Promise<void> {
    const p = this.stations.get(stationId);
    if (!p) return;
    const st = await p.catch(() => null);
    if (!st) return;
    for (const l of [...st.listeners.values()]) this.dropListener(l, 'station-closed');
    for (const pub of [st.publisher, ...st.pending]) if (pub) this.dropPublisher(pub, 'closed');
    this.ready.delete(stationId);
    this.stations.delete(stationId);
    st.feedTransport.close();
    st.tapTransport.close();
  }

  listenerCount(stationId: string): number {
    return this.ready.get(stationId)?.connected ?? 0;
  }

  async hasSession(stationId: string, sessionId: string): Promise<SessionKind | null> {
    const pub = this.publishers.get(sessionId);
    if (pub && pub.stationId === stationId) return 'publisher';
    const l = this.listeners.get(sessionId);
    if (l && l.stationId === stationId) return 'listener';
    return null;
  }

  /** Publishers that stopped sending (or never did) time out; CPU figures of the workers refresh. */
  private tick(): void {
    const now = Date.now();
    for (const pub of [...this.publishers.values()]) {
      const since = pub.gotMedia ? pub.lastRtpAt : pub.createdAt;
      if (now - since > this.publisherTimeoutMs) this.dropPublisher(pub, 'timeout');
    }
    for (const slot of this.slots) {
      if (slot.dead || slot.worker.closed) continue;
      slot.worker
        .getResourceUsage()
        .then((u) => (slot.cpuSeconds = (u.ru_utime + u.ru_stime) / 1000))
        .catch(() => undefined);
    }
  }

  stats(): EngineStats {
    let publishers = 0;
    let pendingListeners = 0;
    for (const st of this.ready.values()) if (st.publisher) publishers++;
    for (const l of this.listeners.values()) if (!l.connected) pendingListeners++;
    const perWorker = this.opts.maxListeners === undefined ? MEDIASOUP_WORKER_PRIOR : null;
    return {
      stations: this.ready.size,
      publishers,
      listeners: this.listeners.size - pendingListeners,
      pendingListeners,
      maxListeners:
        this.opts.maxListeners === undefined
          ? this.liveSlots().length * MEDIASOUP_WORKER_PRIOR
          : this.opts.maxListeners || null,
      shards: this.slots.length,
      packetsIn: this.packetsIn,
      packetsOut: this.packetsOut,
      bytesOut: this.bytesOut,
      perShard: this.slots.map((s) => ({
        listeners: s.listeners,
        packetsOut: s.packetsOut,
        sendErrors: 0,
        capacity: perWorker,
        measuredCapacity: MEDIASOUP_WORKER_PRIOR,
        cpuSeconds: s.cpuSeconds,
      })),
    };
  }

  /** The process id of each worker, in worker order (a restarted worker has a new one). */
  workerPids(): number[] {
    return this.slots.map((s) => s.worker.pid);
  }

  /** Resident memory of each live worker process now (KiB, from /proc; 0 where unreadable). */
  async workersRssKiB(): Promise<number[]> {
    return Promise.all(
      this.liveSlots().map(async (s) => {
        const status = await readFile(`/proc/${s.worker.pid}/status`, 'utf8').catch(() => '');
        return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      }),
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    for (const id of [...this.stations.keys()]) await this.closeStation(id).catch(() => undefined);
    for (const s of this.slots) {
      s.dead = true;
      s.worker.close();
    }
  }
}
