import { z } from 'zod';
import { StationId } from './station.js';
import { TimeZone } from './stats.js';

export const SHOW_LIMITS = {
  titleMax: 120,
  descriptionMax: 2000,
  durationMinutesMin: 5,
  /** Twelve hours: a longer "show" is a station left on, not a show. */
  durationMinutesMax: 720,
  perStation: 50,
  /** How many occurrences one show may have (a repeat's `count`, or up to its `until`). */
  occurrencesMax: 1000,
  /** Exceptions (skipped dates) per show. */
  exceptionsMax: 200,
  /** How far ahead a show may start, and how far a repeat is followed to refuse overlaps. */
  horizonDays: 3 * 366,
  /** `GET /api/stations/{id}/shows`: the widest window, its default, and the most occurrences answered. */
  windowDaysMax: 92,
  windowDaysDefault: 14,
  listMax: 500,
  /** A go-live this long before an occurrence (until its end) counts for it… */
  earlyMinutes: 15,
  /** …and an occurrence with no go-live this long after its start is missed. */
  missedAfterMinutes: 15,
} as const;

/** RFC 5545 weekday codes, Monday first. */
export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
export const Weekday = z.enum(WEEKDAYS);
export type Weekday = z.infer<typeof Weekday>;

const Instant = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time' });
const LocalDate = z.iso.date({ message: 'must be a date YYYY-MM-DD' });

/**
 * Weekly on the chosen days (in the show's time zone, at the local time of `startsAt`), skipping
 * `except` (local dates), until a date-time or for `count` occurrences, or with no end.
 */
export const ShowRepeat = z
  .strictObject({
    weekdays: z
      .array(Weekday)
      .min(1, 'choose at least one day')
      .transform((days) => WEEKDAYS.filter((d) => days.includes(d))),
    until: Instant.optional(),
    count: z.number().int().min(1).optional(),
    except: z
      .array(LocalDate)
      .max(SHOW_LIMITS.exceptionsMax)
      .transform((list) => [...new Set(list)].sort())
      .optional(),
  })
  .refine((r) => r.until === undefined || r.count === undefined, {
    message: 'give until or count, not both',
    path: ['count'],
  });
export type ShowRepeat = z.infer<typeof ShowRepeat>;

const Title = z.string().trim().min(1, 'must not be empty').max(SHOW_LIMITS.titleMax);
const Description = z.string().trim().max(SHOW_LIMITS.descriptionMax);
const Duration = z
  .number()
  .int('must be a whole number of minutes')
  .min(SHOW_LIMITS.durationMinutesMin, `must be at least ${SHOW_LIMITS.durationMinutesMin} minutes`)
  .max(
    SHOW_LIMITS.durationMinutesMax,
    `must be at most ${SHOW_LIMITS.durationMinutesMax} minutes (12 hours)`,
  );

/** `POST /api/stations/shows`: `startsAt` is the first occurrence; its local time in `timeZone` repeats. */
export const CreateShowRequest = z.strictObject({
  stationId: StationId,
  title: Title,
  description: Description.optional(),
  startsAt: Instant,
  durationMinutes: Duration,
  timeZone: TimeZone,
  repeat: ShowRepeat.optional(),
});
export type CreateShowRequest = z.infer<typeof CreateShowRequest>;

export const ShowId = z.string().uuid({ message: 'must be a UUID' });

/** `POST /api/stations/shows/update`: only the fields given change; `repeat: null` stops repeating. */
export const UpdateShowRequest = z.strictObject({
  showId: ShowId,
  title: Title.optional(),
  description: Description.optional(),
  startsAt: Instant.optional(),
  durationMinutes: Duration.optional(),
  timeZone: TimeZone.optional(),
  repeat: ShowRepeat.nullable().optional(),
});
export type UpdateShowRequest = z.infer<typeof UpdateShowRequest>;

/** `GET /api/stations/{id}/shows?from=&to=` (default: from now, {@link SHOW_LIMITS.windowDaysDefault} days). */
export const ShowsQuery = z.strictObject({
  from: Instant.optional(),
  to: Instant.optional(),
});
export type ShowsQuery = z.infer<typeof ShowsQuery>;

export interface Show {
  id: string;
  stationId: string;
  title: string;
  description: string;
  /** The first occurrence (UTC). */
  startsAt: string;
  durationMinutes: number;
  timeZone: string;
  repeat: ShowRepeat | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * `upcoming`: not started, or started under {@link SHOW_LIMITS.missedAfterMinutes} ago without a
 * go-live; `live`: the station went live for it and still is; `aired`: it went live for it;
 * `missed`: no go-live by then.
 */
export const OCCURRENCE_STATES = ['upcoming', 'live', 'aired', 'missed'] as const;
export type OccurrenceState = (typeof OCCURRENCE_STATES)[number];

export interface ShowOccurrence {
  showId: string;
  title: string;
  startsAt: string;
  endsAt: string;
  /** The occurrence's local date in the show's time zone (what `except` names). */
  localDate: string;
  state: OccurrenceState;
  /** The go-live that counted for it. */
  wentLiveAt: string | null;
}

export interface ShowsResponse {
  shows: Show[];
  /** Occurrences starting in [from, to), by start; at most {@link SHOW_LIMITS.listMax}. */
  occurrences: ShowOccurrence[];
  from: string;
  to: string;
  /** More occurrences fall in the window than were answered. */
  truncated: boolean;
}

/** The next occurrence the station has not gone live for yet (one may have just started), or null. */
export function nextShow(occurrences: ShowOccurrence[], now: number): ShowOccurrence | null {
  return occurrences.find((o) => o.state === 'upcoming' && Date.parse(o.endsAt) > now) ?? null;
}

/** "in 2 h 13 min", "in 3 d 4 h", "in 5 min", "now": how long until `startsAt`. */
export function showCountdown(startsAt: string, now: number): string {
  const minutes = Math.ceil((Date.parse(startsAt) - now) / 60_000);
  if (minutes <= 0) return 'now';
  if (minutes < 60) return `in ${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `in ${hours} h ${minutes % 60} min` : `in ${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `in ${days} d ${hours % 24} h` : `in ${days} d`;
}
