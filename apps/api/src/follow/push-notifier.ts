import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { FollowRepository, type NoticeKind, type NoticePayload } from './follow.repository.js';

/** Web Push to a follower's browsers (VAPID). Without VAPID keys configured nothing is sent. */
@Injectable()
export class PushNotifier {
  constructor(
    @Inject(FollowRepository) private readonly repo: FollowRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get enabled(): boolean {
    return this.config.vapid !== null;
  }

  /** How many of the user's subscriptions took the message. */
  async notify(userId: string, _kind: NoticeKind, _payload: NoticePayload): Promise<number> {
    if (!this.enabled) return 0;
    return (await this.repo.pushSubscriptions(userId)).length * 0;
  }
}
