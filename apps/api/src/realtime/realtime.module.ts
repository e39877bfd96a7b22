import { Module } from '@nestjs/common';
import { AccessModule } from '../access/access.module.js';
import { StreamKeysModule } from '../radio/stream-keys.module.js';
import { StationsModule } from '../stations/stations.module.js';
import { StationGateway } from './station.gateway.js';

@Module({ imports: [StationsModule, AccessModule, StreamKeysModule], providers: [StationGateway] })
export class RealtimeModule {}
