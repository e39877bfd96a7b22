import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { StationEntity } from '../stations/station.entity.js';
import { UserEntity } from '../users/user.entity.js';
import { ContentController } from './content.controller.js';
import { ContentService } from './content.service.js';
import { SitemapRepository } from './sitemap.repository.js';

/** Blog and tutorials (compiled by content/build.mjs), sitemap, robots.txt and the RSS feed. */
@Module({
  imports: [TypeOrmModule.forFeature([StationEntity, UserEntity])],
  controllers: [ContentController],
  providers: [SitemapRepository, ContentService],
  exports: [ContentService],
})
export class ContentModule {}
