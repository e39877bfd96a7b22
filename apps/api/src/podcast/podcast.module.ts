import { Module } from '@nestjs/common';
import { AccessModule } from '../access/access.module.js';
import { ImagesModule } from '../images/images.module.js';
import { RecordingsModule } from '../recordings/recordings.module.js';
import { StationsModule } from '../stations/stations.module.js';
import { PodcastController } from './podcast.controller.js';
import { PodcastRepository } from './podcast.repository.js';
import { PodcastService } from './podcast.service.js';

/** A station's public replays as a podcast feed, with artwork and chapters. */
@Module({
  imports: [StationsModule, RecordingsModule, ImagesModule, AccessModule],
  controllers: [PodcastController],
  providers: [PodcastRepository, PodcastService],
})
export class PodcastModule {}
