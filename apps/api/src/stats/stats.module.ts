import { Module } from '@nestjs/common';
import { StationsModule } from '../stations/stations.module.js';
import { ListeningSessions } from './listening-sessions.service.js';
import { StatsController } from './stats.controller.js';
import { StatsRepository } from './stats.repository.js';
import { StatsRollup } from './stats-rollup.js';
import { StatsService } from './stats.service.js';

/** Cookie-free listening stats: sessions in, per-minute and per-hour rollups out. */
@Module({
  imports: [StationsModule],
  controllers: [StatsController],
  providers: [StatsRepository, ListeningSessions, StatsRollup, StatsService],
  exports: [ListeningSessions, StatsRepository],
})
export class StatsModule {}
