import {
  applyDecorators,
  type ExecutionContext,
  Injectable,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import { ErrorTag } from '@radiobroadcaster/contracts';
import { AppError } from '../common/app-error.js';
import type { RateLimitName } from '../config/config.js';

export const RATE_LIMIT_KEY = 'rb:rate-limit';

const WHAT: Record<RateLimitName, string> = {
  auth: 'Too many attempts',
  listen: 'Too many listening requests',
  publish: 'Too many publishing requests',
  mail: 'Too many emails requested',
  source: 'Too many failed source logins',
};

/**
 * Limits this route per client IP with the named limit from the configuration (one place for
 * every limit; counted in Redis when configured, so it holds across API nodes). Runs before
 * validation, so malformed attempts count too.
 */
export const RateLimit = (name: RateLimitName) =>
  applyDecorators(SetMetadata(RATE_LIMIT_KEY, name), UseGuards(RateLimitGuard));

/** The route's limit name, or undefined when it has none. */
export function rateLimitOf(context: ExecutionContext): RateLimitName | undefined {
  return Reflect.getMetadata(RATE_LIMIT_KEY, context.getHandler()) as RateLimitName | undefined;
}

/** `ThrottlerGuard` answering with our error body: 429 TooManyRequests and `Retry-After`. */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  protected override async throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const name = rateLimitOf(context) ?? 'auth';
    const seconds = Math.max(1, detail.timeToBlockExpire);
    throw new AppError(
      ErrorTag.RateLimited,
      `${WHAT[name]}, try again in ${seconds} seconds`,
      undefined,
      { 'Retry-After': String(seconds) },
    );
  }
}
