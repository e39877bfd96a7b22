/**
 * HTTP listening for radio apps, VLC, smart speakers and networks that drop UDP:
 * `GET /listen/{username}/{slug}.ogg` is the live station as an endless Ogg/Opus stream (the
 * publisher's packets, no transcoding) and `.mp3` the same as MP3 (for players without Opus, such
 * as older Safari), each starting with a burst of the last second of audio; `.m3u` and `.pls`
 * point at the Ogg stream. One muxer per station and container on this node (for MP3 one
 * encoder, started by the first MP3 listener and stopped after the last), its output shared by
 * every listener and written in batches; a listener that cannot keep up is dropped.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Mp3Frames, OggOpusWriter, OpusToMp3, opusPacketSamples } from '@radiobroadcaster/audio';
import { ErrorTag, type ErrorBody } from '@radiobroadcaster/contracts';
import type { MediaEngine } from '@radiobroadcaster/sfu';
import { takeRequestsFirst } from '../common/fast-lane.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { DomainsService } from '../domains/domains.service.js';
import { EventBus } from '../events/event-bus.js';
import { MEDIA_ENGINE } from '../media/media.providers.js';
import { MetricsService } from '../metrics/metrics.service.js';
import type { StationEntity } from '../stations/station.entity.js';
import { StationsService } from '../stations/stations.service.js';
import { ListeningSessions } from '../stats/listening-sessions.service.js';
import { StreamKeysService } from './stream-keys.service.js';

/** Audio sent at once to a new listener, so players start without waiting for their buffer. */
const BURST_MS = 1000;
/**
 * Pages are written to listeners in batches of this long: each batch is one write per listener,
 * the cost that decides how many listeners a core holds; players buffer far more than this.
 */
const BATCH_MS = 200;
/** A listener with this much unsent data is too slow (or gone) and is dropped. */
const MAX_BACKLOG_BYTES = 512 * 1024;
/** Station lookups by address are reused this long (many listeners arrive together). */
const LOOKUP_TTL_MS = 1000;

type Format = Container | 'm3u' | 'pls';

/** Header value from any text: UTF-8 bytes as Latin-1 (what Icecast sends), no control characters. */
function headerText(text: string, max = 200): string {
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, max);
  return Buffer.from(clean, 'utf8').toString('latin1');
}

class Listener {
  /** Still counted (presence, metrics, listening stats). */
  counted = true;
  constructor(
    readonly id: string,
    readonly res: ServerResponse,
  ) {}
}

/** The containers a station streams in: its Opus packets as they are, or MP3 for older players. */
type Container = 'ogg' | 'mp3';

const CONTENT_TYPES: Record<Container, string> = { ogg: 'audio/ogg', mp3: 'audio/mpeg' };

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
const CONTAINERS: readonly Container[] = ['ogg', 'mp3'];
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

interface Lookup {
  station: StationEntity | null;
  publicStreamUrl: boolean;
  at: number;
}

@Injectable()
export class HttpListen implements OnModuleDestroy {
  private readonly logger = new Logger('HttpListen');
  private readonly streams = new Map<string, StationStream>();
  private readonly lookups = new Map<string, Lookup>();
  private readonly refreshing = new Map<string, Promise<Lookup>>();
  private readonly off: (() => void)[] = [];
  private readonly countTimers = new Map<string, NodeJS.Timeout>();
  private readonly sentCounts = new Map<string, number>();
  private readonly nodeId = randomUUID();

  constructor(
    @Inject(MEDIA_ENGINE) private readonly engine: MediaEngine,
    @Inject(StationsService) private readonly stations: StationsService,
    @Inject(StreamKeysService) private readonly keys: StreamKeysService,
    @Inject(DomainsService) private readonly domains: DomainsService,
    @Inject(ListeningSessions) private readonly listening: ListeningSessions,
    @Inject(MetricsService) private readonly metrics: MetricsService,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    const ended = ({ stationId }: { stationId: string }) => {
      this.lookups.clear();
      for (const container of CONTAINERS) {
        this.streams.get(streamKey(stationId, container))?.end();
        this.streams.delete(streamKey(stationId, container));
      }
      this.streamsChanged();
    };
    this.off.push(bus.subscribe('station.offline', ended));
    this.off.push(bus.subscribe('station.ended', ended));
    this.off.push(bus.subscribe('station.deleted', ended));
    this.off.push(bus.subscribe('station.live', () => this.lookups.clear()));
    this.off.push(bus.subscribe('station.updated', () => this.lookups.clear()));
  }

  onModuleDestroy(): void {
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

  /** Takes `GET`/`HEAD /listen/…` ahead of Express (a stream is no request/response for Nest). */
  install(server: Server): void {
    takeRequestsFirst(server, (req, res) => {
      const url = req.url ?? '';
      if ((req.method !== 'GET' && req.method !== 'HEAD') || !url.startsWith('/listen/'))
        return false;
      void this.handle(req, res);
      return true;
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const path = (req.url ?? '').split('?')[0]!;
      const m = /^\/listen\/([^/]+)\/([^/]+)\.(ogg|mp3|m3u|pls)$/.exec(path);
      if (!m) return this.error(res, 404, ErrorTag.NotFound, 'No such stream');
      const [username, slug] = [safeDecode(m[1]!), safeDecode(m[2]!)];
      const format = m[3] as Format;
      const found = username && slug ? await this.lookup(username, slug) : null;
      if (!found?.station)
        return this.error(res, 404, ErrorTag.StationNotFound, 'Station not found');
      const station = found.station;
      const origin = requestOrigin(req);
      if (origin === undefined) {
        if (!found.publicStreamUrl)
          return this.error(
            res,
            403,
            ErrorTag.DomainNotAllowed,
            "This station's stream URL is not public: listen on its page",
          );
      } else if (
        !(await this.domains.originAllowed(
          station.broadcasterId,
          origin,
          this.config.trustedOrigins,
        ))
      ) {
        return this.error(
          res,
          403,
          ErrorTag.DomainNotAllowed,
          "This station can't be played on this site",
        );
      }
      const base = `${this.config.publicUrl}/listen/${encodeURIComponent(station.broadcaster.username)}/${encodeURIComponent(station.slug)}`;
      if (format === 'm3u' || format === 'pls')
        return this.playlist(req, res, format, station, base);
      if (!station.isActive || station.status !== 'live')
        return this.error(
          res,
          404,
          ErrorTag.StationNotActive,
          'This station is not currently broadcasting',
        );
      // The stream as it is, ended by closing the connection, as Icecast sends it: no chunk framing,
      // so each batch is one write to the socket.
      res.useChunkedEncodingByDefault = false;
      res.writeHead(200, {
        'Content-Type': CONTENT_TYPES[format],
        'Cache-Control': 'no-store',
        'Access-Control-Allow-Origin': '*',
        'X-Content-Type-Options': 'nosniff',
        'icy-name': headerText(station.name),
        'icy-description': headerText(station.description || 'Live radio streaming.'),
        'icy-url': `${this.config.publicUrl}/${encodeURIComponent(station.broadcaster.username)}/${encodeURIComponent(station.slug)}`,
        'icy-pub': '0',
      });
      if (req.method === 'HEAD') return void res.end();
      res.socket?.setNoDelay(true);
      this.attach(station.id, format, req, res, origin ?? null);
    } catch (err) {
      this.logger.warn(`listen ${req.url}: ${(err as Error).message}`);
      if (!res.headersSent) this.error(res, 500, ErrorTag.InternalError, 'Something went wrong');
      else res.destroy();
    }
  }

  private attach(
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

  private playlist(
    req: IncomingMessage,
    res: ServerResponse,
    format: 'm3u' | 'pls',
    station: StationEntity,
    base: string,
  ): void {
    const title = `${station.name} by @${station.broadcaster.username}`.replace(/[\r\n]/g, ' ');
    // Ogg/Opus first; MP3 after it for players that cannot play Ogg (they skip an entry they
    // cannot open). An Ogg player that reaches the end of the live stream finds the MP3 one ended too.
    const urls = CONTAINERS.map((c) => `${base}.${c}`);
    const body =
      format === 'm3u'
        ? `#EXTM3U\n${urls.map((u) => `#EXTINF:-1,${title}\n${u}\n`).join('')}`
        : `[playlist]\nNumberOfEntries=${urls.length}\n` +
          urls
            .map((u, i) => `File${i + 1}=${u}\nTitle${i + 1}=${title}\nLength${i + 1}=-1\n`)
            .join('') +
          'Version=2\n';
    res.writeHead(200, {
      'Content-Type': format === 'm3u' ? 'audio/x-mpegurl; charset=utf-8' : 'audio/x-scpls',
      'Content-Length': Buffer.byteLength(body),
      'Cache-Control': 'no-store',
      'Content-Disposition': `inline; filename="${station.slug}.${format}"`,
      'Access-Control-Allow-Origin': '*',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  private error(res: ServerResponse, status: number, tag: ErrorTag, message: string): void {
    const body: ErrorBody = { error: tag, message };
    const json = JSON.stringify(body);
    res.writeHead(status, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(json),
      'Cache-Control': 'no-store',
      'Access-Control-Allow-Origin': '*',
    });
    res.end(res.req?.method === 'HEAD' ? undefined : json);
  }

  /**
   * The station at an address, from the database at most once a second per address: thousands of
   * listeners arriving together must not queue thousands of queries (behind the listening-stats
   * writes). A known address answers at once and is refreshed behind the answer.
   */
  private lookup(username: string, slug: string): Promise<Lookup> {
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
      const publicStreamUrl = station ? await this.keys.publicStreamUrl(station.id) : true;
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

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return '';
  }
}

/**
 * The web page asking, from `Origin` or else `Referer` (an `<audio>` element sends only the
 * latter); undefined when neither is there (radio apps, VLC, speakers).
 */
function requestOrigin(req: IncomingMessage): string | undefined {
  const origin = req.headers.origin;
  if (origin) return origin;
  const referer = req.headers.referer;
  if (!referer) return undefined;
  try {
    const u = new URL(referer);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : 'null';
  } catch {
    return 'null';
  }
}
