import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import type {
  WebhookAttempt,
  WebhookDelivery,
  WebhookDeliveryStatus,
  WebhookEventType,
} from '@radiobroadcaster/contracts';
import type { DataSource, Repository } from 'typeorm';
import { WebhookAttemptEntity } from './webhook-attempt.entity.js';
import { WebhookDeliveryEntity } from './webhook-delivery.entity.js';
import { WebhookEntity } from './webhook.entity.js';

/** A delivery claimed by this node for one attempt, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  eventId: string;
  payload: string;
  attemptCount: number;
  url: string;
  secret: string;
  enabled: boolean;
}

export interface LastDelivery {
  webhookId: string;
  status: WebhookDeliveryStatus;
  at: Date;
  responseStatus: number | null;
}

/** All webhook I/O. The queue lives in `webhook_deliveries`; times come from the database clock. */
@Injectable()
export class WebhooksRepository {
  constructor(
    @InjectRepository(WebhookEntity) private readonly webhooks: Repository<WebhookEntity>,
    @InjectRepository(WebhookDeliveryEntity)
    private readonly deliveries: Repository<WebhookDeliveryEntity>,
    @InjectRepository(WebhookAttemptEntity)
    private readonly attempts: Repository<WebhookAttemptEntity>,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  listByStation(stationId: string): Promise<WebhookEntity[]> {
    return this.webhooks.find({ where: { stationId }, order: { createdAt: 'ASC' } });
  }

  countByStation(stationId: string): Promise<number> {
    return this.webhooks.count({ where: { stationId } });
  }

  findById(id: string): Promise<WebhookEntity | null> {
    return this.webhooks.findOne({ where: { id } });
  }

  async insert(
    values: Pick<WebhookEntity, 'stationId' | 'url' | 'description' | 'events' | 'secret'>,
  ): Promise<WebhookEntity> {
    const { identifiers } = await this.webhooks.insert(values);
    return (await this.findById(identifiers[0]!.id as string))!;
  }

  async update(
    id: string,
    values: Partial<
      Pick<WebhookEntity, 'url' | 'description' | 'events' | 'enabled' | 'secret' | 'pausedReason'>
    >,
  ): Promise<void> {
    await this.webhooks.update({ id }, values);
  }

  /** Stops sending to an endpoint, with the reason its owner sees. */
  async pause(id: string, reason: string): Promise<void> {
    await this.webhooks.update({ id }, { enabled: false, pausedReason: reason });
  }

  /** Every enabled endpoint's address (the start-up check of the outbound policy). */
  enabledTargets(): Promise<Pick<WebhookEntity, 'id' | 'url'>[]> {
    return this.webhooks.find({ select: { id: true, url: true }, where: { enabled: true } });
  }

  async delete(id: string): Promise<void> {
    await this.webhooks.delete({ id });
  }

  /** Enabled endpoints of the station that subscribe to `type`. */
  subscribers(stationId: string, type: WebhookEventType): Promise<WebhookEntity[]> {
    return this.webhooks
      .createQueryBuilder('w')
      .where('w.station_id = :stationId AND w.enabled AND :type = ANY (w.events)', {
        stationId,
        type,
      })
      .getMany();
  }

  /** Queues one delivery per endpoint, due now; an event already queued for an endpoint is skipped. */
  async enqueue(
    rows: { webhookId: string; eventId: string; eventType: string; payload: string }[],
  ): Promise<string[]> {
    if (rows.length === 0) return [];
    const result = await this.deliveries
      .createQueryBuilder()
      .insert()
      .values(rows.map((r) => ({ ...r, status: 'pending' as const, nextAttemptAt: () => 'now()' })))
      .orIgnore()
      .returning(['id'])
      .execute();
    return (result.raw as { id: string }[]).map((r) => r.id);
  }

  /**
   * Takes up to `limit` due deliveries for this node: `SKIP LOCKED` keeps two nodes off the same
   * row, and the lease (`locked_until`) hands it to another node if this one dies mid-attempt.
   */
  async claimDue(limit: number, leaseSeconds: number, onlyId?: string): Promise<ClaimedDelivery[]> {
    const rows = (await this.db.query(
      `WITH due AS (
         SELECT id FROM webhook_deliveries
         WHERE status = 'pending' AND next_attempt_at <= now()
           AND (locked_until IS NULL OR locked_until < now())
           AND ($3::uuid IS NULL OR id = $3::uuid)
         ORDER BY next_attempt_at
         LIMIT $1
         FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE webhook_deliveries d
         SET locked_until = now() + make_interval(secs => $2), attempt_count = d.attempt_count + 1,
             updated_at = now()
         FROM due WHERE d.id = due.id
         RETURNING d.id, d.webhook_id, d.event_id, d.payload, d.attempt_count
       )
       SELECT c.id, c.webhook_id, c.event_id, c.payload, c.attempt_count, w.url, w.secret, w.enabled
       FROM claimed c JOIN webhooks w ON w.id = c.webhook_id`,
      [limit, leaseSeconds, onlyId ?? null],
    )) as {
      id: string;
      webhook_id: string;
      event_id: string;
      payload: string;
      attempt_count: number;
      url: string;
      secret: string;
      enabled: boolean;
    }[];
    return rows.map((r) => ({
      id: r.id,
      webhookId: r.webhook_id,
      eventId: r.event_id,
      payload: r.payload,
      attemptCount: r.attempt_count,
      url: r.url,
      secret: r.secret,
      enabled: r.enabled,
    }));
  }

  async recordAttempt(deliveryId: string, attempt: Omit<WebhookAttempt, 'at'>): Promise<void> {
    await this.attempts.insert({
      deliveryId,
      responseStatus: attempt.responseStatus,
      error: attempt.error?.slice(0, 300) ?? null,
      durationMs: attempt.durationMs,
      responseBody: attempt.responseBody?.slice(0, 1024) ?? null,
    });
  }

  /** Ends a delivery (`succeeded` / `failed`) or schedules its next attempt in `retryInSeconds`. */
  async settle(
    deliveryId: string,
    outcome: { status: 'succeeded' | 'failed' } | { status: 'pending'; retryInSeconds: number },
  ): Promise<void> {
    if (outcome.status === 'pending') {
      await this.db.query(
        `UPDATE webhook_deliveries SET next_attempt_at = now() + make_interval(secs => $2),
           locked_until = NULL, updated_at = now() WHERE id = $1`,
        [deliveryId, outcome.retryInSeconds],
      );
    } else {
      await this.db.query(
        `UPDATE webhook_deliveries SET status = $2, next_attempt_at = NULL, locked_until = NULL,
           updated_at = now() WHERE id = $1`,
        [deliveryId, outcome.status],
      );
    }
  }

  /** Puts a finished delivery back in the queue, due now (the studio's "Resend"). */
  async requeue(deliveryId: string): Promise<void> {
    await this.db.query(
      `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), locked_until = NULL,
         updated_at = now() WHERE id = $1`,
      [deliveryId],
    );
  }

  findDelivery(id: string): Promise<WebhookDeliveryEntity | null> {
    return this.deliveries.findOne({ where: { id } });
  }

  /** The newest deliveries of an endpoint with their attempts, newest first. */
  async log(webhookId: string, limit: number): Promise<WebhookDelivery[]> {
    const rows = await this.deliveries.find({
      where: { webhookId },
      order: { createdAt: 'DESC' },
      take: limit,
    });
    if (rows.length === 0) return [];
    const attempts = await this.attempts
      .createQueryBuilder('a')
      .where('a.delivery_id IN (:...ids)', { ids: rows.map((r) => r.id) })
      .orderBy('a.attempted_at', 'ASC')
      .getMany();
    const byDelivery = new Map<string, WebhookAttempt[]>();
    for (const a of attempts) {
      const list = byDelivery.get(a.deliveryId) ?? [];
      list.push({
        at: a.attemptedAt.toISOString(),
        responseStatus: a.responseStatus,
        error: a.error,
        durationMs: a.durationMs,
        responseBody: a.responseBody,
      });
      byDelivery.set(a.deliveryId, list);
    }
    return rows.map((r) => ({
      id: r.id,
      webhookId: r.webhookId,
      eventId: r.eventId,
      eventType: r.eventType as WebhookDelivery['eventType'],
      status: r.status,
      attemptCount: r.attemptCount,
      nextAttemptAt: r.status === 'pending' ? (r.nextAttemptAt?.toISOString() ?? null) : null,
      createdAt: r.createdAt.toISOString(),
      payload: r.payload,
      attempts: byDelivery.get(r.id) ?? [],
    }));
  }

  /** The latest delivery of each endpoint (for the list's status column). */
  async lastDeliveries(webhookIds: string[]): Promise<LastDelivery[]> {
    if (webhookIds.length === 0) return [];
    const rows = (await this.db.query(
      `SELECT DISTINCT ON (d.webhook_id) d.webhook_id, d.status, d.updated_at,
         (SELECT a.response_status FROM webhook_attempts a WHERE a.delivery_id = d.id
          ORDER BY a.attempted_at DESC LIMIT 1) AS response_status
       FROM webhook_deliveries d WHERE d.webhook_id = ANY ($1::uuid[])
       ORDER BY d.webhook_id, d.created_at DESC`,
      [webhookIds],
    )) as {
      webhook_id: string;
      status: WebhookDeliveryStatus;
      updated_at: Date;
      response_status: number | null;
    }[];
    return rows.map((r) => ({
      webhookId: r.webhook_id,
      status: r.status,
      at: r.updated_at,
      responseStatus: r.response_status,
    }));
  }

  /** Drops log entries older than `days` that are no longer pending. */
  async prune(days: number): Promise<number> {
    const [, count] = (await this.db.query(
      `DELETE FROM webhook_deliveries WHERE status <> 'pending'
         AND created_at < now() - make_interval(days => $1)`,
      [days],
    )) as [unknown, number];
    return count;
  }
}
