/**
 * Local or cluster, decided once here: the SFU in this process with an in-memory session store,
 * or (`SFU_MODE=remote`) the SFU nodes registered in Redis with the session store in Redis.
 * Everything else asks `MediaEngine` and `SessionStore` and never knows which.
 */
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { ClusterEngine, createMediaEngine, type MediaEngine } from '@radiobroadcaster/sfu';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { RedisService } from '../redis/redis.service.js';
import { RedisSessionStore } from './redis-session-store.js';
import { InMemorySessionStore, SessionStore } from './session-store.js';

export const MEDIA_ENGINE = Symbol('MEDIA_ENGINE');
const MEDIA_BACKEND = Symbol('MEDIA_BACKEND');

interface MediaBackend {
  engine: MediaEngine;
  sessions: SessionStore;
  close(): Promise<void>;
}

async function createMediaBackend(
  config: AppConfig,
  redisService: RedisService,
): Promise<MediaBackend> {
  // Configuration refuses SFU_MODE=remote without REDIS_URL.
  const redis = config.sfu.mode === 'remote' ? redisService.duplicate('media') : null;
  if (redis) {
    const logger = new Logger('Cluster');
    const engine = await new ClusterEngine({
      redis,
      prefix: config.redisPrefix,
      secret: config.sfu.secret,
      warn: (m) => logger.warn(m),
    }).start();
    return {
      engine,
      sessions: new RedisSessionStore(redis, config.redisPrefix),
      close: () => engine.close(),
    };
  }
  // MEDIA_ENGINE=werift|mediasoup; unset: mediasoup where its worker is built, werift otherwise
  const sfuLogger = new Logger('SFU');
  const { engine } = await createMediaEngine(
    {
      announcedAddress: config.rtc.announcedAddress,
      portRange: config.rtc.portRange,
      udpPort: config.rtc.udpPort,
      tcpPort: config.rtc.tcpPort,
      iceServers: config.rtc.iceServers,
      shards: config.rtc.shards,
      maxListeners: config.rtc.maxListeners,
      engine: config.rtc.engine,
    },
    (line) => sfuLogger.log(line),
  );
  const sessions = new InMemorySessionStore();
  return {
    engine,
    sessions,
    close: async () => {
      await engine.close();
      await sessions.close();
    },
  };
}

@Injectable()
export class MediaBackendCloser implements OnApplicationShutdown {
  constructor(@Inject(MEDIA_BACKEND) private readonly backend: MediaBackend) {}
  async onApplicationShutdown(): Promise<void> {
    await this.backend.close();
  }
}

export const mediaProviders = [
  { provide: MEDIA_BACKEND, inject: [APP_CONFIG, RedisService], useFactory: createMediaBackend },
  { provide: MEDIA_ENGINE, inject: [MEDIA_BACKEND], useFactory: (b: MediaBackend) => b.engine },
  { provide: SessionStore, inject: [MEDIA_BACKEND], useFactory: (b: MediaBackend) => b.sessions },
  MediaBackendCloser,
];
