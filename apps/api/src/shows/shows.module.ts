import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccessModule } from '../access/access.module.js';
import { StationsModule } from '../stations/stations.module.js';
import { StatsModule } from '../stats/stats.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { ShowEntity } from './show.entity.js';
import { ShowsController } from './shows.controller.js';
import { ShowsRepository } from './shows.repository.js';
import { ShowsService } from './shows.service.js';

/** Shows on a station's schedule, their occurrences and the station's iCalendar feed. */
@Module({
  imports: [
    TypeOrmModule.forFeature([ShowEntity]),
    StationsModule,
    StatsModule,
    AccessModule,
    WebhooksModule,
  ],
  controllers: [ShowsController],
  providers: [ShowsRepository, ShowsService],
  exports: [ShowsService],
})
export class ShowsModule {}
