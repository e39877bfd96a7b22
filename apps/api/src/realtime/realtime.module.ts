import { Module } from '@nestjs/common';
import { StationsModule } from '../stations/stations.module.js';
import { StationGateway } from './station.gateway.js';

@Module({ imports: [StationsModule], providers: [StationGateway] })
export class RealtimeModule {}
