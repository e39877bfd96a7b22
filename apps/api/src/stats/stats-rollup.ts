import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { bucketize, DAY, floor, histogramOf, HOUR, median, MINUTE } from './stats-math.js';
import { ListeningSessions } from './listening-sessions.service.js';
import {
  type BroadcastRow,
  type DimRow,
  type HourRow,
  type MinuteRow,
  type SessionRow,
  StatsRepository,
} from './stats.repository.js';

/** Minutes recomputed on every run: sessions closed late (a dead node's) land inside it. */
const WINDOW_MINUTES = 4;

/**
 * Turns raw listening sessions into per-minute and per-hour rollups. Every API node runs it;
 * a PostgreSQL advisory lock lets one node at a time do the work, and each run recomputes the
 * recent window from the sessions (idempotent), so the figures are the same whichever node
 * counted which listener.
 */
@Injectable()
export class StatsRollup implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Stats');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private lastPrune = 0;

  constructor(
    @Inject(StatsRepository) private readonly repo: StatsRepository,
    @Inject(ListeningSessions) private readonly sessions: ListeningSessions,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.run(), this.config.stats.rollupIntervalMs);
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** One pass (also called by tests to see figures at once). */
  run(): Promise<void> {
    this.running ??= this.pass()
      .catch((err: Error) => this.logger.warn(`rollup: ${err.message}`))
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async pass(): Promise<void> {
    await this.sessions.beat();
    await this.repo.exclusively('rb:stats-rollup', async (m) => {
      await this.repo.closeSessionsOfDeadNodes(m, this.sessions.staleAfterSeconds);
      const now = (await this.repo.now(m)).getTime();
      await this.recompute(m, floor(now, MINUTE) - (WINDOW_MINUTES - 1) * MINUTE, now, now);
      await this.summarizeBroadcasts(m, await this.repo.recentBroadcasts(m), now);
      if (now - this.lastPrune > HOUR) {
        this.lastPrune = now;
        await this.repo.prune(m, this.config.stats.retentionDays);
      }
    });
  }

  /**
   * Rebuilds the minute rows of [from, to] and the hour rows around them from the raw sessions
   * (also a backfill after an outage: every figure is derived, nothing is counted twice).
   */
  async backfill(from: Date, to: Date): Promise<void> {
    await this.repo.exclusively('rb:stats-rollup', async (m) => {
      const now = (await this.repo.now(m)).getTime();
      // Before the retention there are no raw sessions left to rebuild from.
      const start = Math.max(from.getTime(), now - this.config.stats.retentionDays * DAY + HOUR);
      for (let t = floor(start, HOUR); t < to.getTime(); t += 24 * HOUR)
        await this.recompute(m, t, Math.min(t + 24 * HOUR, to.getTime()), now);
      await this.summarizeBroadcasts(m, await this.repo.broadcastsOverlapping(m, from, to), now);
    });
  }

  private async recompute(
    m: EntityManager,
    fromMs: number,
    toMs: number,
    now: number,
  ): Promise<void> {
    const minuteFrom = floor(fromMs, MINUTE);
    const minuteTo = floor(toMs, MINUTE) + MINUTE;
    const hourFrom = floor(minuteFrom, HOUR);
    const hourTo = floor(toMs, HOUR) + HOUR;
    const rows = await this.repo.sessionsOverlapping(m, new Date(hourFrom), new Date(hourTo));
    const byStation = groupBy(rows, (r) => r.stationId);
    const minutes: MinuteRow[] = [];
    const hours: HourRow[] = [];
    const dims: DimRow[] = [];
    for (const [stationId, list] of byStation) {
      const perMinute = bucketize(list, hourFrom, hourTo, MINUTE, now);
      for (const b of perMinute) {
        if (b.t >= minuteFrom && b.t < minuteTo && (b.peak || b.listenerSeconds || b.started))
          minutes.push({
            stationId,
            t: new Date(b.t),
            peak: b.peak,
            listenerSeconds: b.listenerSeconds,
            sessions: b.started,
          });
      }
      for (let h = hourFrom; h < hourTo; h += HOUR) {
        const inHour = perMinute.filter((b) => b.t >= h && b.t < h + HOUR);
        const row: HourRow = {
          stationId,
          t: new Date(h),
          peak: Math.max(0, ...inHour.map((b) => b.peak)),
          listenerSeconds: inHour.reduce((s, b) => s + b.listenerSeconds, 0),
          sessions: inHour.reduce((s, b) => s + b.started, 0),
          histogram: histogramOf(inHour.flatMap((b) => b.endedLengths)),
        };
        if (row.peak || row.listenerSeconds || row.sessions) hours.push(row);
      }
      dims.push(...dimensionRows(stationId, list, hourFrom, hourTo, now));
    }
    await this.repo.replaceMinutes(m, new Date(minuteFrom), new Date(minuteTo), minutes);
    await this.repo.replaceHours(m, new Date(hourFrom), new Date(hourTo), hours, dims);
  }

  /** Keeps each broadcast's figures on its row, where they outlive the raw sessions. */
  private async summarizeBroadcasts(
    m: EntityManager,
    list: BroadcastRow[],
    now: number,
  ): Promise<void> {
    for (const b of list) {
      const end = b.endedAt?.getTime() ?? now;
      const rows = (await this.repo.sessionsOverlapping(m, b.startedAt, new Date(end + 1))).filter(
        (r) => r.broadcastId === b.id,
      );
      const [whole] = bucketize(
        rows,
        b.startedAt.getTime(),
        end + 1,
        end + 1 - b.startedAt.getTime(),
        now,
      );
      const lengths = rows.filter((r) => r.end !== null).map((r) => (r.end! - r.start) / 1000);
      await this.repo.saveBroadcastSummary(m, b.id, {
        peakListeners: whole?.peak ?? 0,
        listenerSeconds: whole?.listenerSeconds ?? 0,
        sessions: rows.length,
        medianSessionSeconds: median(lengths),
      });
    }
  }
}

function dimensionRows(
  stationId: string,
  list: SessionRow[],
  from: number,
  to: number,
  now: number,
): DimRow[] {
  const out: DimRow[] = [];
  const keys: [DimRow['dimension'], (r: SessionRow) => string][] = [
    ['transport', (r) => r.transport],
    ['where', (r) => `${r.source}:${r.domain ?? ''}`],
    ['client', (r) => r.client],
  ];
  for (const [dimension, key] of keys) {
    for (const [value, group] of groupBy(list, key)) {
      for (const b of bucketize(group, from, to, HOUR, now)) {
        if (b.started || b.listenerSeconds)
          out.push({
            stationId,
            t: new Date(b.t),
            dimension,
            value,
            sessions: b.started,
            listenerSeconds: b.listenerSeconds,
          });
      }
    }
  }
  return out;
}

function groupBy<T>(list: T[], key: (t: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of list) {
    const k = key(item);
    const group = map.get(k);
    if (group) group.push(item);
    else map.set(k, [item]);
  }
  return map;
}
