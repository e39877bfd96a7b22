import { randomBytes } from 'node:crypto';
import {
  Inject,
  Injectable,
  Logger,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import {
  type CreateWebhookRequest,
  type UpdateWebhookRequest,
  type Webhook,
  type WebhookDelivery,
  type WebhookEventType,
  type WebhookPayload,
  type WebhookStation,
  WEBHOOK_LIMITS,
  WEBHOOK_TEST_EVENT,
} from '@radiobroadcaster/contracts';
import { AppError } from '../common/app-error.js';
import { OutboundPolicy } from '../common/outbound/outbound-policy.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { EventBus } from '../events/event-bus.js';
import type { StationEntity } from '../stations/station.entity.js';
import { StationsService } from '../stations/stations.service.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { newWebhookSecret } from './webhook-signature.js';
import type { WebhookEntity } from './webhook.entity.js';
import { type LastDelivery, WebhooksRepository } from './webhooks.repository.js';

const LOG_LIMIT = 50;

/** Station webhooks: owners manage endpoints; station events become queued, signed deliveries. */
@Injectable()
export class WebhooksService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Webhooks');
  private readonly off: (() => void)[] = [];

  constructor(
    @Inject(WebhooksRepository) private readonly repo: WebhooksRepository,
    @Inject(StationsService) private readonly stations: StationsService,
    @Inject(WebhookDispatcher) private readonly dispatcher: WebhookDispatcher,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(OutboundPolicy) private readonly outbound: OutboundPolicy,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.pauseRefusedEndpoints();
    // Every node hears every event; only the node that published it queues the deliveries.
    this.off.push(
      this.bus.subscribe('station.live', (e, { local }) => {
        if (local)
          this.emitSafely(e.stationId, 'station.live', {
            status: e.status,
            startedAt: e.lastActiveAt,
          });
      }),
      this.bus.subscribe('station.offline', (e, { local }) => {
        if (local)
          this.emitSafely(e.stationId, 'station.offline', {
            status: e.status,
            endedAt: e.lastActiveAt,
          });
      }),
      this.bus.subscribe('station.ended', (e, { local }) => {
        if (local)
          this.emitSafely(e.stationId, 'station.offline', {
            status: e.status,
            endedAt: e.lastActiveAt ?? new Date().toISOString(),
          });
      }),
      this.bus.subscribe('station.nowPlaying', (e, { local }) => {
        if (local)
          this.emitSafely(e.stationId, 'now_playing.changed', { nowPlaying: e.nowPlaying });
      }),
    );
  }

  onModuleDestroy(): void {
    for (const off of this.off) off();
  }

  /**
   * At start-up: endpoints whose address the outbound policy refuses (saved before the policy, or
   * before the operator turned private networks off) are paused with the reason their owner sees.
   */
  private async pauseRefusedEndpoints(): Promise<void> {
    try {
      for (const hook of await this.repo.enabledTargets()) {
        const problem = this.outbound.urlProblem(hook.url);
        if (!problem) continue;
        await this.repo.pause(hook.id, `Paused: ${problem}`);
        this.logger.warn(`webhook ${hook.id} paused: ${problem}`);
      }
    } catch (err) {
      this.logger.warn(`checking webhook addresses: ${(err as Error).message}`);
    }
  }

  // ---- events ----

  /**
   * Queues `type` for every enabled endpoint of the station that subscribes to it. The queue is
   * in PostgreSQL: a restart or another node carries on with it.
   */
  async emit(stationId: string, type: WebhookEventType, data: object): Promise<number> {
    const hooks = await this.repo.subscribers(stationId, type);
    if (hooks.length === 0) return 0;
    const station = await this.stations.entity(stationId);
    const eventId = newEventId();
    const payload = this.body(type, station, data);
    const ids = await this.repo.enqueue(
      hooks.map((h) => ({ webhookId: h.id, eventId, eventType: type, payload })),
    );
    this.dispatcher.nudge();
    return ids.length;
  }

  private emitSafely(stationId: string, type: WebhookEventType, data: object): void {
    this.emit(stationId, type, data).catch((err: Error) =>
      this.logger.warn(`queueing ${type} for ${stationId}: ${err.message}`),
    );
  }

  private body(type: WebhookPayload['type'], station: StationEntity, data: object): string {
    const payload: WebhookPayload = {
      type,
      timestamp: new Date().toISOString(),
      data: { station: this.stationRef(station), ...data },
    };
    return JSON.stringify(payload);
  }

  private stationRef(s: StationEntity): WebhookStation {
    const username = s.broadcaster.username;
    return {
      id: s.id,
      name: s.name,
      slug: s.slug,
      username,
      url: `${this.config.publicUrl}/${username}/${s.slug}`,
    };
  }

  // ---- endpoints (owner only) ----

  async list(userId: string, stationId: string): Promise<Webhook[]> {
    await this.stations.owned(stationId, userId);
    const hooks = await this.repo.listByStation(stationId);
    const last = new Map(
      (await this.repo.lastDeliveries(hooks.map((h) => h.id))).map((l) => [l.webhookId, l]),
    );
    return hooks.map((h) => view(h, last.get(h.id)));
  }

  async create(userId: string, req: CreateWebhookRequest): Promise<Webhook> {
    await this.stations.owned(req.stationId, userId);
    this.outbound.assertUrl(req.url);
    if ((await this.repo.countByStation(req.stationId)) >= WEBHOOK_LIMITS.perStation) {
      throw AppError.conflict(`A station can have at most ${WEBHOOK_LIMITS.perStation} webhooks`);
    }
    const hook = await this.repo.insert({
      stationId: req.stationId,
      url: req.url,
      events: req.events,
      description: req.description ?? '',
      secret: newWebhookSecret(),
    });
    return view(hook);
  }

  async update(userId: string, req: UpdateWebhookRequest): Promise<Webhook> {
    const hook = await this.owned(userId, req.webhookId);
    const { webhookId, ...changes } = req;
    const next: Parameters<WebhooksRepository['update']>[1] = { ...changes };
    if (changes.url !== undefined) this.outbound.assertUrl(changes.url);
    else if (changes.enabled) this.outbound.assertUrl(hook.url);
    // A new address lifts a pause the policy made; enabling (or pausing) replaces it.
    if (hook.pausedReason && changes.url !== undefined && changes.url !== hook.url) {
      next.pausedReason = null;
      next.enabled = changes.enabled ?? true;
    }
    if (changes.enabled !== undefined) next.pausedReason = null;
    if (Object.keys(next).length > 0) await this.repo.update(webhookId, next);
    return this.one(webhookId);
  }

  /** A new secret, effective for the next attempt; the old one stops verifying at once. */
  async rotateSecret(userId: string, webhookId: string): Promise<Webhook> {
    await this.owned(userId, webhookId);
    await this.repo.update(webhookId, { secret: newWebhookSecret() });
    return this.one(webhookId);
  }

  async remove(userId: string, webhookId: string): Promise<void> {
    await this.owned(userId, webhookId);
    await this.repo.delete(webhookId);
  }

  async deliveries(userId: string, webhookId: string): Promise<WebhookDelivery[]> {
    await this.owned(userId, webhookId);
    return this.repo.log(webhookId, LOG_LIMIT);
  }

  /** Sends a `webhook.test` event at once and answers with its logged outcome. */
  async test(userId: string, webhookId: string): Promise<WebhookDelivery> {
    const hook = await this.owned(userId, webhookId);
    const station = await this.stations.entity(hook.stationId);
    const eventId = newEventId();
    const payload = this.body(WEBHOOK_TEST_EVENT, station, {
      message: 'A test event from Radio Broadcaster: your endpoint is reachable.',
    });
    const [id] = await this.repo.enqueue([
      { webhookId, eventId, eventType: WEBHOOK_TEST_EVENT, payload },
    ]);
    await this.dispatcher.deliverNow(id!);
    return this.delivery(webhookId, id!);
  }

  /** Sends a delivery again now (same event id, so a receiver that got it already can drop it). */
  async retry(userId: string, deliveryId: string): Promise<WebhookDelivery> {
    const delivery = await this.repo.findDelivery(deliveryId);
    if (!delivery) throw AppError.notFound('Delivery not found');
    await this.owned(userId, delivery.webhookId);
    if (delivery.status === 'pending' && delivery.lockedUntil && delivery.lockedUntil > new Date())
      throw AppError.conflict('This delivery is being sent right now');
    await this.repo.requeue(deliveryId);
    await this.dispatcher.deliverNow(deliveryId);
    return this.delivery(delivery.webhookId, deliveryId);
  }

  private async delivery(webhookId: string, id: string): Promise<WebhookDelivery> {
    const found = (await this.repo.log(webhookId, LOG_LIMIT)).find((d) => d.id === id);
    if (!found) throw AppError.notFound('Delivery not found');
    return found;
  }

  private async owned(userId: string, webhookId: string): Promise<WebhookEntity> {
    return this.stations.ownedItem(await this.repo.findById(webhookId), 'Webhook', userId);
  }

  private async one(webhookId: string): Promise<Webhook> {
    const hook = (await this.repo.findById(webhookId))!;
    const [last] = await this.repo.lastDeliveries([webhookId]);
    return view(hook, last);
  }
}

function newEventId(): string {
  return `evt_${randomBytes(16).toString('hex')}`;
}

function view(h: WebhookEntity, last?: LastDelivery): Webhook {
  return {
    id: h.id,
    stationId: h.stationId,
    url: h.url,
    description: h.description,
    events: h.events,
    enabled: h.enabled,
    pausedReason: h.pausedReason,
    secret: h.secret,
    createdAt: h.createdAt.toISOString(),
    updatedAt: h.updatedAt.toISOString(),
    lastDelivery: last
      ? { status: last.status, at: last.at.toISOString(), responseStatus: last.responseStatus }
      : null,
  };
}
