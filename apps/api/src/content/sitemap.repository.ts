import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { StationEntity } from '../stations/station.entity.js';

/** One station as the sitemap lists it. */
export interface SitemapStation {
  username: string;
  slug: string;
  updatedAt: Date;
}

/** The sitemap's read of every station (its page and its owner's profile), oldest first. */
@Injectable()
export class SitemapRepository {
  constructor(@InjectRepository(StationEntity) private readonly repo: Repository<StationEntity>) {}

  async stations(): Promise<SitemapStation[]> {
    const rows = await this.repo.find({
      // unlisted and private stations are never listed
      where: { visibility: 'public' },
      relations: { broadcaster: true },
      select: { slug: true, updatedAt: true, broadcaster: { username: true } },
      order: { createdAt: 'ASC' },
    });
    return rows.map((r) => ({
      username: r.broadcaster.username,
      slug: r.slug,
      updatedAt: r.updatedAt,
    }));
  }
}
