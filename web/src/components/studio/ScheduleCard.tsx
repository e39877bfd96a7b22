import {
  SHOW_LIMITS,
  type Show,
  type ShowOccurrence,
  type Station,
  type StationFeeds,
  WEEKDAYS,
  type Weekday,
} from '@radiobroadcaster/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { toast } from 'sonner';
import { apiFetch } from '../../lib/api';
import { errorMessage } from '../../lib/api-error';
import { followApi, followKeys } from '../follow/follow-api';
import '../follow/follow.css';

const DAY_NAMES: Record<Weekday, string> = {
  MO: 'Mon',
  TU: 'Tue',
  WE: 'Wed',
  TH: 'Thu',
  FR: 'Fri',
  SA: 'Sat',
  SU: 'Sun',
};

/** The offset (ms) of `timeZone` from UTC at instant `t`. */
function zoneOffset(timeZone: string, t: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(t));
  const n = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second')) - t;
}

/** `2027-10-17` + `20:00` in `Europe/Berlin` → the UTC instant (ISO), across DST changes. */
export function zonedToIso(date: string, time: string, timeZone: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const [hh, mm] = time.split(':').map(Number) as [number, number];
  const wall = Date.UTC(y, m - 1, d, hh, mm);
  let t = wall - zoneOffset(timeZone, wall);
  t = wall - zoneOffset(timeZone, t);
  return new Date(t).toISOString();
}

/** The local date and time of `iso` in `timeZone`, for the form's fields. */
function isoToZoned(iso: string, timeZone: string): { date: string; time: string } {
  const t = Date.parse(iso);
  const wall = new Date(t + zoneOffset(timeZone, t)).toISOString();
  return { date: wall.slice(0, 10), time: wall.slice(11, 16) };
}

function weekdayOf(date: string): Weekday {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return WEEKDAYS[(new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7]!;
}

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

function zones(): string[] {
  const list = (Intl as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.(
    'timeZone',
  );
  return list?.length ? list : [browserZone(), 'UTC'];
}

interface Draft {
  showId: string | null;
  title: string;
  description: string;
  date: string;
  time: string;
  durationMinutes: string;
  timeZone: string;
  weekly: boolean;
  weekdays: Weekday[];
  until: string;
}

function emptyDraft(): Draft {
  const t = new Date(Date.now() + 86_400_000);
  const zone = browserZone();
  const { date } = isoToZoned(t.toISOString(), zone);
  return {
    showId: null,
    title: '',
    description: '',
    date,
    time: '20:00',
    durationMinutes: '60',
    timeZone: zone,
    weekly: false,
    weekdays: [],
    until: '',
  };
}

function draftOf(s: Show): Draft {
  const { date, time } = isoToZoned(s.startsAt, s.timeZone);
  return {
    showId: s.id,
    title: s.title,
    description: s.description,
    date,
    time,
    durationMinutes: String(s.durationMinutes),
    timeZone: s.timeZone,
    weekly: s.repeat !== null,
    weekdays: s.repeat?.weekdays ?? [],
    until: s.repeat?.until ? isoToZoned(s.repeat.until, s.timeZone).date : '',
  };
}

const when = (iso: string) =>
  new Date(iso).toLocaleString(undefined, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: 'numeric',
    minute: '2-digit',
  });

function repeatText(s: Show): string {
  if (!s.repeat) return 'once';
  const days = s.repeat.weekdays.map((d) => DAY_NAMES[d]).join(', ');
  return `every ${days}${s.repeat.until ? ` until ${new Date(s.repeat.until).toLocaleDateString()}` : ''}`;
}

/** The station's schedule: its shows, the next occurrences, and the form to add or change one. */
export function ScheduleCard({ station }: { station: Station }) {
  const id = useId();
  const queryClient = useQueryClient();
  const key = followKeys.shows(station.id);
  const feed = useQuery({ queryKey: key, queryFn: () => followApi.shows(station.id) });
  // a private station's calendar refuses at its public address: the owner's own keyed one instead
  const isPrivate = station.visibility === 'private';
  const feeds = useQuery({
    queryKey: ['station-feeds', station.id, null],
    queryFn: () => apiFetch<StationFeeds>(`/api/stations/${encodeURIComponent(station.id)}/feeds`),
    enabled: isPrivate,
    retry: false,
    meta: { errorToast: false },
  });
  const calendarUrl = isPrivate
    ? feeds.data?.calendarUrl
    : `/${station.broadcaster.username}/${station.slug}/schedule.ics`;
  const [draft, setDraft] = useState<Draft>(emptyDraft);
  const zoneList = useMemo(zones, []);
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => setDraft((d) => ({ ...d, [k]: v }));
  const refresh = () =>
    queryClient.invalidateQueries({ queryKey: ['stations', station.id, 'shows'] });

  const save = useMutation({
    mutationFn: (d: Draft) => {
      const startsAt = zonedToIso(d.date, d.time, d.timeZone);
      const weekdays = d.weekdays.includes(weekdayOf(d.date))
        ? d.weekdays
        : [...d.weekdays, weekdayOf(d.date)];
      const repeat = d.weekly
        ? {
            weekdays,
            ...(d.until ? { until: zonedToIso(d.until, '23:59', d.timeZone) } : {}),
          }
        : d.showId
          ? null
          : undefined;
      const body = {
        title: d.title,
        description: d.description,
        startsAt,
        durationMinutes: Number(d.durationMinutes),
        timeZone: d.timeZone,
        ...(repeat !== undefined ? { repeat } : {}),
      };
      return d.showId
        ? followApi.updateShow({ showId: d.showId, ...body })
        : followApi.createShow({ stationId: station.id, ...body });
    },
    meta: { errorToast: false },
    onSuccess: (show) => {
      toast.success(draft.showId ? 'Show updated' : 'Show scheduled', {
        description: `${show.title}, first on ${when(show.startsAt)}`,
      });
      setDraft(emptyDraft());
      void refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (showId: string) => followApi.removeShow(showId),
    meta: { errorTitle: 'Could not remove the show' },
    onSuccess: () => {
      toast.success('Show removed');
      void refresh();
    },
  });

  const shows = feed.data?.shows ?? [];
  const next: ShowOccurrence[] = (feed.data?.occurrences ?? []).slice(0, 6);
  return (
    <section className="card" aria-labelledby={`${id}-title`} data-testid="schedule-editor">
      <h2 id={`${id}-title`}>Schedule</h2>
      <p className="muted small">
        Shows appear on your station page with a countdown, in your followers&apos; calendars (
        {calendarUrl ? (
          <a href={calendarUrl} data-testid="schedule-ics">
            {isPrivate ? 'your private iCalendar feed' : 'iCalendar feed'}
          </a>
        ) : (
          'iCalendar feed'
        )}
        ) and in reminders to followers who ask for them. Going live is still up to you.
      </p>
      {shows.length > 0 ? (
        <ul className="schedule-list" aria-label="Shows" data-testid="schedule-shows">
          {shows.map((s) => (
            <li key={s.id} className="schedule-item" data-testid="schedule-show">
              <div>
                <strong>{s.title}</strong>
                <div className="meta">
                  {when(s.startsAt)} · {s.durationMinutes} min · {repeatText(s)} ({s.timeZone})
                </div>
              </div>
              <div className="actions">
                <button
                  type="button"
                  className="btn btn-sm"
                  onClick={() => setDraft(draftOf(s))}
                  data-testid="schedule-edit"
                >
                  Edit
                </button>
                <button
                  type="button"
                  className="btn btn-sm btn-danger"
                  disabled={remove.isPending}
                  onClick={() => remove.mutate(s.id)}
                  aria-label={`Remove ${s.title}`}
                  data-testid="schedule-remove"
                >
                  Remove
                </button>
              </div>
            </li>
          ))}
        </ul>
      ) : feed.isSuccess ? (
        <p className="muted" data-testid="schedule-empty">
          No shows scheduled yet.
        </p>
      ) : null}
      {next.length > 0 ? (
        <>
          <h3>Coming up</h3>
          <ul className="upcoming-shows" data-testid="schedule-next">
            {next.map((o) => (
              <li key={`${o.showId}@${o.startsAt}`}>
                <span>
                  <strong>{o.title}</strong> — {when(o.startsAt)}
                </span>
                <span className="muted">{o.state}</span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <h3>{draft.showId ? 'Change show' : 'Add a show'}</h3>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate(draft);
        }}
        data-testid="schedule-form"
      >
        <div className="field">
          <label htmlFor={`${id}-t`}>Title</label>
          <input
            id={`${id}-t`}
            className="input"
            required
            maxLength={SHOW_LIMITS.titleMax}
            value={draft.title}
            onChange={(e) => set('title', e.target.value)}
            data-testid="schedule-title"
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-d`}>Description (optional)</label>
          <textarea
            id={`${id}-d`}
            className="textarea"
            rows={2}
            maxLength={SHOW_LIMITS.descriptionMax}
            value={draft.description}
            onChange={(e) => set('description', e.target.value)}
          />
        </div>
        <div className="form-row">
          <div className="field">
            <label htmlFor={`${id}-date`}>Date</label>
            <input
              id={`${id}-date`}
              className="input"
              type="date"
              required
              value={draft.date}
              onChange={(e) => set('date', e.target.value)}
              data-testid="schedule-date"
            />
          </div>
          <div className="field">
            <label htmlFor={`${id}-time`}>Starts at</label>
            <input
              id={`${id}-time`}
              className="input"
              type="time"
              required
              value={draft.time}
              onChange={(e) => set('time', e.target.value)}
              data-testid="schedule-time"
            />
          </div>
          <div className="field">
            <label htmlFor={`${id}-len`}>Length (minutes)</label>
            <input
              id={`${id}-len`}
              className="input"
              type="number"
              required
              min={SHOW_LIMITS.durationMinutesMin}
              max={SHOW_LIMITS.durationMinutesMax}
              step={5}
              value={draft.durationMinutes}
              onChange={(e) => set('durationMinutes', e.target.value)}
              data-testid="schedule-duration"
            />
          </div>
        </div>
        <div className="field">
          <label htmlFor={`${id}-tz`}>Time zone</label>
          <select
            id={`${id}-tz`}
            className="input"
            value={draft.timeZone}
            onChange={(e) => set('timeZone', e.target.value)}
            data-testid="schedule-zone"
          >
            {(zoneList.includes(draft.timeZone) ? zoneList : [draft.timeZone, ...zoneList]).map(
              (z) => (
                <option key={z} value={z}>
                  {z}
                </option>
              ),
            )}
          </select>
        </div>
        <label>
          <input
            type="checkbox"
            checked={draft.weekly}
            onChange={(e) => set('weekly', e.target.checked)}
            data-testid="schedule-weekly"
          />{' '}
          Repeats every week
        </label>
        {draft.weekly ? (
          <>
            <fieldset className="weekday-picks">
              <legend>On</legend>
              {WEEKDAYS.map((d) => (
                <label key={d}>
                  <input
                    type="checkbox"
                    checked={draft.weekdays.includes(d) || weekdayOf(draft.date) === d}
                    disabled={weekdayOf(draft.date) === d}
                    onChange={(e) =>
                      set(
                        'weekdays',
                        e.target.checked
                          ? [...draft.weekdays, d]
                          : draft.weekdays.filter((x) => x !== d),
                      )
                    }
                    data-testid={`schedule-day-${d}`}
                  />{' '}
                  {DAY_NAMES[d]}
                </label>
              ))}
            </fieldset>
            <div className="field">
              <label htmlFor={`${id}-until`}>Until (optional)</label>
              <input
                id={`${id}-until`}
                className="input"
                type="date"
                value={draft.until}
                min={draft.date}
                onChange={(e) => set('until', e.target.value)}
              />
            </div>
          </>
        ) : null}
        {save.error ? (
          <p className="field-error" role="alert" data-testid="schedule-error">
            {errorMessage(save.error)}
          </p>
        ) : null}
        <div className="actions">
          <button
            type="submit"
            className="btn btn-primary"
            disabled={save.isPending}
            data-testid="schedule-save"
          >
            {save.isPending ? 'Saving…' : draft.showId ? 'Save changes' : 'Schedule show'}
          </button>
          {draft.showId ? (
            <button type="button" className="btn" onClick={() => setDraft(emptyDraft())}>
              Cancel
            </button>
          ) : null}
        </div>
      </form>
    </section>
  );
}
