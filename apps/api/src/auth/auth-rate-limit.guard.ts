import {
  type CanActivate,
  type ExecutionContext,
  Inject,
  Injectable,
  Logger,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { ErrorTag } from '@radiobroadcaster/contracts';
import type { Request } from 'express';
import { Redis } from 'ioredis';
import { AppError } from '../common/app-error.js';
import { RateLimiter } from '../common/rate-limiter.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';

/**
 * Sign-in and sign-up attempts per client IP per minute (`RATE_LIMIT_AUTH_PER_MINUTE`).
 * Counted in Redis when configured, so the limit holds across API nodes.
 */
@Injectable()
export class AuthRateLimiter implements OnApplicationShutdown {
  private readonly logger = new Logger('AuthRateLimiter');
  private readonly redis?: Redis;
  private readonly shared: RateLimiter;
  private readonly local: RateLimiter;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const limit = config.rateLimit.authPerMinute;
    if (config.redisUrl) {
      this.redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
      this.redis.on('error', () => undefined); // logged where a command fails
    }
    this.shared = new RateLimiter(limit, 60_000, this.redis, `${config.eventPrefix}:rl:auth`);
    this.local = new RateLimiter(limit, 60_000);
  }

  async hit(key: string): Promise<{ allowed: boolean; retryAfter: number }> {
    if (!this.redis) return this.local.hit(key);
    try {
      return await this.shared.hit(key);
    } catch (err) {
      // Redis down: keep limiting on this node rather than failing sign-ins.
      this.logger.warn(`Redis unavailable for rate limiting: ${(err as Error).message}`);
      return this.local.hit(key);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.redis && this.redis.status !== 'end') await this.redis.quit().catch(() => undefined);
  }
}

/** 429 TooManyRequests with `Retry-After` once a client IP exceeds the limit on this route. */
@Injectable()
export class AuthRateLimitGuard implements CanActivate {
  constructor(@Inject(AuthRateLimiter) private readonly limiter: AuthRateLimiter) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const { allowed, retryAfter } = await this.limiter.hit(`${req.route?.path ?? req.path}:${ip}`);
    if (allowed) return true;
    const seconds = Math.max(1, retryAfter);
    throw new AppError(
      ErrorTag.RateLimited,
      `Too many attempts, try again in ${seconds} seconds`,
      undefined,
      { 'Retry-After': String(seconds) },
    );
  }
}
