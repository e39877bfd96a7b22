import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutboundModule } from '../common/outbound/outbound.module.js';
import { OutboundPolicy } from '../common/outbound/outbound-policy.js';
import { StationsModule } from '../stations/stations.module.js';
import { WebhookAttemptEntity } from './webhook-attempt.entity.js';
import { WebhookDeliveryEntity } from './webhook-delivery.entity.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { HttpWebhookSender, WebhookSender } from './webhook-sender.js';
import { WebhookEntity } from './webhook.entity.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksRepository } from './webhooks.repository.js';
import { WebhooksService } from './webhooks.service.js';

@Module({
  imports: [
    TypeOrmModule.forFeature([WebhookEntity, WebhookDeliveryEntity, WebhookAttemptEntity]),
    StationsModule,
    OutboundModule,
  ],
  controllers: [WebhooksController],
  providers: [
    WebhooksRepository,
    WebhooksService,
    WebhookDispatcher,
    {
      provide: WebhookSender,
      inject: [OutboundPolicy],
      useFactory: (policy: OutboundPolicy) => new HttpWebhookSender(policy),
    },
  ],
  exports: [WebhooksService],
})
export class WebhooksModule {}
