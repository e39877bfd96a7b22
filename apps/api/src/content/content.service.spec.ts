/**
 * The sitemap's station part on stations held in memory: every station page, and every owner's
 * profile once with its newest station's date, names escaped. Milliseconds; the HTTP contract
 * (sitemap.xml, robots, RSS) is content.spec.ts's.
 */
import { describe, expect, it } from '@jest/globals';
import type { AppConfig } from '../config/config.js';
import { ContentService } from './content.service.js';
import type { SitemapRepository, SitemapStation } from './sitemap.repository.js';

describe('ContentService.sitemap', () => {
  it('lists each station and each owner profile once, with the newest date', async () => {
    const stations: SitemapStation[] = [
      { username: 'ana', slug: 'morning', updatedAt: new Date('2026-01-01T00:00:00Z') },
      { username: 'ana', slug: 'night', updatedAt: new Date('2026-03-01T00:00:00Z') },
      { username: 'bo b', slug: 'jazz fm', updatedAt: new Date('2026-02-01T00:00:00Z') },
    ];
    const repo = { stations: async () => stations } as unknown as SitemapRepository;
    const service = new ContentService({ publicUrl: 'https://radio.example' } as AppConfig, repo);
    const urls = await service.sitemap();
    const at = (loc: string) => urls.filter((u) => u.loc === `https://radio.example${loc}`);
    expect(at('/ana/morning')).toEqual([
      { loc: 'https://radio.example/ana/morning', lastmod: '2026-01-01T00:00:00.000Z' },
    ]);
    expect(at('/bo%20b/jazz%20fm')).toHaveLength(1);
    expect(at('/ana/')).toEqual([
      { loc: 'https://radio.example/ana/', lastmod: '2026-03-01T00:00:00.000Z' },
    ]);
    expect(at('/bo%20b/')).toHaveLength(1);
    expect(urls.filter((u) => u.loc.endsWith('/ana/'))).toHaveLength(1);
  });
});
