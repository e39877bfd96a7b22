import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { PRODUCT_NAME, PRODUCT_TAGLINE } from '@radiobroadcaster/contracts';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { ContentService } from './content.service.js';
import { robotsTxt, rssXml, sitemapXml } from './feeds.js';

export interface SiteInfo {
  name: string;
  tagline: string;
  supportEmail: string;
  publicUrl: string;
}

/** sitemap.xml, robots.txt, the blog's RSS feed, and the site facts the web app shows. */
@ApiTags('site')
@Controller()
export class ContentController {
  constructor(
    @Inject(ContentService) private readonly content: ContentService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('api/site')
  @ApiOkResponse({ description: 'Site name, tagline, support e-mail and public URL.' })
  site(): SiteInfo {
    return {
      name: PRODUCT_NAME,
      tagline: PRODUCT_TAGLINE,
      supportEmail: this.config.supportEmail,
      publicUrl: this.config.publicUrl,
    };
  }

  @Get('sitemap.xml')
  @Header('Content-Type', 'application/xml; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=600')
  async sitemap(): Promise<string> {
    return sitemapXml(await this.content.sitemap());
  }

  @Get('robots.txt')
  @Header('Content-Type', 'text/plain; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=3600')
  robots(): string {
    return robotsTxt(this.config.publicUrl);
  }

  @Get(['blog/rss.xml', 'feed.xml'])
  @Header('Content-Type', 'application/rss+xml; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=600')
  rss(): string {
    const blog = this.content.content().indexes.blog;
    return rssXml({
      origin: this.config.publicUrl,
      title: `${PRODUCT_NAME} blog`,
      description: blog.description || PRODUCT_TAGLINE,
      posts: this.content.posts(),
    });
  }
}
