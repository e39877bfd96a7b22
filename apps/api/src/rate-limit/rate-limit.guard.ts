import {
  applyDecorators,
  type ExecutionContext,
  Injectable,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import {
  ThrottlerGuard,
  type ThrottlerLimitDetail,
  type ThrottlerRequest,
} from '@nestjs/throttler';
import { ErrorTag } from '@radiobroadcaster/contracts';
import { AppError } from '../common/app-error.js';
import type { RateLimitName } from '../config/config.js';

export const RATE_LIMIT_KEY = 'rb:rate-limit';

const WHAT: Record<RateLimitName, string> = {
  auth: 'Too many attempts',
  listen: 'Too many listening requests',
  publish: 'Too many publishing requests',
  mail: 'Too many emails requested',
  signUp: 'Too many sign-ups from this network',
  signUpAddress: 'Too many sign-up attempts with this email address',
  source: 'Too many failed source logins',
  stationPassword: 'Too many password attempts for this station',
  follow: 'Too many follow requests',
};

/**
 * Limits this route with the named limits from the configuration (one place for every limit;
 * counted in Redis when configured, so they hold across API nodes), each counted on its own; the
 * first one used up answers 429. Runs before validation, so malformed attempts count too.
 */
export const RateLimit = (...names: [RateLimitName, ...RateLimitName[]]) =>
  applyDecorators(SetMetadata(RATE_LIMIT_KEY, names), UseGuards(RateLimitGuard));

/** The route's limit names (none when it has no limit). */
export function rateLimitsOf(context: ExecutionContext): readonly RateLimitName[] {
  return (Reflect.getMetadata(RATE_LIMIT_KEY, context.getHandler()) as RateLimitName[]) ?? [];
}

/** `ThrottlerGuard` answering with our error body: 429 TooManyRequests and `Retry-After`. */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  /** The limit being counted for a request (they are counted one after the other). */
  private readonly counting = new WeakMap<ExecutionContext, RateLimitName>();

  protected override handleRequest(props: ThrottlerRequest): Promise<boolean> {
    this.counting.set(props.context, props.throttler.name as RateLimitName);
    return super.handleRequest(props);
  }

  protected override async throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const name = this.counting.get(context) ?? rateLimitsOf(context)[0] ?? 'auth';
    const seconds = Math.max(1, detail.timeToBlockExpire);
    throw new AppError(
      ErrorTag.RateLimited,
      `${WHAT[name]}, try again in ${seconds} seconds`,
      undefined,
      { 'Retry-After': String(seconds) },
    );
  }
}
