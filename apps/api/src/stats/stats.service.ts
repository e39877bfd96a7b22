import { Inject, Injectable } from '@nestjs/common';
import {
  type BroadcastSummary,
  type ClientKind,
  type ListeningSource,
  type ListeningTransport,
  type StationStats,
  type StatsInterval,
  type StatsPoint,
  type StatsQuery,
  STATS_LIMITS,
} from '@radiobroadcaster/contracts';
import { AppError } from '../common/app-error.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { StationsService } from '../stations/stations.service.js';
import { DAY, floor, histogramMedian, HOUR, mergeHistograms, MINUTE } from './stats-math.js';
import { type BroadcastRow, StatsRepository } from './stats.repository.js';

const STEP: Record<StatsInterval, number> = { minute: MINUTE, hour: HOUR, day: DAY };

/** Reads the rollups into the stats page's figures (owner only). */
@Injectable()
export class StatsService {
  constructor(
    @Inject(StatsRepository) private readonly repo: StatsRepository,
    @Inject(StationsService) private readonly stations: StationsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async stats(userId: string, stationId: string, q: StatsQuery): Promise<StationStats> {
    await this.stations.owned(stationId, userId);
    const now = await this.repo.now();
    let broadcast: BroadcastRow | null = null;
    let from: Date;
    let to: Date;
    if (q.broadcastId) {
      broadcast = await this.repo.findBroadcast(q.broadcastId);
      if (!broadcast || broadcast.stationId !== stationId)
        throw AppError.notFound('Broadcast not found');
      from = broadcast.startedAt;
      to = broadcast.endedAt ?? now;
    } else {
      to = q.to ?? now;
      from = q.from ?? new Date(to.getTime() - 7 * DAY);
    }
    if (to.getTime() - from.getTime() > STATS_LIMITS.maxRangeDays * DAY) {
      throw rangeError('to', `the range can span at most ${STATS_LIMITS.maxRangeDays} days`);
    }
    const tz = q.tz ?? 'UTC';
    const rawFrom = now.getTime() - this.config.stats.retentionDays * DAY;
    let interval = q.interval ?? autoInterval(to.getTime() - from.getTime());
    // Minute rows are kept as long as raw sessions; older ranges fall back to hours.
    if (interval === 'minute' && from.getTime() < rawFrom) interval = 'hour';
    const step = STEP[interval];
    const start = interval === 'day' ? startOfDay(from, tz) : floor(from.getTime(), step);
    const end =
      interval === 'day'
        ? startOfDay(new Date(Math.ceil(to.getTime() / HOUR) * HOUR + DAY - 1), tz)
        : Math.ceil(to.getTime() / step) * step;
    const points = Math.round((end - start) / step);
    if (points > STATS_LIMITS.maxPoints) {
      throw rangeError(
        'interval',
        `${points} ${interval}s is too many points (at most ${STATS_LIMITS.maxPoints}): choose a longer interval`,
      );
    }
    const fromD = new Date(start);
    const toD = new Date(end);

    const rows = await this.repo.series(stationId, interval, fromD, toD, tz);
    const byT = new Map(rows.map((r) => [r.t.getTime(), r]));
    const series: StatsPoint[] = [];
    for (let t = start; t < end; t = nextStep(t, interval, tz)) {
      const r = byT.get(t);
      series.push({
        t: new Date(t).toISOString(),
        peakListeners: r?.peak ?? 0,
        listeningHours: round((r?.listenerSeconds ?? 0) / 3600),
        sessions: r?.sessions ?? 0,
      });
    }
    let peak = 0;
    let peakAt: string | null = null;
    for (const r of rows)
      if (r.peak > peak) {
        peak = r.peak;
        peakAt = r.t.toISOString();
      }
    const totalSeconds = rows.reduce((s, r) => s + r.listenerSeconds, 0);
    const totalSessions = rows.reduce((s, r) => s + r.sessions, 0);

    const exact = start >= rawFrom;
    const breakdown = exact
      ? await this.rawBreakdown(stationId, fromD, toD, broadcast?.id ?? null)
      : await this.rollupBreakdown(stationId, fromD, toD);
    const broadcasts = broadcast
      ? [summary(broadcast)]
      : (await this.repo.broadcastsBetween(stationId, fromD, toD)).map(summary);

    return {
      stationId,
      from: fromD.toISOString(),
      to: toD.toISOString(),
      interval,
      tz,
      broadcastId: broadcast?.id ?? null,
      peakListeners: peak,
      peakAt,
      listeningHours: round(totalSeconds / 3600),
      sessions: totalSessions,
      medianSessionSeconds:
        breakdown.median === null ? null : Math.round(breakdown.median * 10) / 10,
      byDomain: breakdown.byDomain,
      byTransport: breakdown.byTransport,
      byClient: breakdown.byClient,
      series,
      broadcasts,
    };
  }

  private async rawBreakdown(stationId: string, from: Date, to: Date, broadcastId: string | null) {
    const rows = await this.repo.rawDims(stationId, from, to, broadcastId);
    const sum = <K extends string>(key: (r: (typeof rows)[0]) => K) => {
      const m = new Map<K, { sessions: number; listenerSeconds: number }>();
      for (const r of rows) {
        const k = key(r);
        const acc = m.get(k) ?? { sessions: 0, listenerSeconds: 0 };
        acc.sessions += r.sessions;
        acc.listenerSeconds += r.listenerSeconds;
        m.set(k, acc);
      }
      return m;
    };
    return {
      median: await this.repo.rawMedian(stationId, from, to, broadcastId),
      ...shape(
        sum((r) => `${r.source}:${r.domain ?? ''}`),
        sum((r) => r.transport),
        sum((r) => r.client),
      ),
    };
  }

  private async rollupBreakdown(stationId: string, from: Date, to: Date) {
    const rows = await this.repo.hourDims(stationId, from, to);
    const pick = (dimension: string) =>
      new Map(
        rows
          .filter((r) => r.dimension === dimension)
          .map((r) => [r.value, { sessions: r.sessions, listenerSeconds: r.listenerSeconds }]),
      );
    return {
      median: histogramMedian(mergeHistograms(await this.repo.hourHistograms(stationId, from, to))),
      ...shape(pick('where'), pick('transport'), pick('client')),
    };
  }
}

type Totals = Map<string, { sessions: number; listenerSeconds: number }>;

function shape(where: Totals, transport: Totals, client: Totals) {
  const list = <T>(m: Totals, f: (k: string) => T) =>
    [...m.entries()]
      .map(([k, v]) => ({
        ...f(k),
        sessions: v.sessions,
        listeningHours: round(v.listenerSeconds / 3600),
      }))
      .sort((a, b) => b.listeningHours - a.listeningHours || b.sessions - a.sessions);
  return {
    byDomain: list(where, (k) => {
      const i = k.indexOf(':');
      return { source: k.slice(0, i) as ListeningSource, domain: k.slice(i + 1) || null };
    }),
    byTransport: list(transport, (k) => ({ transport: k as ListeningTransport })),
    byClient: list(client, (k) => ({ client: k as ClientKind })),
  };
}

function summary(b: BroadcastRow): BroadcastSummary {
  return {
    id: b.id,
    startedAt: b.startedAt.toISOString(),
    endedAt: b.endedAt?.toISOString() ?? null,
    peakListeners: b.peakListeners,
    listeningHours: round(b.listenerSeconds / 3600),
    sessions: b.sessions,
    medianSessionSeconds:
      b.medianSessionSeconds === null ? null : Math.round(b.medianSessionSeconds),
  };
}

/** About 50–400 points whatever the range. */
function autoInterval(spanMs: number): StatsInterval {
  if (spanMs <= 6 * HOUR) return 'minute';
  if (spanMs <= 14 * DAY) return 'hour';
  return 'day';
}

/** Midnight of the day holding `d`, in `tz` (hour-aligned zones). */
function startOfDay(d: Date, tz: string): number {
  const hour = floor(d.getTime(), HOUR);
  for (let t = hour; t > hour - 2 * DAY; t -= HOUR) {
    if (hourIn(t, tz) === 0) return t;
  }
  return floor(d.getTime(), DAY);
}

function hourIn(t: number, tz: string): number {
  return Number(
    new Intl.DateTimeFormat('en-GB', { timeZone: tz, hour: '2-digit', hourCycle: 'h23' }).format(t),
  );
}

/** The next interval start; days follow the zone's midnights (23 or 25 hours across DST). */
function nextStep(t: number, interval: StatsInterval, tz: string): number {
  if (interval !== 'day') return t + STEP[interval];
  return startOfDay(new Date(t + DAY + 2 * HOUR), tz);
}

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

function rangeError(path: string, message: string): AppError {
  return AppError.validation(`Invalid request: ${path}: ${message}`, [{ path, message }]);
}
