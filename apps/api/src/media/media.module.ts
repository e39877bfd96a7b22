import { Module } from '@nestjs/common';
import { DomainsModule } from '../domains/domains.module.js';
import { StationsModule } from '../stations/stations.module.js';
import { MetricsController } from '../metrics/metrics.controller.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { JoinController } from './join.controller.js';
import { MediaEngineCloser, mediaEngineProvider } from './media-engine.provider.js';
import { MediaService } from './media.service.js';
import { WhepController } from './whep.controller.js';
import { WhipController } from './whip.controller.js';

@Module({
  imports: [StationsModule, DomainsModule],
  controllers: [JoinController, WhipController, WhepController, MetricsController],
  providers: [mediaEngineProvider, MediaEngineCloser, MediaService, MetricsService],
  exports: [MediaService],
})
export class MediaModule {}
