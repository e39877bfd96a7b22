import { type DynamicModule, Module } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { LoggerModule } from 'nestjs-pino';
import type { Logger } from 'pino';
import { AuthModule } from './auth/auth.module.js';
import { loggerModuleParams } from './common/logger.js';
import { ContentModule } from './content/content.module.js';
import type { AppConfig } from './config/config.js';
import { ConfigModule } from './config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { EventsModule } from './events/events.module.js';
import { HealthModule } from './health/health.module.js';
import { MediaModule } from './media/media.module.js';
import { RateLimitModule } from './rate-limit/rate-limit.module.js';
import { RedisModule } from './redis/redis.module.js';
import { WebModule } from './web/web.module.js';
import { DomainsModule } from './domains/domains.module.js';
import { RealtimeModule } from './realtime/realtime.module.js';
import { StationsModule } from './stations/stations.module.js';
import { StreamKeysModule } from './radio/stream-keys.module.js';
import { RadioModule } from './radio/radio.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';
import { StatsModule } from './stats/stats.module.js';
import { ImagesModule } from './images/images.module.js';
import { RecordingsModule } from './recordings/recordings.module.js';
import { RelaysModule } from './relays/relays.module.js';
import { DemoModule } from './demo/demo.module.js';
import { ShowsModule } from './shows/shows.module.js';
import { AccessModule } from './access/access.module.js';
import { ChatModule } from './chat/chat.module.js';
import { FollowModule } from './follow/follow.module.js';
import { PodcastModule } from './podcast/podcast.module.js';

@Module({})
export class AppModule {
  /**
   * `redis`: the connected client when `REDIS_URL` is set (see `connectRedis`); `logger`: the
   * process's pino logger (see `createPino`).
   */
  static forRoot(config: AppConfig, redis: Redis | null, logger: Logger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggerModule.forRoot(loggerModuleParams(logger)),
        ConfigModule.forRoot(config),
        RedisModule.forRoot(redis),
        RateLimitModule,
        DatabaseModule,
        EventsModule,
        HealthModule,
        AuthModule,
        StationsModule,
        DomainsModule,
        RealtimeModule,
        ChatModule,
        MediaModule,
        StreamKeysModule,
        RadioModule,
        WebhooksModule,
        StatsModule,
        ImagesModule,
        RecordingsModule,
        RelaysModule,
        DemoModule,
        // Its `/{username}/{slug}/schedule.ics` comes before the web app's catch-all.
        ShowsModule,
        // Followers and notifications; its `/{username}/{slug}/podcast.xml` before the catch-all.
        FollowModule,
        // `/{username}/{slug}/podcast.xml` and its artwork: before the web app's catch-all.
        PodcastModule,
        // sitemap.xml, robots.txt, the blog feed: before the web app's catch-all.
        ContentModule,
        // Private stations' owner routes (invites, password, listener list): before the catch-all.
        AccessModule,
        // Last: its catch-all GET serves the web app.
        WebModule,
      ],
    };
  }
}
