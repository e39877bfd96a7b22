/**
 * HTTP listening for radio apps, VLC, smart speakers and networks that drop UDP:
 * `GET /listen/{username}/{slug}.ogg` is the live station as an endless Ogg/Opus stream (the
 * publisher's packets, no transcoding) and `.mp3` the same as MP3 (for players without Opus, such
 * as older Safari), each starting with a burst of the last second of audio; `.m3u` and `.pls`
 * point at the Ogg stream. Who may listen is decided here; the streams are {@link HttpStreams}.
 *
 * Who may listen: a page whose `Origin`/`Referer` the owner's allowed domains refuse never does.
 * Otherwise the plain URL plays while the station's "Public stream URL" is on; while it is off
 * (the default once domains are listed) only a signed link (`?t=`, {@link ListenGrants}) does, as
 * nothing else tells a page that hides its address from VLC.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ErrorTag, type ErrorBody, LISTEN_TOKEN_PARAM } from '@radiobroadcaster/contracts';
import { toErrorResponse } from '../common/all-errors.filter.js';
import { AppError } from '../common/app-error.js';
import { remoteAddress, takeRequestsFirst } from '../common/fast-lane.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { DomainsService } from '../domains/domains.service.js';
import { MediaService } from '../media/media.service.js';
import { AccessService } from '../access/access.service.js';
import { AccessSessions } from '../access/access-sessions.js';
import type { StationEntity } from '../stations/station.entity.js';
import { CONTAINERS, CONTENT_TYPES, type Container, HttpStreams } from './http-streams.js';
import { ListenAddresses } from './listen-addresses.js';
import { ListenGrants, type VerifiedListenGrant } from './listen-grants.js';

type Format = Container | 'm3u' | 'pls';
const PLAYLISTS = { m3u: true, pls: true } as const;

/** Header value from any text: UTF-8 bytes as Latin-1 (what Icecast sends), no control characters. */
function headerText(text: string, max = 200): string {
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, max);
  return Buffer.from(clean, 'utf8').toString('latin1');
}

@Injectable()
export class HttpListen {
  private readonly logger = new Logger('HttpListen');

  constructor(
    @Inject(ListenAddresses) private readonly addresses: ListenAddresses,
    @Inject(HttpStreams) private readonly streams: HttpStreams,
    @Inject(DomainsService) private readonly domains: DomainsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ListenGrants) private readonly grants: ListenGrants,
    @Inject(MediaService) private readonly media: MediaService,
    @Inject(AccessService) private readonly access: AccessService,
    @Inject(AccessSessions) private readonly held: AccessSessions,
  ) {}

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
      const raw = req.url ?? '';
      const q = raw.indexOf('?');
      const [path, query] = q < 0 ? [raw, ''] : [raw.slice(0, q), raw.slice(q + 1)];
      const m = /^\/listen\/([^/]+)\/([^/]+)\.(ogg|mp3|m3u|pls)$/.exec(path);
      if (!m) return this.error(res, 404, ErrorTag.NotFound, 'No such stream');
      const [username, slug] = [safeDecode(m[1]!), safeDecode(m[2]!)];
      const format = m[3] as Format;
      const found = username && slug ? await this.addresses.lookup(username, slug) : null;
      if (!found?.station)
        return this.error(res, 404, ErrorTag.StationNotFound, 'Station not found');
      const station = found.station;
      const origin = requestOrigin(req);
      if (
        origin !== undefined &&
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
      const params = new URLSearchParams(query);
      const signed = params.get(LISTEN_TOKEN_PARAM);
      const invite = params.get('invite');
      let grant: VerifiedListenGrant | null = null;
      if (signed !== null) {
        try {
          grant = this.grants.verify(signed, station.id);
        } catch (err) {
          if (err instanceof AppError) return this.error(res, 403, err.tag, err.message);
          throw err;
        }
      } else if (station.visibility === 'private' && invite !== null && format in PLAYLISTS) {
        // A private station's playlist fetched with its invite: admits one listener and lists
        // their signed streams (LISTEN_GRANT_TTL_SECONDS, 24 h by default) for VLC and radio apps.
        try {
          const admitted = (await this.access.admit(station, { invite }, null))!;
          const urls = this.access.issueGrant(station, admitted, null, this.config.publicUrl);
          grant = this.grants.verify(urls.token, station.id);
        } catch (err) {
          if (err instanceof AppError) return this.error(res, 403, err.tag, err.message);
          throw err;
        }
      } else if (station.visibility === 'private') {
        return this.error(
          res,
          403,
          ErrorTag.PrivateStation,
          'This is a private station: listen with a link its owner gave you',
        );
      } else if (!found.publicStreamUrl) {
        return this.error(
          res,
          403,
          ErrorTag.StreamNotPublic,
          "This station's stream URL is not public: listen on its page, or ask its owner for a link",
        );
      }
      if (
        station.visibility === 'private' &&
        grant &&
        !(await this.access.grantValid(station.id, grant))
      )
        return this.error(
          res,
          403,
          ErrorTag.GrantRevoked,
          'Your access to this private station was revoked',
        );
      const base = `${this.config.publicUrl}/listen/${encodeURIComponent(station.broadcaster.username)}/${encodeURIComponent(station.slug)}`;
      if (format === 'm3u' || format === 'pls')
        return this.playlist(req, res, format, station, base, grant);
      if (!station.isActive || station.status !== 'live')
        return this.error(
          res,
          404,
          ErrorTag.StationNotActive,
          'This station is not currently broadcasting',
        );
      if (req.method === 'GET') {
        // one listener's place in the caps per IP and per station, shared with WebRTC listeners
        const ip = remoteAddress(req, this.config.trustProxy) ?? 'unknown';
        const slot = await this.media.admitListener(station.id, ip);
        res.once('close', () => void this.media.releaseListener(slot).catch(() => undefined));
      }
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
      // Held so a revocation (or the station turning private) ends it on this node.
      const release = this.held.add({
        stationId: station.id,
        gid: grant?.gid ?? null,
        via: grant?.via ?? 'public',
        lid: grant?.lid ?? 'public',
        label: '',
        transport: 'http',
        since: new Date(),
        end: () => res.destroy(),
      });
      res.once('close', release);
      this.streams.attach(station.id, format, req, res, origin ?? null);
    } catch (err) {
      if (err instanceof AppError && !res.headersSent) {
        // refused by the listener caps: 429 per address, 503 per station (with Retry-After)
        const { status, body, headers } = toErrorResponse(err);
        return this.error(res, status, body.error, body.message, headers);
      }
      this.logger.warn(`listen ${req.url}: ${(err as Error).message}`);
      if (!res.headersSent) this.error(res, 500, ErrorTag.InternalError, 'Something went wrong');
      else res.destroy();
    }
  }

  private playlist(
    req: IncomingMessage,
    res: ServerResponse,
    format: 'm3u' | 'pls',
    station: StationEntity,
    base: string,
    grant: VerifiedListenGrant | null,
  ): void {
    const title = `${station.name} by @${station.broadcaster.username}`.replace(/[\r\n]/g, ' ');
    // A signed playlist lists signed streams: a new listener id for whoever fetched it, the same
    // grant, expiring with it.
    const signed = grant
      ? this.grants.reissue(station, grant, grant.exp, this.config.publicUrl)
      : null;
    // Ogg/Opus first; MP3 after it for players that cannot play Ogg (they skip an entry they
    // cannot open). An Ogg player that reaches the end of the live stream finds the MP3 one ended too.
    const urls = CONTAINERS.map((c) => (signed ? signed[c] : `${base}.${c}`));
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

  private error(
    res: ServerResponse,
    status: number,
    tag: ErrorTag,
    message: string,
    headers: Record<string, string> = {},
  ): void {
    const body: ErrorBody = { error: tag, message };
    const json = JSON.stringify(body);
    res.writeHead(status, {
      ...headers,
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(json),
      'Cache-Control': 'no-store',
      'Access-Control-Allow-Origin': '*',
    });
    res.end(res.req?.method === 'HEAD' ? undefined : json);
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
