import { getVtimezoneComponent } from '@touch4it/ical-timezones';
import ical, { ICalEventRepeatingFreq, ICalWeekday } from 'ical-generator';
import type { StationEntity } from '../stations/station.entity.js';
import type { ShowEntity } from './show.entity.js';
import { localClock, localDate, localTime, MINUTE, zonedInstant } from './show-recurrence.js';

/**
 * The station's shows as an RFC 5545 calendar: one VEVENT per show in its own time zone (with its
 * VTIMEZONE), a weekly RRULE with UNTIL or COUNT, and an EXDATE per skipped date.
 */
export function showsCalendar(
  station: StationEntity,
  shows: ShowEntity[],
  publicUrl: string,
): string {
  const url = `${publicUrl}/${station.broadcaster.username}/${station.slug}`;
  const host = new URL(publicUrl).hostname;
  const cal = ical({
    name: station.name,
    description: station.schedule || station.description || undefined,
    prodId: { company: 'Radio Broadcaster', product: 'shows', language: 'EN' },
    url: `${url}/schedule.ics`,
    ttl: 3600,
    timezone: { name: null, generator: knownZone },
  });
  for (const show of shows) {
    // A zone without a VTIMEZONE (an Etc/ alias) is written in UTC: the instants stay right.
    const zoned = knownZone(show.timeZone) !== null;
    // In its zone, a date-time is written as the wall clock there (ical-generator's local string).
    const at = (t: number) => (zoned ? wallClock(show.timeZone, t) : new Date(t));
    const start = show.startsAt.getTime();
    const event = cal.createEvent({
      id: `${show.id}@${host}`,
      start: at(start),
      end: at(start + show.durationMinutes * MINUTE),
      ...(zoned ? { timezone: show.timeZone } : {}),
      summary: show.title,
      description: show.description || undefined,
      url,
      stamp: show.updatedAt,
      created: show.createdAt,
      lastModified: show.updatedAt,
    });
    const repeat = show.repeat;
    if (!repeat) continue;
    const first = localTime(show.timeZone, show.startsAt.getTime());
    event.repeating({
      freq: ICalEventRepeatingFreq.WEEKLY,
      byDay: repeat.weekdays.map((d) => ICalWeekday[d]),
      startOfWeek: ICalWeekday.MO,
      ...(repeat.count !== undefined ? { count: repeat.count } : {}),
      ...(repeat.until !== undefined ? { until: new Date(repeat.until) } : {}),
      ...(repeat.except?.length
        ? {
            exclude: repeat.except.map((date) => {
              const [y, m, d] = date.split('-').map(Number) as [number, number, number];
              const wall = Date.UTC(y, m - 1, d, first.hour, first.minute, first.second);
              return at(zonedInstant(show.timeZone, wall));
            }),
          }
        : {}),
    });
  }
  return cal.toString();
}

/** `YYYY-MM-DDTHH:MM:SS` in `timeZone` at `t`. */
function wallClock(timeZone: string, t: number): string {
  const l = localTime(timeZone, t);
  return `${localDate(l)}T${localClock(l)}:${String(l.second).padStart(2, '0')}`;
}

function knownZone(timeZone: string): string | null {
  return getVtimezoneComponent(timeZone) ?? null;
}
