import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { FOLLOW_LIMITS, SHOW_LIMITS } from '@radiobroadcaster/contracts';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { EventBus } from '../events/event-bus.js';
import { occurrences } from '../shows/show-recurrence.js';
import { ShowsService } from '../shows/shows.service.js';
import { StationsService } from '../stations/stations.service.js';
import { WebhooksService } from '../webhooks/webhooks.service.js';
import { type NoticeKind, type NoticePayload, FollowRepository } from './follow.repository.js';
import { NotificationDispatcher } from './notification-dispatcher.js';

const MINUTE = 60_000;
/** How often every node looks for show reminders that are due. */
const REMINDER_TICK_MS = 5_000;
/** A reminder whose moment passed longer ago than this (the cluster was down) is not sent late. */
const REMINDER_LATE_MS = 5 * MINUTE;

/**
 * Decides the notices: one per go-live (the node that published it decides, under the station's
 * row lock, with flap suppression) and one per show reminder (whichever node claims it first),
 * then queues a job per follower and channel for the dispatcher.
 */
@Injectable()
export class FollowNotifier implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Follow');
  private readonly off: (() => void)[] = [];
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;

  constructor(
    @Inject(FollowRepository) private readonly repo: FollowRepository,
    @Inject(StationsService) private readonly stations: StationsService,
    @Inject(ShowsService) private readonly shows: ShowsService,
    @Inject(WebhooksService) private readonly webhooks: WebhooksService,
    @Inject(NotificationDispatcher) private readonly dispatcher: NotificationDispatcher,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const offAir = (e: { stationId: string }, { local }: { local: boolean }) => {
      if (local) void this.repo.markOffline(e.stationId).catch(() => undefined);
    };
    this.off.push(
      this.bus.subscribe('station.live', (e, { local }) => {
        if (local) void this.wentLive(e.stationId);
      }),
      this.bus.subscribe('station.offline', offAir),
      this.bus.subscribe('station.ended', offAir),
      // A publisher that dropped and comes back is no new go-live (within the flap window).
      this.bus.subscribe('station.reconnecting', offAir),
    );
    this.timer = setInterval(() => void this.tick(), REMINDER_TICK_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    for (const off of this.off) off();
    if (this.timer) clearInterval(this.timer);
  }

  /** Queues the go-live notice, unless the station flapped. */
  async wentLive(stationId: string): Promise<number> {
    try {
      if (!(await this.repo.claimLiveNotice(stationId, FOLLOW_LIMITS.flapMinutes * MINUTE))) {
        this.logger.log(`station ${stationId} live again within the flap window: no notice`);
        return 0;
      }
      const payload = await this.payload(stationId, await this.currentShowTitle(stationId));
      const n = await this.repo.enqueue(stationId, 'live', payload);
      if (n) this.dispatcher.nudge();
      return n;
    } catch (err) {
      this.logger.warn(`go-live notice for ${stationId}: ${(err as Error).message}`);
      return 0;
    }
  }

  /** The show the go-live counts for, if any (from 15 minutes before an occurrence until its end). */
  private async currentShowTitle(stationId: string): Promise<string | undefined> {
    const now = Date.now();
    const { occurrences: list } = await this.shows.feed(stationId, {
      from: new Date(now).toISOString(),
      to: new Date(now + SHOW_LIMITS.earlyMinutes * MINUTE + 1).toISOString(),
    });
    return list.find((o) => Date.parse(o.startsAt) - SHOW_LIMITS.earlyMinutes * MINUTE <= now)
      ?.title;
  }

  private async payload(stationId: string, showTitle?: string, startsAt?: number) {
    const s = await this.stations.entity(stationId);
    const p: NoticePayload = {
      stationId,
      stationName: s.name,
      broadcaster: s.broadcaster.username,
      url: `${this.config.publicUrl}/${s.broadcaster.username}/${s.slug}`,
    };
    if (showTitle) p.showTitle = showTitle;
    if (startsAt !== undefined) p.startsAt = new Date(startsAt).toISOString();
    return p;
  }

  /** Show reminders and `show.starting` whose moment has come (each claimed once, cluster-wide). */
  async tick(now = Date.now()): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const lead = FOLLOW_LIMITS.reminderMinutes * MINUTE;
      const from = now - REMINDER_LATE_MS;
      const shows = await this.repo.showsStartingBetween(
        new Date(from),
        new Date(now + lead + MINUTE),
      );
      for (const show of shows) {
        for (const o of occurrences(show, from, now + lead + MINUTE, 20)) {
          const key = `${show.id}@${new Date(o.start).toISOString()}`;
          if (o.start - lead <= now && o.start - lead > from)
            await this.remind(show.stationId, 'before', key, show.title, o.start);
          if (o.start <= now && o.start > from)
            await this.remind(show.stationId, 'start', key, show.title, o.start);
        }
      }
    } catch (err) {
      this.logger.warn(`show reminders: ${(err as Error).message}`);
    } finally {
      this.ticking = false;
    }
  }

  private async remind(
    stationId: string,
    kind: Exclude<NoticeKind, 'live'>,
    key: string,
    title: string,
    start: number,
  ): Promise<void> {
    if (!(await this.repo.claimNotice(stationId, kind, key))) return;
    const payload = await this.payload(stationId, title, start);
    let exceptOnLive = false;
    if (kind === 'start') {
      const showId = key.slice(0, key.indexOf('@'));
      await this.webhooks
        .emit(stationId, 'show.starting', {
          show: { id: showId, title, startsAt: payload.startsAt },
        })
        .catch((err: Error) => this.logger.warn(`show.starting: ${err.message}`));
      // Already on air: those told of the go-live need no "starting now" as well.
      exceptOnLive = (await this.stations.entity(stationId)).status === 'live';
    }
    if (await this.repo.enqueue(stationId, kind, payload, exceptOnLive)) this.dispatcher.nudge();
  }
}
