import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  DEMO_SLUG,
  DEMO_USERNAME,
  isReservedUsername,
  RecordingId,
  StationId,
  type Station,
} from '@radiobroadcaster/contracts';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { ContentService } from '../content/content.service.js';
import { frameAncestorSources, hostAllowed, originHost } from '../domains/domain-rules.js';
import { DomainsService } from '../domains/domains.service.js';
import { StationReadModel } from '../stations/station-read-model.js';
import { StationsRepository } from '../stations/stations.repository.js';
import {
  injectEmbedRefusal,
  injectMeta,
  type PageMeta,
  staticPageMeta,
  stationMeta,
  TITLE_SUFFIX,
} from './page-meta.js';

export interface RenderedPage {
  html: string;
  /** Kept out of search engines (`<meta name="robots" content="noindex">`, `X-Robots-Tag`). */
  noindex?: boolean;
  /** `frame-ancestors` sources for this page. */
  frameAncestors: string[];
  /**
   * 404 for a path no page answers (unknown route, user, station, post or tutorial; the app still
   * renders its not-found screen), 403 for an embed page framed by a site the owner did not list.
   */
  status: number;
}

/** Who asks for the page, from the request headers: only used for the embed page's framing. */
export interface PageRequest {
  /** `Sec-Fetch-Dest`: 'iframe' when a page frames the embed player. */
  fetchDest?: string;
  /** `Referer`: the framing page (browsers send at least its origin by default). */
  referer?: string;
  /** Origins that are this site itself (the request's own origin and the configured ones). */
  ownOrigins: readonly string[];
}

/** The web app's own pages that need no lookup (the route tree's static paths). */
const APP_PAGES = new Set([
  '/',
  '/about',
  '/embed',
  '/forgot-password',
  '/ios',
  '/privacy',
  '/reset-password',
  '/settings/account',
  '/settings/domains',
  '/signin',
  '/studio',
  '/tutorial',
  '/verify-email',
]);

const NOT_FOUND_TITLE = 'Not Found';

/** The built web app and player, with per-page head tags and framing rules. */
@Injectable()
export class WebService {
  private readonly logger = new Logger('Web');
  readonly webDist: string;
  readonly playerDist: string;
  private indexHtml: string | null = null;
  private player: { classic: string; esm: string; version: string } | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(StationReadModel) private readonly stations: StationReadModel,
    @Inject(DomainsService) private readonly domains: DomainsService,
    @Inject(ContentService) private readonly content: ContentService,
    @Inject(StationsRepository) private readonly stationRows: StationsRepository,
  ) {
    this.webDist = config.webDist;
    this.playerDist = config.playerDist;
  }

  index(): string {
    if (this.indexHtml === null) {
      const file = resolve(this.webDist, 'index.html');
      if (existsSync(file)) this.indexHtml = readFileSync(file, 'utf8');
      else {
        this.logger.warn(`web app not built (${file} missing): run npm run build`);
        return '<!doctype html><html><head><meta charset="utf-8"><!--app-head--></head><body>The web app is not built: run <code>npm run build</code>.</body></html>';
      }
    }
    return this.indexHtml;
  }

  /** The player bundles, read once; `version` is a content hash for the long-cached URL. */
  playerBundle(): { classic: string; esm: string; version: string } | null {
    if (this.player) return this.player;
    const classic = resolve(this.playerDist, 'player.js');
    const esm = resolve(this.playerDist, 'player.mjs');
    if (!existsSync(classic) || !existsSync(esm)) return null;
    const c = readFileSync(classic, 'utf8');
    const e = readFileSync(esm, 'utf8');
    const version = createHash('sha256').update(c).update(e).digest('hex').slice(0, 12);
    this.player = { classic: c, esm: e, version };
    return this.player;
  }

  async render(path: string, req: PageRequest = { ownOrigins: [] }): Promise<RenderedPage> {
    const segments = path.split('/').filter(Boolean).map(safeDecode);
    const clean = '/' + segments.join('/');
    const url = this.config.publicUrl + path;
    let meta: PageMeta = staticPageMeta(path, this.config.publicUrl);
    let frameAncestors = ["'self'"];
    let status = 200;
    let refusedHost: string | null = null;
    const page = this.content.page(path);
    const missing = (title: string) => {
      meta = { title: `${title}${TITLE_SUFFIX}`, description: title, url, noindex: true };
      status = 404;
    };

    if (page.kind === 'page') {
      meta = { ...page.seo, url: page.seo.url };
    } else if (page.kind === 'missing') {
      missing(page.title);
    } else if (APP_PAGES.has(clean)) {
      // staticPageMeta already has this page's head.
    } else if (segments[0] === 'embed' && segments.length === 3) {
      const station = await this.lookup(segments[1]!, segments[2]!);
      if (!station) missing('Station not found');
      // The embed page is made to be framed: by the owner's sites when listed, else anywhere.
      const owned =
        station && station.broadcasterId ? await this.domains.domainsOf(station.broadcasterId) : [];
      // Agrees with the join check: the site itself, its configured origins, the listed hosts on
      // any port and scheme.
      frameAncestors = owned.length
        ? ["'self'", ...this.config.trustedOrigins, ...frameAncestorSources(owned)]
        : ['*'];
      if (station) meta = stationMeta(station, url, this.config.publicUrl);
      refusedHost = owned.length ? refusedFramer(req, owned) : null;
      if (refusedHost !== null) {
        // A page the owner did not list frames the player: instead of the browser's bare
        // "refused to connect", any site may show this page, which plays nothing and says why.
        frameAncestors = ['*'];
        status = 403;
      }
    } else if (segments[0] === 'station' && segments.length === 2) {
      const station = StationId.safeParse(segments[1]).success
        ? await this.stations.station(segments[1]!).catch(() => null)
        : null;
      if (station) meta = stationMeta(station, url, this.config.publicUrl);
      else missing('Station not found');
    } else if (
      segments[0] === 'studio' &&
      segments.length === 3 &&
      (segments[2] === 'stats' || segments[2] === 'webhooks') &&
      StationId.safeParse(segments[1]).success
    ) {
      meta = { ...meta, noindex: true };
    } else if (
      segments.length === 4 &&
      segments[2] === 'replays' &&
      !isReservedUsername(segments[0]!)
    ) {
      // A replay: its station must exist (the page itself says when the recording does not).
      const station = await this.lookup(segments[0]!, segments[1]!);
      if (!station || !RecordingId.safeParse(segments[3]).success) missing('Replay not found');
      else meta = { ...meta, noindex: true };
    } else if (segments.length === 2 && !isReservedUsername(segments[0]!)) {
      const station = await this.lookup(segments[0]!, segments[1]!);
      if (station) meta = stationMeta(station, url, this.config.publicUrl);
      else missing('Station not found');
    } else if (segments.length === 1) {
      // The profile route: reserved and file-like names are never users.
      if (isReservedUsername(segments[0]!) || !(await this.stations.hasUser(segments[0]!)))
        missing('User not found');
    } else {
      missing(NOT_FOUND_TITLE);
    }
    // Unlisted and private stations' pages (station, embed, replays) stay out of search engines.
    const stationId = await this.pageStationId(segments);
    if (
      stationId &&
      (await this.stationRows.visibilityOf(stationId).catch(() => null)) !== 'public'
    )
      meta = { ...meta, noindex: true };
    let html = injectMeta(this.index(), meta);
    if (refusedHost !== null) html = injectEmbedRefusal(html, refusedHost);
    return { html, frameAncestors, status, noindex: meta.noindex === true };
  }

  /** The station a page shows (`/station/{id}`, `/{user}/{slug}…`, `/embed/{user}/{slug}`), if any. */
  private async pageStationId(segments: string[]): Promise<string | null> {
    if (segments[0] === 'station' && segments.length === 2)
      return StationId.safeParse(segments[1]).success ? segments[1]! : null;
    const [user, slug] = segments[0] === 'embed' ? segments.slice(1) : segments;
    if (
      !user ||
      !slug ||
      segments.length < 2 ||
      (isReservedUsername(user) && segments[0] !== 'embed')
    )
      return null;
    if (user === DEMO_USERNAME && slug === DEMO_SLUG) return null;
    const station = await this.stations.stationBySlug(user, slug).catch(() => null);
    return station?.id ?? null;
  }

  private async lookup(username: string, slug: string): Promise<Station | null> {
    if (username === DEMO_USERNAME && slug === DEMO_SLUG) return DEMO_STATION_META;
    return this.stations.stationBySlug(username, slug).catch(() => null);
  }
}

/** Only what the head tags of the demo page need; the web app has the full built-in demo data. */
const DEMO_STATION_META = {
  name: 'Radio Broadcaster Demo',
  description: 'A demo station that shows what a live station looks like.',
  broadcaster: { username: DEMO_USERNAME },
  broadcasterId: '',
} as unknown as Station;

/**
 * The host of the page framing the embed player when the owner's list does not allow it, else
 * null. Without a Referer (a `no-referrer` policy) the page is served as usual and the browser's
 * `frame-ancestors` check decides.
 */
function refusedFramer(req: PageRequest, owned: string[]): string | null {
  if (req.fetchDest !== 'iframe' && req.fetchDest !== 'frame') return null;
  if (!req.referer) return null;
  let origin: string;
  try {
    origin = new URL(req.referer).origin;
  } catch {
    return null;
  }
  if (req.ownOrigins.includes(origin)) return null;
  const host = originHost(origin);
  if (host === null || hostAllowed(host, owned)) return null;
  return host;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
