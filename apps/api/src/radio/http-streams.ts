import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Mp3Frames, OggOpusWriter, OpusToMp3, opusPacketSamples } from '@radiobroadcaster/audio';
import type { MediaEngine } from '@radiobroadcaster/sfu';
import { EventBus } from '../events/event-bus.js';
import { MEDIA_ENGINE } from '../media/media.providers.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { ListeningSessions } from '../stats/listening-sessions.service.js';

/** Audio sent at once to a new listener, so players start without waiting for their buffer. */
const BURST_MS = 1000;
/**
 * Pages are written to listeners in batches of this long: each batch is one write per listener,
 * the cost that decides how many listeners a core holds; players buffer far more than this.
 */
const BATCH_MS = 200;
/** A listener with this much unsent data is too slow (or gone) and is dropped. */
const MAX_BACKLOG_BYTES = 512 * 1024;

class Listener {
  /** Still counted (presence, metrics, listening stats). */
  counted = true;
  constructor(
    readonly id: string,
    readonly res: ServerResponse,
  ) {}
}

/** The containers a station streams in: its Opus packets as they are, or MP3 for older players. */
export type Container = 'ogg' | 'mp3';

export const CONTENT_TYPES: Record<Container, string> = { ogg: 'audio/ogg', mp3: 'audio/mpeg' };

/** What a container makes of the station's Opus packets. */
interface Muxer {
  /** The bytes one packet completes (may be none), each chunk a place a listener can start at. */
  packet(payload: Buffer, samples: number): { bytes: Buffer; sequence?: number };
  /** What a new listener gets ahead of the burst, which starts with `first` (none: no burst). */
  start(first: { sequence?: number } | undefined): Buffer;
  /** The stream's last bytes. */
  end(): Buffer;
}

/** Ogg/Opus: the publisher's packets as they are, one page each. */
class OggMuxer implements Muxer {
  private readonly writer = new OggOpusWriter({ vendor: 'radio-broadcaster' });
  packet(payload: Buffer, samples: number) {
    return this.writer.page(payload, samples);
  }
  /** Headers numbered to run into the burst. */
  start(first: { sequence?: number } | undefined): Buffer {
    return first?.sequence === undefined
      ? this.writer.headers()
      : this.writer.headers(first.sequence);
  }
  end(): Buffer {
    return this.writer.end();
  }
}

/** MP3 (128 kbit/s CBR) by one encoder per station; packets arriving while it loads are skipped. */
class Mp3Muxer implements Muxer {
  private encoder: OpusToMp3 | null = null;
  private readonly frames = new Mp3Frames();
  private ended = false;

  constructor(logger: Logger) {
    OpusToMp3.create({ bitrate: 128 }).then(
      (encoder) => {
        if (this.ended) encoder.close();
        else this.encoder = encoder;
      },
      (err: Error) => logger.warn(`MP3 encoder: ${err.message}`),
    );
  }
  packet(payload: Buffer) {
    return { bytes: this.encoder ? this.frames.push(this.encoder.push(payload)) : EMPTY };
  }
  start(): Buffer {
    return EMPTY;
  }
  end(): Buffer {
    this.ended = true;
    const tail = this.encoder ? this.frames.push(this.encoder.close()) : EMPTY;
    this.encoder = null;
    return tail;
  }
}

const EMPTY = Buffer.alloc(0);
export const CONTAINERS: readonly Container[] = ['ogg', 'mp3'];
const streamKey = (stationId: string, container: Container) => `${stationId}.${container}`;

/** One station's stream in one container on this node: the tap, the muxer, recent audio and the listeners. */
class StationStream {
  private readonly recent: { bytes: Buffer; sequence?: number; samples: number }[] = [];
  private recentSamples = 0;
  private batch: Buffer[] = [];
  private readonly timer: NodeJS.Timeout;
  private readonly offTap: () => void;
  private closed = false;
  private muxerEnded = false;
  readonly listeners = new Set<Listener>();

  constructor(
    readonly stationId: string,
    private readonly muxer: Muxer,
    engine: MediaEngine,
    private readonly onDrop: (l: Listener) => void,
  ) {
    this.offTap = engine.tap(stationId, (p) => this.packet(p));
    this.timer = setInterval(() => this.flush(), BATCH_MS);
  }

  private packet(payload: Buffer): void {
    const samples = opusPacketSamples(payload);
    if (samples <= 0) return;
    const chunk = this.muxer.packet(payload, samples);
    this.recent.push({ ...chunk, samples });
    this.recentSamples += samples;
    while (this.recentSamples - this.recent[0]!.samples >= (BURST_MS * 48000) / 1000) {
      this.recentSamples -= this.recent.shift()!.samples;
    }
    if (chunk.bytes.length > 0) this.batch.push(chunk.bytes);
  }

  private flush(): void {
    if (this.batch.length === 0) return;
    const chunk = this.batch.length === 1 ? this.batch[0]! : Buffer.concat(this.batch);
    this.batch = [];
    for (const l of this.listeners) this.write(l, chunk);
  }

  private write(l: Listener, chunk: Buffer): void {
    if (l.res.writableLength > MAX_BACKLOG_BYTES) {
      this.onDrop(l);
      l.res.destroy();
      return;
    }
    l.res.write(chunk);
  }

  /** What the container needs first, the burst, then every batch from now on. */
  add(l: Listener): void {
    this.flush();
    const burst = this.recent.filter((p) => p.bytes.length > 0);
    l.res.write(Buffer.concat([this.muxer.start(burst[0]), ...burst.map((p) => p.bytes)]));
    this.listeners.add(l);
  }

  /** The station went off the air: the container's last bytes, then every response ends. */
  end(): void {
    this.flush();
    const last = this.muxer.end();
    this.muxerEnded = true;
    for (const l of this.listeners) l.res.end(last);
    this.listeners.clear();
    this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.offTap();
    if (!this.muxerEnded) this.muxer.end();
  }
}

/**
 * The live HTTP streams of this node: one muxer per station and container (for MP3 one encoder,
 * started by the first MP3 listener and stopped after the last), its output shared by every
 * listener and written in batches; a listener that cannot keep up is dropped. Each listener counts
 * in presence, the metrics and the listening stats while connected.
 */
/** How often a node re-sends its non-zero HTTP listener counts (see ListenerCounts' expiry). */
export const HTTP_COUNT_HEARTBEAT_MS = 10_000;

@Injectable()
export class HttpStreams implements OnModuleDestroy {
  private readonly logger = new Logger('HttpListen');
  private readonly streams = new Map<string, StationStream>();
  private readonly off: (() => void)[] = [];
  private readonly countTimers = new Map<string, NodeJS.Timeout>();
  private readonly sentCounts = new Map<string, number>();
  private readonly nodeId = randomUUID();
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    @Inject(MEDIA_ENGINE) private readonly engine: MediaEngine,
    @Inject(ListeningSessions) private readonly listening: ListeningSessions,
    @Inject(MetricsService) private readonly metrics: MetricsService,
    @Inject(EventBus) private readonly bus: EventBus,
  ) {
    const ended = ({ stationId }: { stationId: string }) => {
      for (const container of CONTAINERS) {
        this.streams.get(streamKey(stationId, container))?.end();
        this.streams.delete(streamKey(stationId, container));
      }
      this.streamsChanged();
    };
    this.off.push(bus.subscribe('station.offline', ended));
    this.off.push(bus.subscribe('station.ended', ended));
    this.off.push(bus.subscribe('station.deleted', ended));
    // This node's counts again now and then: other nodes forget a node that stops sending them.
    this.heartbeat = setInterval(() => {
      for (const [stationId, count] of this.sentCounts)
        void this.bus
          .publish('station.httpListeners', { stationId, node: this.nodeId, count })
          .catch((err: Error) => this.logger.warn(`listener count: ${err.message}`));
    }, HTTP_COUNT_HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.heartbeat);
    for (const off of this.off) off();
    for (const t of this.countTimers.values()) clearTimeout(t);
    for (const s of this.streams.values()) s.end();
    this.streams.clear();
  }

  /** HTTP listeners of the station on this node, in every container. */
  count(stationId: string): number {
    let n = 0;
    for (const c of CONTAINERS) n += this.streams.get(streamKey(stationId, c))?.listeners.size ?? 0;
    return n;
  }

  /** Keeps the count of MP3 encoders (one per station with MP3 listeners) in the metrics. */
  private streamsChanged(): void {
    let n = 0;
    for (const key of this.streams.keys()) if (key.endsWith('.mp3')) n++;
    this.metrics.httpMp3Encoders.count = n;
  }

  /** Streams the station to `res` from now until it ends or the listener goes. */
  attach(
    stationId: string,
    container: Container,
    req: IncomingMessage,
    res: ServerResponse,
    origin: string | null,
  ): void {
    const key = streamKey(stationId, container);
    let stream = this.streams.get(key);
    if (!stream) {
      const muxer = container === 'ogg' ? new OggMuxer() : new Mp3Muxer(this.logger);
      stream = new StationStream(stationId, muxer, this.engine, (l) =>
        this.gone(stationId, container, l),
      );
      this.streams.set(key, stream);
      this.streamsChanged();
    }
    const l = new Listener(randomUUID(), res);
    stream.add(l);
    this.metrics.httpListeners.inc();
    this.changed(stationId);
    void this.listening.started({
      id: l.id,
      stationId,
      transport: 'http',
      origin,
      userAgent: req.headers['user-agent'],
    });
    res.on('close', () => this.gone(stationId, container, l));
  }

  private gone(stationId: string, container: Container, l: Listener): void {
    if (!l.counted) return;
    l.counted = false;
    const key = streamKey(stationId, container);
    const stream = this.streams.get(key);
    stream?.listeners.delete(l);
    if (!l.res.destroyed && !l.res.writableEnded) l.res.destroy();
    this.metrics.httpListeners.dec();
    void this.listening.ended(l.id);
    this.changed(stationId);
    if (stream && stream.listeners.size === 0) {
      stream.close();
      this.streams.delete(key);
      this.streamsChanged();
    }
  }

  /** This node's count of the station goes on the bus (coalesced): presence adds the nodes up. */
  private changed(stationId: string): void {
    if (this.countTimers.has(stationId)) return;
    this.countTimers.set(
      stationId,
      setTimeout(() => {
        this.countTimers.delete(stationId);
        const count = this.count(stationId);
        if ((this.sentCounts.get(stationId) ?? 0) === count) return;
        if (count > 0) this.sentCounts.set(stationId, count);
        else this.sentCounts.delete(stationId);
        void this.bus
          .publish('station.httpListeners', { stationId, node: this.nodeId, count })
          .catch((err: Error) => this.logger.warn(`listener count: ${err.message}`));
      }, 100),
    );
  }
}
