import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DomainsModule } from '../domains/domains.module.js';
import { StationsModule } from '../stations/stations.module.js';
import { BroadcastSettingsController } from './broadcast-settings.controller.js';
import { RadioSettingsEntity } from './radio-settings.entity.js';
import { ListenGrants } from './listen-grants.js';
import { RadioSettingsRepository } from './radio-settings.repository.js';
import { StreamKeysService } from './stream-keys.service.js';

/** Stream keys and HTTP stream settings; media (WHIP) and the Icecast ingest both verify keys here. */
@Module({
  imports: [TypeOrmModule.forFeature([RadioSettingsEntity]), StationsModule, DomainsModule],
  controllers: [BroadcastSettingsController],
  providers: [RadioSettingsRepository, StreamKeysService, ListenGrants],
  exports: [StreamKeysService, ListenGrants],
})
export class StreamKeysModule {}
