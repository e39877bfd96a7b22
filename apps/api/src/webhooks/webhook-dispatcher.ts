import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { WEBHOOK_TEST_EVENT } from '@radiobroadcaster/contracts';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { signedHeaders } from './webhook-signature.js';
import { WebhookSender } from './webhook-sender.js';
import { type ClaimedDelivery, WebhooksRepository } from './webhooks.repository.js';

const POLL_MS = 1000;
const MAX_IN_FLIGHT = 8;
const PRUNE_EVERY_MS = 3_600_000;
const USER_AGENT = 'RadioBroadcaster-Webhooks/1.0';

/**
 * Runs on every API node: claims due deliveries from PostgreSQL, sends them, and schedules
 * retries with backoff. The queue is the table, so retries survive restarts and each attempt is
 * made by exactly one node.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private pruneTimer: NodeJS.Timeout | null = null;
  private ticking = false;
  private again = false;
  private stopped = false;

  constructor(
    @Inject(WebhooksRepository) private readonly repo: WebhooksRepository,
    @Inject(WebhookSender) private readonly sender: WebhookSender,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.nudge(), POLL_MS);
    this.pruneTimer = setInterval(() => void this.prune(), PRUNE_EVERY_MS);
    this.nudge();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    await Promise.allSettled([...this.inFlight]);
  }

  /** Look for due deliveries now (after an enqueue) instead of at the next poll. */
  nudge(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = true;
    void this.tick().finally(() => {
      this.ticking = false;
      if (this.again) {
        this.again = false;
        this.nudge();
      }
    });
  }

  /** Claims one delivery and attempts it at once (the studio's test button, a resend). */
  async deliverNow(deliveryId: string): Promise<void> {
    const [claimed] = await this.repo.claimDue(1, this.leaseSeconds(), deliveryId);
    if (claimed) await this.track(this.attempt(claimed));
  }

  private leaseSeconds(): number {
    return Math.ceil(this.config.webhooks.timeoutMs / 1000) + 30;
  }

  private async tick(): Promise<void> {
    try {
      while (!this.stopped) {
        const room = MAX_IN_FLIGHT - this.inFlight.size;
        if (room <= 0) return;
        const claimed = await this.repo.claimDue(room, this.leaseSeconds());
        if (claimed.length === 0) return;
        for (const c of claimed) void this.track(this.attempt(c));
      }
    } catch (err) {
      if (!this.stopped) this.logger.warn(`claiming deliveries: ${(err as Error).message}`);
    }
  }

  private track(p: Promise<void>): Promise<void> {
    this.inFlight.add(p);
    return p.finally(() => {
      this.inFlight.delete(p);
      this.nudge();
    });
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    try {
      if (!d.enabled) {
        await this.repo.recordAttempt(d.id, {
          responseStatus: null,
          error: 'Endpoint disabled: not sent',
          durationMs: 0,
          responseBody: null,
        });
        await this.repo.settle(d.id, { status: 'failed' });
        return;
      }
      const res = await this.sender.send({
        url: d.url,
        body: d.payload,
        timeoutMs: this.config.webhooks.timeoutMs,
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': USER_AGENT,
          ...signedHeaders(d.secret, d.eventId, d.payload, new Date()),
        },
      });
      await this.repo.recordAttempt(d.id, {
        responseStatus: res.status,
        error: res.error,
        durationMs: res.durationMs,
        responseBody: res.body,
      });
      if (res.refused) {
        // Its address is one the server does not connect to: paused, with the reason shown.
        await this.repo.pause(d.webhookId, `Paused: ${res.error}`);
        await this.repo.settle(d.id, { status: 'failed' });
        this.logger.warn(`webhook ${d.webhookId} paused: ${res.error}`);
        return;
      }
      const ok = res.status !== null && res.status >= 200 && res.status < 300;
      if (ok) {
        await this.repo.settle(d.id, { status: 'succeeded' });
        return;
      }
      const isTest = JSON.parse(d.payload).type === WEBHOOK_TEST_EVENT;
      const delay = isTest ? undefined : this.config.webhooks.retrySchedule[d.attemptCount - 1];
      if (delay === undefined) {
        await this.repo.settle(d.id, { status: 'failed' });
        return;
      }
      await this.repo.settle(d.id, {
        status: 'pending',
        retryInSeconds: backoff(delay, res.retryAfterSeconds),
      });
    } catch (err) {
      // The lease runs out and another attempt follows; nothing is lost.
      if (!this.stopped) this.logger.warn(`delivery ${d.id}: ${(err as Error).message}`);
    }
  }

  private async prune(): Promise<void> {
    try {
      const n = await this.repo.prune(this.config.webhooks.logRetentionDays);
      if (n > 0) this.logger.log(`pruned ${n} old webhook deliveries`);
    } catch (err) {
      this.logger.warn(`pruning deliveries: ${(err as Error).message}`);
    }
  }
}

/** The scheduled delay with ±10 % jitter (so a failed receiver is not hit in lockstep), at least `Retry-After` up to an hour. */
export function backoff(scheduledSeconds: number, retryAfterSeconds: number | null): number {
  const jittered = scheduledSeconds * (0.9 + Math.random() * 0.2);
  const floor = retryAfterSeconds === null ? 0 : Math.min(retryAfterSeconds, 3600);
  return Math.max(jittered, floor);
}
