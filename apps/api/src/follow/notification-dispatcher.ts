import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { AuthMailer, redactAddress } from '../auth/auth.mailer.js';
import { FollowLinks } from './follow-links.js';
import { noticeMail } from './follow-mail.js';
import { FollowRepository, type NotificationJob } from './follow.repository.js';
import { PushNotifier, PushRetry } from './push-notifier.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';

const POLL_MS = 1000;
const BATCH = 20;
/** A node that dies mid-send hands its jobs on after this. */
const LEASE_MS = 60_000;
const MAX_ATTEMPTS = 5;
const PRUNE_EVERY_MS = 3_600_000;
const KEEP_MS = 7 * 86_400_000;

/** An SMTP answer that says the address will never take mail (a hard bounce). */
export function isHardBounce(err: unknown): boolean {
  const e = err as { responseCode?: number; code?: string };
  return (
    typeof e.responseCode === 'number' &&
    e.responseCode >= 550 &&
    e.responseCode <= 553 &&
    e.code === 'EENVELOPE'
  );
}

/**
 * Runs on every API node: leases due notification jobs from PostgreSQL and sends them (mail through
 * the product's mailer, Web Push through the push notifier); each job is sent by one node.
 */
@Injectable()
export class NotificationDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Notifications');
  private readonly links: FollowLinks;
  private timer: NodeJS.Timeout | null = null;
  private pruneTimer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    @Inject(FollowRepository) private readonly repo: FollowRepository,
    @Inject(AuthMailer) private readonly mailer: AuthMailer,
    @Inject(PushNotifier) private readonly push: PushNotifier,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.links = new FollowLinks(config.authSecret, config.publicUrl);
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.nudge(), POLL_MS);
    this.timer.unref();
    this.pruneTimer = setInterval(
      () => void this.repo.pruneJobs(KEEP_MS).catch(() => undefined),
      PRUNE_EVERY_MS,
    );
    this.pruneTimer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    await this.running;
  }

  nudge(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.run().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.nudge();
      }
    });
  }

  private async run(): Promise<void> {
    try {
      for (;;) {
        if (this.stopped) return;
        const jobs = await this.repo.claimJobs(BATCH, LEASE_MS);
        if (jobs.length === 0) return;
        await Promise.all(jobs.map((j) => this.send(j)));
      }
    } catch (err) {
      if (!this.stopped) this.logger.warn(`notification queue: ${(err as Error).message}`);
    }
  }

  private async send(job: NotificationJob): Promise<void> {
    const to = await this.repo.recipient(job.followId);
    if (!to) return this.repo.finishJob(job.id, 'dropped', 'no longer following');
    try {
      if (job.channel === 'email') {
        if (!to.address) return this.repo.finishJob(job.id, 'dropped', 'no address');
        await this.mailer.send(
          noticeMail(to.address, job.kind, job.payload, this.links.unsubscribeUrl(job.followId)),
        );
        return this.repo.finishJob(job.id, 'sent');
      }
      if (!to.userId) return this.repo.finishJob(job.id, 'dropped', 'guests get no push');
      const sent = await this.push.notify(to.userId, job.kind, job.payload);
      return this.repo.finishJob(
        job.id,
        sent > 0 ? 'sent' : 'dropped',
        sent > 0 ? undefined : 'no push subscription took it',
      );
    } catch (err) {
      const message = (err as Error).message;
      if (job.channel === 'email' && isHardBounce(err) && to.address) {
        const n = await this.repo.stopMailTo(to.address);
        this.logger.warn(
          `mail to ${redactAddress(to.address)} bounced (${message}): e-mail off for ${n} follows`,
        );
        return this.repo.finishJob(job.id, 'dropped', `hard bounce: ${message}`);
      }
      if (job.channel === 'push' && !(err instanceof PushRetry))
        return this.repo.finishJob(job.id, 'failed', message);
      if (job.attempts >= MAX_ATTEMPTS) return this.repo.finishJob(job.id, 'failed', message);
      await this.repo.retryJob(job.id, 15_000 * 2 ** job.attempts, message);
    }
  }
}
