import { Module } from '@nestjs/common';
import { ShowsModule } from '../shows/shows.module.js';
import { StationsModule } from '../stations/stations.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { FollowController } from './follow.controller.js';
import { FollowNotifier } from './follow-notifier.js';
import { FollowRepository } from './follow.repository.js';
import { FollowService } from './follow.service.js';
import { NotificationDispatcher } from './notification-dispatcher.js';
import { PushNotifier } from './push-notifier.js';
import { PushController } from './push.controller.js';
import { OutboundModule } from '../common/outbound/outbound.module.js';

/** Followers of stations and what they are told: go-live notices and show reminders, by e-mail and Web Push. */
@Module({
  imports: [StationsModule, ShowsModule, WebhooksModule, OutboundModule],
  controllers: [FollowController, PushController],
  providers: [
    FollowRepository,
    FollowService,
    FollowNotifier,
    NotificationDispatcher,
    PushNotifier,
  ],
  exports: [FollowService],
})
export class FollowModule {}
