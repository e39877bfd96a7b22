import { Module } from '@nestjs/common';
import { AccessModule } from '../access/access.module.js';
import { DomainsModule } from '../domains/domains.module.js';
import { MetricsController } from '../metrics/metrics.controller.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { StreamKeysModule } from '../radio/stream-keys.module.js';
import { StationsModule } from '../stations/stations.module.js';
import { StatsModule } from '../stats/stats.module.js';
import { TurnModule } from '../turn/turn.module.js';
import { JoinController } from './join.controller.js';
import { ListenerCounts } from './listener-counts.js';
import { MEDIA_ENGINE, mediaProviders } from './media.providers.js';
import { MediaService } from './media.service.js';
import { StationLifecycle } from './station-lifecycle.service.js';
import { WhepController } from './whep.controller.js';
import { WhipController } from './whip.controller.js';

@Module({
  imports: [StationsModule, DomainsModule, StatsModule, StreamKeysModule, TurnModule, AccessModule],
  controllers: [JoinController, WhipController, WhepController, MetricsController],
  providers: [...mediaProviders, MediaService, StationLifecycle, ListenerCounts, MetricsService],
  exports: [MEDIA_ENGINE, MediaService, MetricsService],
})
export class MediaModule {}
