import type { Parsed } from '../common/zod.pipe.js';
import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  PushSubscriptionRequest,
  RemovePushSubscriptionRequest,
} from '@radiobroadcaster/contracts';
import type { AuthContext } from '../auth/auth-context.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { AppError } from '../common/app-error.js';
import { RateLimit } from '../rate-limit/rate-limit.guard.js';
import { OwnerRoute, ZodBody } from '../stations/owner-routes.js';
import { FollowRepository } from './follow.repository.js';
import { PushNotifier } from './push-notifier.js';

/** A user's browsers that take Web Push, at most this many (the oldest goes). */
const MAX_SUBSCRIPTIONS = 20;

@ApiTags('follow')
@Controller()
export class PushController {
  constructor(
    @Inject(PushNotifier) private readonly push: PushNotifier,
    @Inject(FollowRepository) private readonly repo: FollowRepository,
  ) {}

  @Get('api/push/vapid-public-key')
  @ApiOperation({ summary: "The server's VAPID public key (null: Web Push is not set up)" })
  key(): { publicKey: string | null } {
    return { publicKey: this.push.publicKey };
  }

  @OwnerRoute(
    'POST',
    'api/push/subscriptions',
    "Register this browser's push subscription {endpoint, keys: {p256dh, auth}} (PushSubscription.toJSON())",
    204,
  )
  @RateLimit('follow')
  async subscribe(
    @CurrentUser() user: AuthContext,
    @ZodBody(PushSubscriptionRequest) body: Parsed<typeof PushSubscriptionRequest>,
  ): Promise<void> {
    if (!this.push.publicKey)
      throw AppError.conflict('Browser notifications are not set up on this server');
    const problem = this.push.endpointProblem(body.endpoint);
    if (problem)
      throw AppError.validation(`Invalid request: endpoint: ${problem}`, [
        { path: 'endpoint', message: problem },
      ]);
    await this.repo.addPushSubscription(user.userId, {
      endpoint: body.endpoint,
      p256dh: body.keys.p256dh,
      auth: body.keys.auth,
    });
    const all = await this.repo.pushSubscriptions(user.userId);
    for (const old of all.slice(0, Math.max(0, all.length - MAX_SUBSCRIPTIONS)))
      await this.repo.removePushSubscription(old.endpoint, user.userId);
  }

  @OwnerRoute('POST', 'api/push/subscriptions/remove', 'Forget a push subscription {endpoint}', 204)
  async unsubscribe(
    @CurrentUser() user: AuthContext,
    @ZodBody(RemovePushSubscriptionRequest) body: Parsed<typeof RemovePushSubscriptionRequest>,
  ): Promise<void> {
    await this.repo.removePushSubscription(body.endpoint, user.userId);
  }
}
