import { Global, Module } from '@nestjs/common';
import { ThrottlerModule, ThrottlerStorageService } from '@nestjs/throttler';
import { APP_CONFIG, type AppConfig, type RateLimitName } from '../config/config.js';
import { RedisService } from '../redis/redis.service.js';
import type { Request } from 'express';
import { signUpAddressKey } from '../auth/sign-up-address.js';
import { rateLimitsOf, RateLimitGuard } from './rate-limit.guard.js';
import { RedisThrottlerStorage } from './redis-throttler.storage.js';

/**
 * What a limit counts by other than the client IP (the default): undefined leaves the request
 * out of that limit.
 */
const TRACKERS: Partial<Record<RateLimitName, (req: Request) => string | undefined>> = {
  signUpAddress: (req) => signUpAddressKey((req.body as { email?: unknown } | undefined)?.email),
  stationPassword: (req) => {
    const body = req.body as { stationId?: unknown; password?: unknown } | undefined;
    return body?.password === undefined ? undefined : `${req.ip}|${String(body.stationId)}`;
  },
};

/**
 * Every request limit of the API, one named throttler per entry of `config.rateLimits`; a route
 * opts in with `@RateLimit(...names)` and only those throttlers apply to it.
 */
@Global()
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG, RedisService],
      useFactory: (config: AppConfig, redis: RedisService) => ({
        setHeaders: false,
        storage: redis.client
          ? new RedisThrottlerStorage(redis.client, config.redisPrefix)
          : new ThrottlerStorageService(),
        throttlers: (Object.keys(config.rateLimits) as RateLimitName[]).map((name) => {
          const { limit, ttlMs } = config.rateLimits[name];
          const tracker = TRACKERS[name];
          return {
            name,
            limit,
            ttl: ttlMs,
            // Only the route's own limits apply; 0 turns a limit off.
            skipIf: (context) =>
              limit <= 0 ||
              !rateLimitsOf(context).includes(name) ||
              (tracker !== undefined &&
                tracker(context.switchToHttp().getRequest<Request>()) === undefined),
            ...(tracker && {
              getTracker: (req: Record<string, unknown>) => tracker(req as unknown as Request)!,
            }),
          };
        }),
      }),
    }),
  ],
  providers: [RateLimitGuard],
  exports: [ThrottlerModule, RateLimitGuard],
})
export class RateLimitModule {}
