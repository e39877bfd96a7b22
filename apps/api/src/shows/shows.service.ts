import { Inject, Injectable } from '@nestjs/common';
import {
  type CreateShowRequest,
  ErrorTag,
  type OccurrenceState,
  type Show,
  SHOW_LIMITS,
  type ShowOccurrence,
  type ShowsQuery,
  type ShowsResponse,
  type UpdateShowRequest,
} from '@radiobroadcaster/contracts';
import { AppError } from '../common/app-error.js';
import { StationsService } from '../stations/stations.service.js';
import { type BroadcastRow, StatsRepository } from '../stats/stats.repository.js';
import { WebhooksService } from '../webhooks/webhooks.service.js';
import type { ShowEntity } from './show.entity.js';
import {
  DAY,
  localClock,
  localDate,
  localTime,
  MINUTE,
  occurrenceCount,
  occurrences,
  type ShowTiming,
} from './show-recurrence.js';
import { type ShowValues, ShowsRepository } from './shows.repository.js';

const MAX_DURATION = SHOW_LIMITS.durationMinutesMax * MINUTE;
/** Enough to expand any repeat over the horizon (at most seven a week). */
const HORIZON_OCCURRENCES = SHOW_LIMITS.horizonDays + 7;

const WEEKDAY_NAMES = {
  MO: 'Monday',
  TU: 'Tuesday',
  WE: 'Wednesday',
  TH: 'Thursday',
  FR: 'Friday',
  SA: 'Saturday',
  SU: 'Sunday',
} as const;

/**
 * Shows on a station's schedule: owners add, change and remove them; anyone reads the expanded
 * occurrences of a window, each with its state from the station's broadcast history.
 */
@Injectable()
export class ShowsService {
  constructor(
    @Inject(ShowsRepository) private readonly repo: ShowsRepository,
    @Inject(StationsService) private readonly stations: StationsService,
    @Inject(StatsRepository) private readonly stats: StatsRepository,
    @Inject(WebhooksService) private readonly webhooks: WebhooksService,
  ) {}

  // ---- owner ----

  async create(userId: string, req: CreateShowRequest): Promise<Show> {
    await this.stations.owned(req.stationId, userId);
    if ((await this.repo.countByStation(req.stationId)) >= SHOW_LIMITS.perStation) {
      throw AppError.conflict(`A station can have at most ${SHOW_LIMITS.perStation} shows`);
    }
    const values: ShowValues = {
      title: req.title,
      description: req.description ?? '',
      startsAt: new Date(req.startsAt),
      durationMinutes: req.durationMinutes,
      timeZone: req.timeZone,
      repeat: req.repeat ?? null,
    };
    this.checkTiming(values, true);
    const show = await this.repo.withStationLock(req.stationId, async (tx) => {
      await this.checkOverlap(tx, req.stationId, values, null);
      return view(await tx.insert(req.stationId, values));
    });
    this.webhooks
      .emit(req.stationId, 'show.scheduled', { show })
      .catch(() => undefined /* queued or not, the show is scheduled */);
    return show;
  }

  async update(userId: string, req: UpdateShowRequest): Promise<Show> {
    const show = await this.owned(userId, req.showId);
    const values: ShowValues = {
      title: req.title ?? show.title,
      description: req.description ?? show.description,
      startsAt: req.startsAt !== undefined ? new Date(req.startsAt) : show.startsAt,
      durationMinutes: req.durationMinutes ?? show.durationMinutes,
      timeZone: req.timeZone ?? show.timeZone,
      repeat: req.repeat === undefined ? show.repeat : req.repeat,
    };
    // A running series keeps its first date; a new first date must be ahead.
    this.checkTiming(values, values.startsAt.getTime() !== show.startsAt.getTime());
    return this.repo.withStationLock(show.stationId, async (tx) => {
      await this.checkOverlap(tx, show.stationId, values, show.id);
      return view(await tx.update(show.id, values));
    });
  }

  async remove(userId: string, showId: string): Promise<void> {
    await this.owned(userId, showId);
    await this.repo.delete(showId);
  }

  private async owned(userId: string, showId: string): Promise<ShowEntity> {
    return this.stations.ownedItem(await this.repo.findById(showId), 'Show', userId);
  }

  /** 400s a person can act on: the first date, the repeat's days, its end, its size. */
  private checkTiming(show: ShowTiming, newStart: boolean): void {
    const now = Date.now();
    const start = show.startsAt.getTime();
    if (newStart && start <= now) throw invalid('startsAt', 'must be in the future');
    if (newStart && start > now + SHOW_LIMITS.horizonDays * DAY) {
      throw invalid('startsAt', `must be within ${SHOW_LIMITS.horizonDays} days`);
    }
    const repeat = show.repeat;
    if (!repeat) return;
    const local = localTime(show.timeZone, start);
    if (!repeat.weekdays.includes(local.weekday)) {
      throw invalid(
        'repeat.weekdays',
        `must include the day of the first show (${WEEKDAY_NAMES[local.weekday]} in ${show.timeZone})`,
      );
    }
    if (repeat.until !== undefined && Date.parse(repeat.until) < start) {
      throw invalid('repeat.until', 'must not be before startsAt');
    }
    if (occurrenceCount(show, SHOW_LIMITS.occurrencesMax) > SHOW_LIMITS.occurrencesMax) {
      // An open repeat is fine: it is only ever expanded over a bounded window.
      if (repeat.count !== undefined || repeat.until !== undefined) {
        throw invalid(
          repeat.count !== undefined ? 'repeat.count' : 'repeat.until',
          `a show can have at most ${SHOW_LIMITS.occurrencesMax} occurrences`,
        );
      }
    }
  }

  /**
   * 409 `SHOW_OVERLAP` when an occurrence of `show` (from now over the horizon) overlaps one of
   * another show of the station, naming the first clash in the new show's time zone.
   */
  private async checkOverlap(
    tx: ShowsRepository,
    stationId: string,
    show: ShowTiming & { title: string },
    exceptId: string | null,
  ): Promise<void> {
    const from = Date.now() - MAX_DURATION;
    const to = Date.now() + SHOW_LIMITS.horizonDays * DAY;
    const mine = spans(show, from, to);
    if (mine.length === 0) return;
    const others = (await tx.listByStation(stationId))
      .filter((s) => s.id !== exceptId)
      .flatMap((s) => spans(s, from, to).map((span) => ({ ...span, title: s.title })))
      .sort((a, b) => a.start - b.start);
    let j = 0;
    for (const a of mine) {
      // `others` by start: skip those that ended before this one starts.
      while (j < others.length && others[j]!.end <= a.start) j++;
      for (let k = j; k < others.length && others[k]!.start < a.end; k++) {
        const b = others[k]!;
        if (b.end > a.start) {
          const l = localTime(show.timeZone, b.start);
          throw new AppError(
            ErrorTag.ShowOverlap,
            `This overlaps "${b.title}" on ${localDate(l)} at ${localClock(l)} (${show.timeZone})`,
          );
        }
      }
    }
  }

  // ---- everyone ----

  /** Occurrences overlapping [from, to) (default: now and the next days), with their states. */
  async feed(stationId: string, query: ShowsQuery): Promise<ShowsResponse> {
    await this.stations.entity(stationId);
    const now = Date.now();
    const from = query.from !== undefined ? Date.parse(query.from) : now;
    const to =
      query.to !== undefined ? Date.parse(query.to) : from + SHOW_LIMITS.windowDaysDefault * DAY;
    if (to <= from) throw invalid('to', 'must be after from');
    if (to - from > SHOW_LIMITS.windowDaysMax * DAY) {
      throw invalid('to', `the window can be at most ${SHOW_LIMITS.windowDaysMax} days`);
    }
    const shows = await this.repo.listByStation(stationId);
    const all = shows
      .flatMap((s) =>
        occurrences(s, from - s.durationMinutes * MINUTE, to, SHOW_LIMITS.listMax).map((o) => ({
          show: s,
          start: o.start,
          end: o.start + s.durationMinutes * MINUTE,
          localDate: o.localDate,
        })),
      )
      .filter((o) => o.end > from)
      .sort((a, b) => a.start - b.start);
    const listed = all.slice(0, SHOW_LIMITS.listMax);
    const goLives = listed.length
      ? await this.stats.broadcastsBetween(
          stationId,
          new Date(listed[0]!.start - SHOW_LIMITS.earlyMinutes * MINUTE),
          new Date(Math.min(now, listed[listed.length - 1]!.end)),
          5000,
        )
      : [];
    return {
      shows: shows.map(view),
      occurrences: listed.map((o): ShowOccurrence => {
        const { state, wentLiveAt } = stateOf(o.start, o.end, goLives, now);
        return {
          showId: o.show.id,
          title: o.show.title,
          startsAt: new Date(o.start).toISOString(),
          endsAt: new Date(o.end).toISOString(),
          localDate: o.localDate,
          state,
          wentLiveAt,
        };
      }),
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      truncated: all.length > listed.length,
    };
  }

  /** The shows of the station at `username/slug` (404 when there is none), for its calendar. */
  async byAddress(username: string, slug: string) {
    const station = await this.stations.byAddress(username, slug);
    if (!station) throw AppError.stationNotFound();
    return { station, shows: await this.repo.listByStation(station.id) };
  }
}

/**
 * A go-live (a broadcast's start) from {@link SHOW_LIMITS.earlyMinutes} before an occurrence until
 * its end counts for it, and so does a broadcast already on air when it starts; with neither
 * {@link SHOW_LIMITS.missedAfterMinutes} after its start, it is missed.
 */
export function stateOf(
  start: number,
  end: number,
  broadcasts: Pick<BroadcastRow, 'startedAt' | 'endedAt'>[],
  now: number,
): { state: OccurrenceState; wentLiveAt: string | null } {
  const early = start - SHOW_LIMITS.earlyMinutes * MINUTE;
  const counted = broadcasts
    .filter((b) => {
      const t = b.startedAt.getTime();
      const onAirAtStart =
        t < early && start <= now && (b.endedAt === null || b.endedAt.getTime() > start);
      return (t >= early && t < end) || onAirAtStart;
    })
    .sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime())[0];
  if (counted) {
    const live = now < end && counted.endedAt === null;
    return { state: live ? 'live' : 'aired', wentLiveAt: counted.startedAt.toISOString() };
  }
  if (now >= start + SHOW_LIMITS.missedAfterMinutes * MINUTE) {
    return { state: 'missed', wentLiveAt: null };
  }
  return { state: 'upcoming', wentLiveAt: null };
}

function spans(show: ShowTiming, from: number, to: number) {
  const length = show.durationMinutes * MINUTE;
  return occurrences(show, from, to, HORIZON_OCCURRENCES).map((o) => ({
    start: o.start,
    end: o.start + length,
  }));
}

function invalid(path: string, message: string): AppError {
  return AppError.validation(`${path} ${message}`, [{ path, message }]);
}

export function view(s: ShowEntity): Show {
  return {
    id: s.id,
    stationId: s.stationId,
    title: s.title,
    description: s.description,
    startsAt: s.startsAt.toISOString(),
    durationMinutes: s.durationMinutes,
    timeZone: s.timeZone,
    repeat: s.repeat,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}
