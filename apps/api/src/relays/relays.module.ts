import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutboundModule } from '../common/outbound/outbound.module.js';
import { MediaModule } from '../media/media.module.js';
import { StationsModule } from '../stations/stations.module.js';
import { StationRelayEntity } from './relay.entity.js';
import { RelaysController } from './relays.controller.js';
import { RelaysRepository } from './relays.repository.js';
import { RELAY_PUSHER_OPTIONS, RelaysService } from './relays.service.js';

/** Outbound relays to Icecast, AzuraCast and Shoutcast 2 servers. */
@Module({
  imports: [
    TypeOrmModule.forFeature([StationRelayEntity]),
    StationsModule,
    MediaModule,
    OutboundModule,
  ],
  controllers: [RelaysController],
  providers: [RelaysRepository, RelaysService, { provide: RELAY_PUSHER_OPTIONS, useValue: {} }],
  exports: [RelaysService],
})
export class RelaysModule {}
