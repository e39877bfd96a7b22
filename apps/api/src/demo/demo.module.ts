import { Module } from '@nestjs/common';
import { MediaModule } from '../media/media.module.js';
import { StreamKeysModule } from '../radio/stream-keys.module.js';
import { StationsModule } from '../stations/stations.module.js';
import { DemoBroadcast } from './demo-broadcast.js';
import { DemoStationService } from './demo-station.service.js';
import { DemoRepository } from './demo.repository.js';

/** The demo station the server publishes itself (`DEMO_STATION`, on by default). */
@Module({
  imports: [MediaModule, StreamKeysModule, StationsModule],
  providers: [DemoRepository, DemoStationService, DemoBroadcast],
})
export class DemoModule {}
