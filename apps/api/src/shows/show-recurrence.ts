import { WEEKDAYS, type ShowRepeat, type Weekday } from '@radiobroadcaster/contracts';
import rrule from 'rrule';

const { RRule } = rrule;

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** More than any zone's offset from UTC (+14 h, −12 h): the margin of a local-time window. */
const ZONE_MARGIN = DAY;

/** What a recurrence needs of a show. */
export interface ShowTiming {
  startsAt: Date;
  durationMinutes: number;
  timeZone: string;
  repeat: ShowRepeat | null;
}

/** A wall-clock date and time in some zone. */
export interface LocalTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: Weekday;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function format(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
    formats.set(timeZone, f);
  }
  return f;
}

/** The wall clock in `timeZone` at the instant `t`. */
export function localTime(timeZone: string, t: number): LocalTime {
  const parts: Record<string, string> = {};
  for (const p of format(timeZone).formatToParts(t)) parts[p.type] = p.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: parts.weekday!.slice(0, 2).toUpperCase() as Weekday,
  };
}

/** `YYYY-MM-DD` of a local time. */
export function localDate(l: Pick<LocalTime, 'year' | 'month' | 'day'>): string {
  return `${l.year}-${pad(l.month)}-${pad(l.day)}`;
}

/** `HH:MM` of a local time. */
export function localClock(l: Pick<LocalTime, 'hour' | 'minute'>): string {
  return `${pad(l.hour)}:${pad(l.minute)}`;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The wall clock as if it were UTC: how rrule's "floating" dates carry a local time. */
function floating(l: LocalTime): number {
  return Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second);
}

/** `timeZone`'s offset from UTC at the instant `t`, in ms. */
function offset(timeZone: string, t: number): number {
  return floating(localTime(timeZone, t)) - Math.floor(t / 1000) * 1000;
}

/**
 * The instant of a wall-clock time in `timeZone` (`wall` as floating ms). A time that a spring
 * change skips is moved forward by the gap (02:30 → 03:30); one that an autumn change repeats is
 * the first of the two.
 */
export function zonedInstant(timeZone: string, wall: number): number {
  const guess = wall - offset(timeZone, wall);
  const before = wall - offset(timeZone, guess - 3 * 3_600_000);
  const after = wall - offset(timeZone, guess + 3 * 3_600_000);
  // Either offset may be the one in force at the wall time; prefer the earlier real instant.
  for (const t of [Math.min(before, after), Math.max(before, after)]) {
    if (floating(localTime(timeZone, t)) === wall) return t;
  }
  // In a spring gap: the offset before the change puts it after the gap.
  return before;
}

const RRULE_DAYS = [RRule.MO, RRule.TU, RRule.WE, RRule.TH, RRule.FR, RRule.SA, RRule.SU];

/** The weekly rule in floating local time (dtstart = the first occurrence's wall clock). */
function weeklyRule(show: ShowTiming, repeat: ShowRepeat) {
  const start = localTime(show.timeZone, show.startsAt.getTime());
  return new RRule({
    freq: RRule.WEEKLY,
    wkst: RRule.MO,
    dtstart: new Date(floating(start)),
    byweekday: repeat.weekdays.map((d) => RRULE_DAYS[WEEKDAYS.indexOf(d)]!),
    ...(repeat.count !== undefined ? { count: repeat.count } : {}),
    ...(repeat.until !== undefined
      ? {
          until: new Date(floating(localTime(show.timeZone, Date.parse(repeat.until)))),
        }
      : {}),
  });
}

/** One occurrence: its real start and its local date. */
export interface Occurrence {
  start: number;
  localDate: string;
}

/**
 * Occurrences starting in [from, to), in order, at most `limit` (+1 tells the caller there are
 * more): each is the show's local start time on its local date, whatever the zone's offset then.
 */
export function occurrences(
  show: ShowTiming,
  from: number,
  to: number,
  limit: number,
): Occurrence[] {
  const first = show.startsAt.getTime();
  if (!show.repeat) {
    return first >= from && first < to
      ? [{ start: first, localDate: localDate(localTime(show.timeZone, first)) }]
      : [];
  }
  const except = new Set(show.repeat.except ?? []);
  const out: Occurrence[] = [];
  weeklyRule(show, show.repeat).between(
    new Date(Math.max(from, first) - ZONE_MARGIN),
    new Date(to + ZONE_MARGIN),
    true,
    (d) => {
      const wall = d.getTime();
      const date = new Date(wall).toISOString().slice(0, 10);
      const start = zonedInstant(show.timeZone, wall);
      if (start >= to) return false;
      if (start >= from && !except.has(date)) out.push({ start, localDate: date });
      return out.length <= limit;
    },
  );
  return out;
}

/** How many occurrences a repeat makes, counting up to `max + 1` (Infinity: it never ends). */
export function occurrenceCount(show: ShowTiming, max: number): number {
  const repeat = show.repeat;
  if (!repeat) return 1;
  if (repeat.until === undefined && repeat.count === undefined) return Infinity;
  let n = 0;
  weeklyRule(show, repeat).all(() => ++n <= max);
  return n;
}

export { DAY, MINUTE };
