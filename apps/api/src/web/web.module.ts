import { Module } from '@nestjs/common';
import { ContentModule } from '../content/content.module.js';
import { DomainsModule } from '../domains/domains.module.js';
import { StationsModule } from '../stations/stations.module.js';
import { WebController } from './web.controller.js';
import { WebService } from './web.service.js';

@Module({
  imports: [StationsModule, DomainsModule, ContentModule],
  controllers: [WebController],
  providers: [WebService],
})
export class WebModule {}
