import { Controller, Inject, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import {
  CreateWebhookRequest,
  RetryDeliveryRequest,
  UpdateWebhookRequest,
  type Webhook,
  type WebhookDeliveriesResponse,
  type WebhookDelivery,
  WebhookId,
  WebhookIdRequest,
} from '@radiobroadcaster/contracts';
import type { AuthContext } from '../auth/auth-context.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { type Parsed, ZodPipe } from '../common/zod.pipe.js';
import { OwnedCollectionController, OwnerRoute, ZodBody } from '../stations/owner-routes.js';
import { WebhooksService } from './webhooks.service.js';

@ApiTags('webhooks')
@Controller()
export class WebhooksController extends OwnedCollectionController<
  Webhook,
  CreateWebhookRequest,
  UpdateWebhookRequest,
  'webhooks'
>({
  path: 'webhooks',
  id: { param: 'webhookId', schema: WebhookId },
  list: {
    key: 'webhooks',
    summary: "A station's webhooks with their signing secrets (owner only)",
  },
  create: {
    schema: CreateWebhookRequest,
    summary: 'Add a webhook: {stationId, url, events, description?} → 201 with its secret',
  },
  update: {
    schema: UpdateWebhookRequest,
    summary: 'Change a webhook: url, events, description, enabled',
  },
  remove: { summary: 'Delete a webhook and its log' },
}) {
  constructor(@Inject(WebhooksService) private readonly webhooks: WebhooksService) {
    super(webhooks);
  }

  @OwnerRoute('POST', 'api/stations/webhooks/rotate-secret', 'Replace the signing secret', 200)
  rotate(
    @CurrentUser() user: AuthContext,
    @ZodBody(WebhookIdRequest) body: Parsed<typeof WebhookIdRequest>,
  ): Promise<Webhook> {
    return this.webhooks.rotateSecret(user.userId, body.webhookId);
  }

  @OwnerRoute(
    'POST',
    'api/stations/webhooks/test',
    'Send a webhook.test event now and answer with the logged attempt',
    200,
  )
  test(
    @CurrentUser() user: AuthContext,
    @ZodBody(WebhookIdRequest) body: Parsed<typeof WebhookIdRequest>,
  ): Promise<WebhookDelivery> {
    return this.webhooks.test(user.userId, body.webhookId);
  }

  @OwnerRoute(
    'POST',
    'api/stations/webhooks/deliveries/retry',
    'Send a logged delivery again now',
    200,
  )
  retry(
    @CurrentUser() user: AuthContext,
    @ZodBody(RetryDeliveryRequest) body: Parsed<typeof RetryDeliveryRequest>,
  ): Promise<WebhookDelivery> {
    return this.webhooks.retry(user.userId, body.deliveryId);
  }

  @OwnerRoute(
    'GET',
    'api/stations/webhooks/:webhookId/deliveries',
    'The delivery log of one webhook, newest first, with every attempt',
  )
  async deliveries(
    @CurrentUser() user: AuthContext,
    @Param('webhookId', new ZodPipe(WebhookId)) webhookId: string,
  ): Promise<WebhookDeliveriesResponse> {
    return { deliveries: await this.webhooks.deliveries(user.userId, webhookId) };
  }
}
