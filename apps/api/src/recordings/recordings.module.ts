import { Module } from '@nestjs/common';
import type { MediaEngine } from '@radiobroadcaster/sfu';
import { MEDIA_ENGINE } from '../media/media.providers.js';
import { AccessModule } from '../access/access.module.js';
import { MediaModule } from '../media/media.module.js';
import { StreamKeysModule } from '../radio/stream-keys.module.js';
import { StationsModule } from '../stations/stations.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { RecordingStorage } from './recording-storage.js';
import { RecordingsController } from './recordings.controller.js';
import { RecordingsRepository } from './recordings.repository.js';
import { RecordingsService } from './recordings.service.js';
import { StationAudioTap } from './station-audio-tap.js';

@Module({
  imports: [StationsModule, WebhooksModule, MediaModule, AccessModule, StreamKeysModule],
  controllers: [RecordingsController],
  providers: [
    RecordingsRepository,
    RecordingsService,
    RecordingStorage,
    {
      // recordings hear the station through the media engine's packet tap, whatever the transport
      provide: StationAudioTap,
      inject: [MEDIA_ENGINE],
      useFactory: (engine: MediaEngine) => {
        const tap = new StationAudioTap();
        tap.attach({ subscribe: (stationId, onPacket) => engine.tap(stationId, onPacket) });
        return tap;
      },
    },
  ],
  exports: [RecordingsService, StationAudioTap],
})
export class RecordingsModule {}
