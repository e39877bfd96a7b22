import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  DEMO_SLUG,
  DEMO_USERNAME,
  isReservedUsername,
  StationId,
  type Station,
} from '@radiobroadcaster/contracts';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { ContentService } from '../content/content.service.js';
import { DomainsService } from '../domains/domains.service.js';
import { StationsService } from '../stations/stations.service.js';
import {
  injectMeta,
  type PageMeta,
  staticPageMeta,
  stationMeta,
  TITLE_SUFFIX,
} from './page-meta.js';

export interface RenderedPage {
  html: string;
  /** `frame-ancestors` sources for this page. */
  frameAncestors: string[];
  /** 404 for unknown blog and tutorial slugs; the app still renders its not-found screen. */
  status: number;
}

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
    @Inject(StationsService) private readonly stations: StationsService,
    @Inject(DomainsService) private readonly domains: DomainsService,
    @Inject(ContentService) private readonly content: ContentService,
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

  async render(path: string): Promise<RenderedPage> {
    const segments = path.split('/').filter(Boolean).map(safeDecode);
    const url = this.config.publicUrl + path;
    let meta: PageMeta = staticPageMeta(path, this.config.publicUrl);
    let frameAncestors = ["'self'"];
    let status = 200;
    const page = this.content.page(path);

    if (page.kind === 'page') {
      meta = { ...page.seo, url: page.seo.url };
    } else if (page.kind === 'missing') {
      meta = { title: `${page.title}${TITLE_SUFFIX}`, description: page.title, url, noindex: true };
      status = 404;
    } else if (segments[0] === 'embed' && segments.length === 3) {
      const station = await this.lookup(segments[1]!, segments[2]!);
      // The embed page is made to be framed: by the owner's sites when listed, else anywhere.
      const owned =
        station && station.broadcasterId ? await this.domains.domainsOf(station.broadcasterId) : [];
      frameAncestors = owned.length ? ["'self'", ...owned.flatMap(sourcesFor)] : ['*'];
      if (station) meta = stationMeta(station, url);
    } else if (
      segments[0] === 'station' &&
      segments.length === 2 &&
      StationId.safeParse(segments[1]).success
    ) {
      const station = await this.stations.get(segments[1]!).catch(() => null);
      if (station) meta = stationMeta(station, url);
    } else if (segments.length === 2 && !isReservedUsername(segments[0]!)) {
      const station = await this.lookup(segments[0]!, segments[1]!);
      if (station) meta = stationMeta(station, url);
    }
    return { html: injectMeta(this.index(), meta), frameAncestors, status };
  }

  private async lookup(username: string, slug: string): Promise<Station | null> {
    if (username === DEMO_USERNAME && slug === DEMO_SLUG) return DEMO_STATION_META;
    return this.stations.byUsernameAndSlug(username, slug).catch(() => null);
  }
}

/** Only what the head tags of the demo page need; the web app has the full built-in demo data. */
const DEMO_STATION_META = {
  name: 'Radio Broadcaster Demo',
  description: 'A demo station that shows what a live station looks like.',
  broadcaster: { username: DEMO_USERNAME },
  broadcasterId: '',
} as unknown as Station;

function sourcesFor(domain: string): string[] {
  return [`https://${domain}`, `http://${domain}`];
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
