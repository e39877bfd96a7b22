import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { StationsModule } from '../stations/stations.module.js';
import { UsersModule } from '../users/users.module.js';
import { ImageEntity } from './image.entity.js';
import { ImagesController } from './images.controller.js';
import { ImagesRepository } from './images.repository.js';
import { ImagesService } from './images.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([ImageEntity]), StationsModule, UsersModule],
  controllers: [ImagesController],
  providers: [ImagesRepository, ImagesService],
  exports: [ImagesService],
})
export class ImagesModule {}
