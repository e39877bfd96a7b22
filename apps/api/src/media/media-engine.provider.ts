import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { createWeriftEngine, type MediaEngine } from '@radiobroadcaster/sfu';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { RemoteEngine } from './remote-engine.js';

export const MEDIA_ENGINE = Symbol('MEDIA_ENGINE');

/**
 * The in-process SFU (werift, listeners sharded over worker threads), or in cluster mode
 * (`SFU_MODE=remote`) the placement layer over the SFU nodes registered in Redis.
 */
export const mediaEngineProvider = {
  provide: MEDIA_ENGINE,
  inject: [APP_CONFIG],
  useFactory: async (config: AppConfig): Promise<MediaEngine> => {
    if (config.sfu.mode === 'remote') {
      const remote = new RemoteEngine({
        redisUrl: config.redisUrl!,
        prefix: config.eventPrefix,
        secret: config.sfu.secret,
      });
      await remote.start();
      return remote;
    }
    return createWeriftEngine({
      announcedAddress: config.rtc.announcedAddress,
      portRange: config.rtc.portRange,
      iceServers: config.rtc.iceServers,
      shards: config.rtc.shards,
      maxListeners: config.rtc.maxListeners,
    });
  },
};

@Injectable()
export class MediaEngineCloser implements OnApplicationShutdown {
  constructor(@Inject(MEDIA_ENGINE) private readonly engine: MediaEngine) {}
  async onApplicationShutdown(): Promise<void> {
    await this.engine.close();
  }
}
