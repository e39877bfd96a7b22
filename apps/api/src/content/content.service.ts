import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { DEMO_SLUG, DEMO_USERNAME } from '@radiobroadcaster/contracts';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { SitemapRepository } from './sitemap.repository.js';
import {
  type CompiledContent,
  EMPTY_CONTENT,
  type PageSeo,
  type PostEntry,
  type TutorialEntry,
} from './content.types.js';
import { REPO_ROOT } from '../common/repo-root.js';

/** The blog and tutorials compiled by content/build.mjs. */
export const CONTENT_JSON = resolve(REPO_ROOT, 'content/dist/content.json');

/** Public pages of the site other than content and stations (listed in the sitemap). */
export const STATIC_PATHS = ['/', '/about', '/embed', '/ios', '/privacy', '/tutorial', '/signin'];

export type ContentPage =
  { kind: 'page'; seo: PageSeo } | { kind: 'missing'; title: string } | { kind: 'none' };

export interface SitemapUrl {
  loc: string;
  lastmod?: string;
}

/** The compiled blog and tutorials, with the public origin put in for {SITE}. */
@Injectable()
export class ContentService {
  private readonly logger = new Logger('Content');
  private cache: CompiledContent | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SitemapRepository) private readonly stationPages: SitemapRepository,
  ) {}

  get origin(): string {
    return this.config.publicUrl;
  }

  /** Read once; {SITE} replaced by the configured public URL. */
  content(): CompiledContent {
    if (this.cache) return this.cache;
    if (!existsSync(CONTENT_JSON)) {
      this.logger.warn(`content not built (${CONTENT_JSON} missing): run npm run build`);
      return EMPTY_CONTENT;
    }
    const raw = readFileSync(CONTENT_JSON, 'utf8').replaceAll('{SITE}', this.origin);
    this.cache = JSON.parse(raw) as CompiledContent;
    return this.cache;
  }

  posts(): PostEntry[] {
    return this.content().blog;
  }

  tutorials(): TutorialEntry[] {
    return this.content().tutorials;
  }

  /** Head tags for /blog/, /blog/{slug}, /tutorials/, /tutorials/{slug}; 'missing' for unknown slugs. */
  page(path: string): ContentPage {
    const segments = path.split('/').filter(Boolean);
    const section = segments[0];
    if ((section !== 'blog' && section !== 'tutorials') || segments.length > 2)
      return { kind: 'none' };
    const c = this.content();
    if (segments.length === 1) return { kind: 'page', seo: c.indexes[section] };
    const list: { slug: string; seo: PageSeo }[] = section === 'blog' ? c.blog : c.tutorials;
    const entry = list.find((e) => e.slug === segments[1]);
    if (entry) return { kind: 'page', seo: entry.seo };
    return { kind: 'missing', title: section === 'blog' ? 'Post not found' : 'Tutorial not found' };
  }

  /** Every public page: the static pages, indexes, posts, tutorials, profiles and stations. */
  async sitemap(): Promise<SitemapUrl[]> {
    const c = this.content();
    const at = (p: string) => `${this.origin}${p}`;
    const newest = (list: { lastModified: string }[]) =>
      list
        .map((e) => e.lastModified)
        .sort()
        .at(-1);
    const urls: SitemapUrl[] = [
      ...STATIC_PATHS.map((p) => ({ loc: at(p) })),
      { loc: at('/blog/'), lastmod: newest(c.blog) },
      ...c.blog.map((p) => ({ loc: at(p.path), lastmod: p.lastModified })),
      { loc: at('/tutorials/'), lastmod: newest(c.tutorials) },
      ...c.tutorials.map((t) => ({ loc: at(t.path), lastmod: t.lastModified })),
      { loc: at(`/${DEMO_USERNAME}/${DEMO_SLUG}`) },
    ];
    const rows = await this.stationPages.stations();
    const profiles = new Map<string, Date>();
    for (const row of rows) {
      const user = row.username;
      const seen = profiles.get(user);
      if (!seen || seen < row.updatedAt) profiles.set(user, row.updatedAt);
      urls.push({
        loc: at(`/${encodeURIComponent(user)}/${encodeURIComponent(row.slug)}`),
        lastmod: row.updatedAt.toISOString(),
      });
    }
    for (const [user, updated] of profiles)
      urls.push({ loc: at(`/${encodeURIComponent(user)}/`), lastmod: updated.toISOString() });
    return urls;
  }
}
