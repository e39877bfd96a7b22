/**
 * Icecast-protocol ingest: BUTT, Mixxx, liquidsoap, ffmpeg and hardware encoders publish a station
 * with `SOURCE`/`PUT /ingest/{username}/{slug}` (HTTP Basic: `source` + the stream key) on the API's
 * own port, and update now playing with `GET /admin/metadata?mode=updinfo`. Ogg/Opus is passed
 * through untouched; MP3 is decoded and encoded to Opus (libs/audio). The station goes live, stalls
 * and ends exactly as with WHIP: the media engine's packet publisher does the rest.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import { Mp3ToOpusWorker, OggOpusDemuxer } from '@radiobroadcaster/audio';
import { ErrorTag, ICECAST_SOURCE_USER, NowPlayingRequest } from '@radiobroadcaster/contracts';
import type { PacketPublisher } from '@radiobroadcaster/sfu';
import { toErrorResponse } from '../common/all-errors.filter.js';
import { AppError } from '../common/app-error.js';
import { remoteAddress, type LaneRequest, type LaneRoute } from '../common/fast-lane.js';
import type { Reply } from '../common/json-doc.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { MediaService } from '../media/media.service.js';
import type { StationEntity } from '../stations/station.entity.js';
import { StationsService } from '../stations/stations.service.js';
import { PacketPacer } from './packet-pacer.js';
import { installSourceConnections, type SourceRequest } from './source-connections.js';
import { StreamKeysService } from './stream-keys.service.js';

/** The Content-Types a source may send, as the refusal names them. */
export const ACCEPTED_SOURCE_TYPES = 'audio/ogg (Opus) or audio/mpeg (MP3)';
const OGG_TYPES = new Set(['audio/ogg', 'application/ogg', 'audio/opus', 'audio/x-ogg']);
const MP3_TYPES = new Set(['audio/mpeg', 'audio/mp3', 'audio/mpeg3', 'audio/x-mpeg']);

/** Input is paused above this much audio waiting, and resumed below the low mark. */
const HIGH_WATER_MS = 3000;
const LOW_WATER_MS = 1500;
/**
 * A source that stays at least the low mark ahead of play time for this long sends faster than
 * real time (a file sent without `-re`, or a backlog): it is read on, and the audio that would
 * overflow the buffer is dropped. Pausing alone would leave tens of seconds in the kernel's socket
 * buffers (both ends'), keeping the station on the air that long after the source left.
 */
const OVERRUN_MS = 2000;
/** Audio beyond this much waiting is dropped, whatever the source (a read can bring seconds at once). */
const MAX_AHEAD_MS = HIGH_WATER_MS + 1000;
const REALM = 'Basic realm="Radio Broadcaster"';
/** libopus complexity for MP3 sources: half the CPU of 8 at 128 kbit/s with no audible loss. */
const MP3_OPUS_COMPLEXITY = 5;

type SourceFormat = 'ogg' | 'mp3';

/** `/ingest/{username}/{slug}` (an extension such as `.ogg` or `.mp3` on the slug is ignored). */
export function parseMount(path: string): { username: string; slug: string } | null {
  const m = /^\/ingest\/([^/?#]+)\/([^/?#]+?)(?:\.(?:ogg|opus|mp3))?\/?$/.exec(path);
  if (!m) return null;
  try {
    return { username: decodeURIComponent(m[1]!), slug: decodeURIComponent(m[2]!) };
  } catch {
    return null;
  }
}

function basicCredentials(header: string | undefined): { user: string; pass: string } | null {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!m) return null;
  const text = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  return colon < 0 ? null : { user: text.slice(0, colon), pass: text.slice(colon + 1) };
}

/** `Artist - Title` as Icecast sources send it. */
export function splitSong(song: string): { track: string; artist: string | null } {
  const at = song.indexOf(' - ');
  if (at <= 0) return { track: song.trim(), artist: null };
  return { track: song.slice(at + 3).trim() || song.trim(), artist: song.slice(0, at).trim() };
}

@Injectable()
export class IcecastIngest implements BeforeApplicationShutdown {
  private readonly logger = new Logger('IcecastIngest');
  private readonly sources = new Set<IcecastSource>();
  /** Client addresses over the failed-login limit on this node, until when (ms). */
  private readonly blocked = new Map<string, number>();

  constructor(
    @Inject(StationsService) private readonly stations: StationsService,
    @Inject(StreamKeysService) private readonly keys: StreamKeysService,
    @Inject(MediaService) private readonly media: MediaService,
    @Inject(ThrottlerStorage) private readonly throttler: ThrottlerStorage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Takes `SOURCE` and `PUT /ingest/…` connections of the API's HTTP server. */
  install(server: Server): void {
    installSourceConnections(server, '/ingest/', (socket, req, body) => {
      void this.accept(socket, req, body);
    });
  }

  /** Live sources on this node (tests, metrics). */
  get active(): number {
    return this.sources.size;
  }

  /** Before the HTTP server closes: it waits for every connection, sources' included. */
  beforeApplicationShutdown(): void {
    for (const s of this.sources) s.close('the server is shutting down');
  }

  /**
   * The station and key hash a source or metadata request from `ip` authenticates as. Failed
   * logins count per address (RATE_LIMIT_SOURCE_AUTH_PER_MINUTE, in the app's rate-limit storage:
   * Redis when configured, so across nodes); past the limit every attempt from it gets 429 until
   * the window is over, before its key is even looked at.
   */
  private async authenticate(
    path: string,
    authorization: string | undefined,
    ip: string,
  ): Promise<{ station: StationEntity; keyHash: string }> {
    this.assertNotBlocked(ip);
    try {
      return await this.login(path, authorization);
    } catch (err) {
      if (err instanceof AppError && err.tag === ErrorTag.Unauthorized) await this.failed(ip);
      throw err;
    }
  }

  private assertNotBlocked(ip: string): void {
    const until = this.blocked.get(ip);
    if (until === undefined) return;
    const left = until - Date.now();
    if (left > 0) throw tooManyFailures(Math.ceil(left / 1000));
    this.blocked.delete(ip);
  }

  /** Counts a failed login of `ip`; throws 429 once it is over the limit. */
  private async failed(ip: string): Promise<void> {
    const { limit, ttlMs } = this.config.rateLimits.source;
    if (limit <= 0) return;
    const r = await this.throttler.increment(`ip:${ip}`, ttlMs, limit, ttlMs, 'source');
    if (!r.isBlocked) return;
    const seconds = Math.max(1, r.timeToBlockExpire);
    if (this.blocked.size > 10_000) {
      const now = Date.now();
      for (const [k, t] of this.blocked) if (t <= now) this.blocked.delete(k);
    }
    this.blocked.set(ip, Date.now() + seconds * 1000);
    throw tooManyFailures(seconds);
  }

  private async login(
    path: string,
    authorization: string | undefined,
  ): Promise<{ station: StationEntity; keyHash: string }> {
    const mount = parseMount(path);
    const station = mount ? await this.stations.byAddress(mount.username, mount.slug) : null;
    if (!station)
      throw new AppError(
        ErrorTag.StationNotFound,
        `No station is mounted at ${path.slice(0, 200)}`,
      );
    const creds = basicCredentials(authorization);
    const denied = (message: string) =>
      new AppError(ErrorTag.Unauthorized, message, undefined, { 'WWW-Authenticate': REALM });
    if (!creds) throw denied('Send the user "source" and the station\'s stream key (HTTP Basic)');
    if (creds.user !== ICECAST_SOURCE_USER) throw denied('The user name must be "source"');
    const keyHash = await this.keys.verify(station.id, creds.pass);
    if (!keyHash) throw denied('Invalid stream key');
    return { station, keyHash };
  }

  private async accept(socket: Socket, req: SourceRequest, body: Buffer): Promise<void> {
    const path = req.target.split('?')[0]!;
    try {
      const forwarded = this.config.trustProxy ? req.headers['x-forwarded-for'] : undefined;
      const ip = forwarded?.split(',')[0]!.trim() || socket.remoteAddress || 'unknown';
      const { station, keyHash } = await this.authenticate(path, req.headers['authorization'], ip);
      if (req.headers['transfer-encoding'])
        throw AppError.validation('Send the stream as a plain body (no Transfer-Encoding)');
      const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      const declared: SourceFormat | null = OGG_TYPES.has(type)
        ? 'ogg'
        : MP3_TYPES.has(type) || type === ''
          ? 'mp3'
          : null;
      if (!declared) {
        throw new AppError(
          ErrorTag.UnsupportedMediaType,
          `Unsupported Content-Type ${type.slice(0, 100)}: send ${ACCEPTED_SOURCE_TYPES}`,
        );
      }
      await this.media.assertNoLivePublisher(station.id);
      if (socket.destroyed) return;
      if (/100-continue/i.test(req.headers['expect'] ?? ''))
        socket.write('HTTP/1.1 100 Continue\r\n\r\n');
      socket.write('HTTP/1.0 200 OK\r\nServer: Radio Broadcaster\r\nConnection: close\r\n\r\n');
      socket.setNoDelay(true);
      const source = new IcecastSource(
        { station, keyHash, declared, path },
        this.media,
        this.stations,
        this.logger,
        () => this.sources.delete(source),
      );
      this.sources.add(source);
      this.logger.log(`source connected to ${path} (${req.method}, ${type || 'no type'})`);
      source.start(socket, body);
    } catch (err) {
      const { status, body: errorBody, headers } = toErrorResponse(err);
      if (status >= 500) this.logger.error(`source on ${path}: ${(err as Error).message}`);
      else this.logger.warn(`source refused on ${path}: ${status} ${errorBody.message}`);
      const json = JSON.stringify(errorBody);
      const extra = Object.entries(headers ?? {})
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      socket.end(
        `HTTP/1.0 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
          `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\n` +
          `Connection: close\r\n${extra}\r\n${json}`,
      );
    }
  }

  /** `GET /admin/metadata?mode=updinfo&mount=…&song=…` (Icecast's metadata update) on the fast lane. */
  laneRoutes(): LaneRoute[] {
    return [{ path: '/admin/metadata', handler: (req) => this.metadata(req) }];
  }

  private async metadata(req: LaneRequest): Promise<Reply> {
    const url = new URL(req.url ?? '/', 'http://x');
    const q = url.searchParams;
    try {
      if (q.get('mode') !== 'updinfo') throw AppError.validation('Only mode=updinfo is supported');
      const mount = q.get('mount') ?? '';
      const song = q.get('song') ?? '';
      const ip = remoteAddress(req, this.config.trustProxy) ?? 'unknown';
      const { station } = await this.authenticate(mount, req.headers.authorization, ip);
      if (!song.trim()) {
        await this.stations.clearNowPlaying(station.broadcasterId, station.id);
      } else {
        const { track, artist } = splitSong(song);
        const parsed = NowPlayingRequest.safeParse({
          stationId: station.id,
          track,
          ...(artist ? { artist } : {}),
        });
        if (!parsed.success)
          throw AppError.validation(`song: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
        await this.stations.setNowPlaying(station.broadcasterId, parsed.data);
      }
      return iceResponse(200, 'Metadata update successful', 1);
    } catch (err) {
      const { status, body, headers } = toErrorResponse(err);
      const reply = iceResponse(status, body.message, 0);
      reply.headers.push(...Object.entries(headers ?? {}).flat());
      return reply;
    }
  }
}

function tooManyFailures(seconds: number): AppError {
  return new AppError(
    ErrorTag.RateLimited,
    `Too many failed source logins, try again in ${seconds} seconds`,
    undefined,
    { 'Retry-After': String(seconds) },
  );
}

/** Icecast's XML answer to admin requests (what sources parse, if anything). */
function iceResponse(status: number, message: string, ret: 0 | 1): Reply {
  const escaped = message.replace(
    /[<>&"]/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!,
  );
  const body = `<?xml version="1.0"?>\n<iceresponse><message>${escaped}</message><return>${ret}</return></iceresponse>\n`;
  return {
    status,
    headers: [
      'Content-Type',
      'text/xml; charset=utf-8',
      'Content-Length',
      Buffer.byteLength(body),
      'Cache-Control',
      'no-store',
    ],
    body,
  };
}

interface SourceTarget {
  station: StationEntity;
  keyHash: string;
  declared: SourceFormat;
  path: string;
}

/** One connected source: bytes in, Opus packets paced into the station's packet publisher. */
class IcecastSource {
  private format: SourceFormat | null = null;
  private demuxer: OggOpusDemuxer | null = null;
  private mp3: Mp3ToOpusWorker | null = null;
  private publisher: PacketPublisher | null = null;
  private readonly pacer = new PacketPacer((p, samples) => this.publisher?.push(p, samples));
  private socket: Socket | null = null;
  private work: Promise<void> = Promise.resolve();
  private inflight = 0;
  private resumeTimer: NodeJS.Timeout | null = null;
  /** Last time less than the low mark of audio was waiting. */
  private caughtUpAt = Date.now();
  /** Sending faster than real time (see OVERRUN_MS): read on, drop what overflows. */
  private overrun = false;
  /** Dropping audio until the buffer is down to the low mark. */
  private dropping = false;
  private dropped = 0;
  private closed = false;
  private sniffed: Buffer = Buffer.alloc(0);

  constructor(
    private readonly target: SourceTarget,
    private readonly media: MediaService,
    private readonly stations: StationsService,
    private readonly logger: Logger,
    private readonly onClosed: () => void,
  ) {}

  start(socket: Socket, first: Buffer): void {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    // the HTTP server's sockets allow half-open connections: a source that is done (ffmpeg at the
    // end of its input) shuts its side down and waits for ours, so 'end' is its leaving too
    socket.on('end', () => this.left());
    socket.on('close', () => this.left());
    socket.on('error', () => undefined);
    if (first.length) this.onData(first);
    socket.resume();
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    this.inflight++;
    this.work = this.work
      .then(() => this.consume(chunk))
      .catch((err: unknown) => this.close((err as Error).message ?? String(err)))
      .finally(() => this.inflight--);
    this.regulate();
  }

  /** Notes how far ahead of play time the source is, and whether it overruns (OVERRUN_MS). */
  private lead(): number {
    const now = Date.now();
    const ahead = this.pacer.aheadMs;
    if (ahead < LOW_WATER_MS) {
      this.caughtUpAt = now;
      this.overrun = false;
    } else if (!this.overrun && now - this.caughtUpAt > OVERRUN_MS) {
      this.overrun = true;
      this.logger.warn(
        `source on ${this.target.path} sends faster than real time: audio beyond ${HIGH_WATER_MS / 1000} s ahead is dropped`,
      );
    }
    return ahead;
  }

  /**
   * Back-pressure: the input is paused while more than the high mark of audio waits, until it has
   * played down to the low mark (TCP slows the source), except for a source that overruns; and
   * while chunks wait to be decoded.
   */
  private regulate(): void {
    const ahead = this.lead();
    if (this.resumeTimer || !this.socket) return;
    if (this.inflight <= 16 && (this.overrun || ahead <= HIGH_WATER_MS)) return;
    this.socket.pause();
    this.resumeTimer = setInterval(() => {
      const now = this.lead();
      if (this.inflight > 2 || (!this.overrun && now > LOW_WATER_MS)) return;
      if (this.resumeTimer) clearInterval(this.resumeTimer);
      this.resumeTimer = null;
      this.socket?.resume();
    }, 50);
  }

  /** Whether audio arriving now is dropped (an overrunning source with a full buffer). */
  private overflowing(): boolean {
    const ahead = this.lead();
    if (this.dropping && ahead <= LOW_WATER_MS) this.dropping = false;
    else if (ahead >= MAX_AHEAD_MS || (this.overrun && ahead >= HIGH_WATER_MS))
      this.dropping = true;
    return this.dropping;
  }

  private async consume(chunk: Buffer): Promise<void> {
    if (this.closed) return;
    if (!this.format) {
      this.sniffed = Buffer.concat([this.sniffed, chunk]);
      if (this.sniffed.length < 4) return;
      chunk = this.sniffed;
      // ffmpeg and others send any format as audio/mpeg unless told otherwise: the bytes decide
      const ogg = chunk.toString('latin1', 0, 4) === 'OggS';
      if (this.target.declared === 'ogg' && !ogg)
        throw new Error('not an Ogg stream although the Content-Type says Ogg');
      this.format = ogg ? 'ogg' : 'mp3';
      if (ogg) this.demuxer = new OggOpusDemuxer();
      else this.mp3 = await Mp3ToOpusWorker.create({ complexity: MP3_OPUS_COMPLEXITY });
    }
    if (this.demuxer) {
      for (const ev of this.demuxer.push(chunk)) {
        if (ev.type === 'packet') await this.packet(ev.data, ev.samples);
        else if (ev.type === 'tags') await this.tags(ev.tags.comments);
      }
    } else if (this.mp3) {
      // nothing is decoded only to be dropped (the decoder finds the next frame by itself)
      if (this.publisher && this.overflowing()) return void (this.dropped += 1);
      for (const p of await this.mp3.push(chunk)) await this.packet(p, 960);
    }
  }

  private async packet(payload: Buffer, samples: number): Promise<void> {
    if (this.closed) return;
    if (!this.publisher) {
      // the station goes live with the first audio, not with the connection
      const pub = await this.media.publishPackets(this.target.station.id, this.target.keyHash);
      if (this.closed) {
        await pub.close();
        return;
      }
      this.publisher = pub;
      void pub.gone.then((reason) => {
        if (reason === 'deleted' && this.closed) return;
        this.close(
          reason === 'deleted'
            ? 'the stream key was rotated or the broadcast was stopped'
            : reason === 'timeout'
              ? 'no audio for too long'
              : `the station's publisher ended (${reason})`,
        );
      });
    }
    if (this.overflowing()) return void (this.dropped += 1);
    this.pacer.push(payload, samples);
  }

  /** Ogg sources that chain a new stream per track carry the track in its tags. */
  private async tags(comments: Record<string, string>): Promise<void> {
    const track = comments['TITLE']?.trim();
    if (!track) return;
    const parsed = NowPlayingRequest.safeParse({
      stationId: this.target.station.id,
      track,
      ...(comments['ARTIST'] ? { artist: comments['ARTIST'] } : {}),
      ...(comments['ALBUM'] ? { album: comments['ALBUM'] } : {}),
    });
    if (parsed.success)
      await this.stations.setNowPlaying(this.target.station.broadcasterId, parsed.data);
  }

  /**
   * The source disconnected: what it sent still plays (at most MAX_AHEAD_MS, it is held to play
   * time), then its publisher closes and the station's grace period starts.
   */
  private left(): void {
    if (this.closed) return;
    void this.work.then(() => {
      const done = () => {
        if (this.closed) return;
        if (this.publisher && this.pacer.aheadMs > 0) return void setTimeout(done, 50);
        this.close(null);
      };
      done();
    });
  }

  /** Ends the source; `reason` (logged) is null when the source itself disconnected. */
  close(reason: string | null): void {
    if (this.closed) return;
    this.closed = true;
    this.onClosed();
    if (this.resumeTimer) clearInterval(this.resumeTimer);
    this.pacer.close();
    this.mp3?.close();
    this.socket?.destroy();
    if (this.dropped)
      this.logger.warn(`source on ${this.target.path}: ${this.dropped} overflowing chunks dropped`);
    if (reason) this.logger.warn(`source on ${this.target.path} closed: ${reason}`);
    else this.logger.log(`source on ${this.target.path} disconnected`);
    void this.publisher?.close().catch(() => undefined);
  }
}
