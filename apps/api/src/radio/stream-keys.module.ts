import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { StationsModule } from '../stations/stations.module.js';
import { BroadcastSettingsController } from './broadcast-settings.controller.js';
import { RadioSettingsEntity } from './radio-settings.entity.js';
import { StreamKeysService } from './stream-keys.service.js';

/** Stream keys and HTTP stream settings; media (WHIP) and the Icecast ingest both verify keys here. */
@Module({
  imports: [TypeOrmModule.forFeature([RadioSettingsEntity]), StationsModule],
  controllers: [BroadcastSettingsController],
  providers: [StreamKeysService],
  exports: [StreamKeysService],
})
export class StreamKeysModule {}
