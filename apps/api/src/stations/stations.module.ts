import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UserEntity } from '../users/user.entity.js';
import { PresenceService } from './presence.service.js';
import { StationEntity } from './station.entity.js';
import { StationReadModel } from './station-read-model.js';
import { StationTokensService } from './station-tokens.service.js';
import { StationsController } from './stations.controller.js';
import { StationsRepository } from './stations.repository.js';
import { StationsService } from './stations.service.js';
import { UserStationsController } from './user-stations.controller.js';

@Module({
  imports: [TypeOrmModule.forFeature([StationEntity, UserEntity])],
  controllers: [StationsController, UserStationsController],
  providers: [
    StationsRepository,
    StationsService,
    StationReadModel,
    PresenceService,
    StationTokensService,
  ],
  exports: [
    StationsService,
    StationsRepository,
    StationReadModel,
    StationTokensService,
    PresenceService,
  ],
})
export class StationsModule {}
