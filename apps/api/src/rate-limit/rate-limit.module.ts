import { Global, Module } from '@nestjs/common';
import { ThrottlerModule, ThrottlerStorageService } from '@nestjs/throttler';
import { APP_CONFIG, type AppConfig, type RateLimitName } from '../config/config.js';
import { RedisService } from '../redis/redis.service.js';
import { rateLimitOf, RateLimitGuard } from './rate-limit.guard.js';
import { RedisThrottlerStorage } from './redis-throttler.storage.js';

/**
 * Every request limit of the API, one named throttler per entry of `config.rateLimits`; a route
 * opts in with `@RateLimit(name)` and only that throttler applies to it.
 */
@Global()
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG, RedisService],
      useFactory: (config: AppConfig, redis: RedisService) => ({
        setHeaders: false,
        storage: redis.client
          ? new RedisThrottlerStorage(redis.client, config.eventPrefix)
          : new ThrottlerStorageService(),
        throttlers: (Object.keys(config.rateLimits) as RateLimitName[]).map((name) => {
          const { limit, ttlMs } = config.rateLimits[name];
          return {
            name,
            limit,
            ttl: ttlMs,
            // Only the route's own limit applies; 0 turns a limit off.
            skipIf: (context) => limit <= 0 || rateLimitOf(context) !== name,
          };
        }),
      }),
    }),
  ],
  providers: [RateLimitGuard],
  exports: [ThrottlerModule, RateLimitGuard],
})
export class RateLimitModule {}
