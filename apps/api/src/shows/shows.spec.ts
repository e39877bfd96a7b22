import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type {
  CreateStationResponse,
  ErrorBody,
  Show,
  ShowsResponse,
} from '@radiobroadcaster/contracts';
import ICAL from 'ical.js';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { signUp, startTestApp, type TestApp, type TestUser } from '../../testing/test-app.js';

const HOUR = 3_600_000;

/** Debian's python3-icalendar and python3-recurring-ical-events: [summary, UTC start] in a window. */
const PYTHON_EXPAND = `
import json, sys
from datetime import datetime, timezone
import icalendar, recurring_ical_events
cal = icalendar.Calendar.from_ical(sys.stdin.read())
start, end = (datetime.fromisoformat(a).replace(tzinfo=timezone.utc) for a in sys.argv[1:3])
found = [[str(e['SUMMARY']), e['DTSTART'].dt.astimezone(timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.000Z')]
         for e in recurring_ical_events.of(cal).between(start, end)]
print(json.dumps(sorted(found, key=lambda f: f[1])))
`;

describe('shows', () => {
  let t: TestApp;
  let owner: TestUser;
  let stranger: TestUser;
  let stationId: string;
  let slug: string;

  const create = (body: object, who: TestUser = owner) =>
    request(t.url).post('/api/stations/shows').set(who.auth).send(body);
  const feed = async (id: string, from: string, to: string) =>
    (await request(t.url).get(`/api/stations/${id}/shows`).query({ from, to }).expect(200))
      .body as ShowsResponse;
  const newStation = async (name: string) => {
    const res = await request(t.url)
      .post('/api/stations')
      .set(owner.auth)
      .send({ name })
      .expect(201);
    return (res.body as CreateStationResponse).station;
  };

  // Sunday 17 October 2027, 20:00 in Berlin (CEST); Berlin changes to CET on Sunday 31 October.
  const sundayJazz = {
    title: 'Sunday Night Jazz',
    startsAt: '2027-10-17T18:00:00Z',
    durationMinutes: 60,
    timeZone: 'Europe/Berlin',
    repeat: { weekdays: ['SU'], except: ['2027-11-14'] },
  };
  let jazz: Show;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await signUp(t.url);
    stranger = await signUp(t.url);
    const station = await newStation('Jazz Radio');
    stationId = station.id;
    slug = station.slug;
    jazz = (await create({ stationId, ...sundayJazz }).expect(201)).body as Show;
  });

  afterAll(async () => {
    await t.close();
  });

  it('a weekly show keeps its local time across the change from summer time', async () => {
    expect(jazz).toMatchObject({
      title: 'Sunday Night Jazz',
      timeZone: 'Europe/Berlin',
      startsAt: '2027-10-17T18:00:00.000Z',
      repeat: { weekdays: ['SU'], except: ['2027-11-14'] },
    });
    const got = await feed(stationId, '2027-10-15T00:00:00Z', '2027-11-25T00:00:00Z');
    expect(got.occurrences.map((o) => [o.localDate, o.startsAt, o.endsAt, o.state])).toEqual([
      ['2027-10-17', '2027-10-17T18:00:00.000Z', '2027-10-17T19:00:00.000Z', 'upcoming'],
      ['2027-10-24', '2027-10-24T18:00:00.000Z', '2027-10-24T19:00:00.000Z', 'upcoming'],
      // 20:00 in winter time is 19:00 UTC.
      ['2027-10-31', '2027-10-31T19:00:00.000Z', '2027-10-31T20:00:00.000Z', 'upcoming'],
      ['2027-11-07', '2027-11-07T19:00:00.000Z', '2027-11-07T20:00:00.000Z', 'upcoming'],
      // 14 November is an exception.
      ['2027-11-21', '2027-11-21T19:00:00.000Z', '2027-11-21T20:00:00.000Z', 'upcoming'],
    ]);
    expect(got.truncated).toBe(false);
    expect(got.shows.map((s) => s.id)).toEqual([jazz.id]);
  });

  it('refuses an overlapping show with 409 SHOW_OVERLAP, in any time zone; back to back is fine', async () => {
    // 19:30 in London on 7 November is 19:30 UTC: inside the 19:00–20:00 UTC jazz hour.
    const res = await create({
      stationId,
      title: 'Talk',
      startsAt: '2027-11-07T19:30:00Z',
      durationMinutes: 30,
      timeZone: 'Europe/London',
    }).expect(409);
    expect(res.body as ErrorBody).toEqual({
      error: 'SHOW_OVERLAP',
      message: 'This overlaps "Sunday Night Jazz" on 2027-11-07 at 19:00 (Europe/London)',
    });
    // A repeat whose later occurrence clashes is refused too.
    await create({
      stationId,
      title: 'Weekly talk',
      startsAt: '2027-10-10T18:30:00Z',
      durationMinutes: 30,
      timeZone: 'Europe/Berlin',
      repeat: { weekdays: ['SU'] },
    }).expect(409);
    // Right after the jazz hour, and on the excepted Sunday: no clash.
    await create({
      stationId,
      title: 'Late talk',
      startsAt: '2027-10-31T20:00:00Z',
      durationMinutes: 30,
      timeZone: 'UTC',
    }).expect(201);
    await create({
      stationId,
      title: 'Special',
      startsAt: '2027-11-14T19:00:00Z',
      durationMinutes: 60,
      timeZone: 'Europe/Berlin',
    }).expect(201);
    // Another station's schedule is its own.
    const other = await newStation('Other Radio');
    await create({ stationId: other.id, ...sundayJazz }).expect(201);
  });

  it('an update is checked like a creation; delete removes the show', async () => {
    const early = (
      await create({
        stationId,
        title: 'Breakfast',
        startsAt: '2027-10-18T06:00:00Z',
        durationMinutes: 120,
        timeZone: 'Europe/Berlin',
      }).expect(201)
    ).body as Show;
    const moved = await request(t.url)
      .post('/api/stations/shows/update')
      .set(owner.auth)
      .send({ showId: early.id, startsAt: '2027-10-17T17:30:00Z' })
      .expect(409);
    expect((moved.body as ErrorBody).error).toBe('SHOW_OVERLAP');
    const renamed = await request(t.url)
      .post('/api/stations/shows/update')
      .set(owner.auth)
      .send({ showId: early.id, title: 'Early Breakfast', durationMinutes: 90 })
      .expect(200);
    expect(renamed.body as Show).toMatchObject({ title: 'Early Breakfast', durationMinutes: 90 });
    await request(t.url).delete(`/api/stations/shows/${early.id}`).set(owner.auth).expect(204);
    const after = await feed(stationId, '2027-10-18T00:00:00Z', '2027-10-19T00:00:00Z');
    expect(after.occurrences).toEqual([]);
    await request(t.url).delete(`/api/stations/shows/${early.id}`).set(owner.auth).expect(404);
  });

  it('bad input: 400 naming the field', async () => {
    const base = {
      stationId,
      title: 'Bad',
      startsAt: '2028-03-01T10:00:00Z',
      durationMinutes: 60,
      timeZone: 'Europe/Berlin',
    };
    const cases: [object, string, RegExp][] = [
      [{ startsAt: '2020-01-01T10:00:00Z' }, 'startsAt', /future/],
      [{ timeZone: 'Mars/Olympus_Mons' }, 'timeZone', /IANA time zone/],
      [{ durationMinutes: 100_000 }, 'durationMinutes', /at most 720/],
      [{ durationMinutes: 0 }, 'durationMinutes', /at least 5/],
      [{ repeat: { weekdays: ['WE'], count: 10_000 } }, 'repeat.count', /at most 1000/],
      [
        { repeat: { weekdays: ['WE'], until: '2099-01-01T00:00:00Z' } },
        'repeat.until',
        /at most 1000/,
      ],
      // 1 March 2028 is a Wednesday.
      [{ repeat: { weekdays: ['MO'] } }, 'repeat.weekdays', /Wednesday in Europe\/Berlin/],
      [{ repeat: { weekdays: [] } }, 'repeat.weekdays', /at least one day/],
      [{ startsAt: 'next friday' }, 'startsAt', /ISO 8601/],
      [{ title: '   ' }, 'title', /empty/],
    ];
    for (const [change, path, message] of cases) {
      const res = await create({ ...base, ...change });
      expect([res.status, (res.body as ErrorBody).error]).toEqual([400, 'ValidationError']);
      const field = (res.body as ErrorBody).fields?.find((f) => f.path === path);
      expect(field?.message).toMatch(message);
    }
    // The occurrences window is bounded.
    const wide = await request(t.url)
      .get(`/api/stations/${stationId}/shows`)
      .query({ from: '2027-01-01T00:00:00Z', to: '2028-01-01T00:00:00Z' })
      .expect(400);
    expect((wide.body as ErrorBody).fields?.[0]).toEqual({
      path: 'to',
      message: 'the window can be at most 92 days',
    });
    await request(t.url)
      .get(`/api/stations/${stationId}/shows`)
      .query({ from: '2027-01-02T00:00:00Z', to: '2027-01-01T00:00:00Z' })
      .expect(400);
  });

  it('only the owner writes: 401 signed out, 403 for someone else', async () => {
    const body = {
      stationId,
      title: 'Mine',
      startsAt: '2028-05-01T10:00:00Z',
      durationMinutes: 30,
      timeZone: 'UTC',
    };
    await request(t.url).post('/api/stations/shows').send(body).expect(401);
    expect((await create(body, stranger).expect(403)).body as ErrorBody).toMatchObject({
      error: 'Forbidden',
    });
    await request(t.url)
      .post('/api/stations/shows/update')
      .set(stranger.auth)
      .send({ showId: jazz.id, title: 'Hijacked' })
      .expect(403);
    await request(t.url).delete(`/api/stations/shows/${jazz.id}`).set(stranger.auth).expect(403);
    await request(t.url).delete(`/api/stations/shows/${jazz.id}`).expect(401);
  });

  it('answers at most 500 occurrences of a window and says so', async () => {
    const station = await newStation('Busy Radio');
    // Six daily five-minute shows: 6 × 92 = 552 occurrences in 92 days.
    for (let i = 0; i < 6; i++) {
      await create({
        stationId: station.id,
        title: `Bulletin ${i}`,
        startsAt: `2028-01-03T0${i}:00:00Z`,
        durationMinutes: 5,
        timeZone: 'UTC',
        repeat: { weekdays: ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] },
      }).expect(201);
    }
    const got = await feed(station.id, '2028-01-03T00:00:00Z', '2028-04-04T00:00:00Z');
    expect(got.occurrences).toHaveLength(500);
    expect(got.truncated).toBe(true);
    expect(got.occurrences[0]!.startsAt).toBe('2028-01-03T00:00:00.000Z');
    const day = await feed(station.id, '2028-01-04T00:00:00Z', '2028-01-05T00:00:00Z');
    expect(day.occurrences.map((o) => o.title)).toEqual(
      [0, 1, 2, 3, 4, 5].map((i) => `Bulletin ${i}`),
    );
    expect(day.truncated).toBe(false);
  });

  it('a past occurrence is aired when the station went live for it, missed when not', async () => {
    const station = await newStation('History Radio');
    const ids: string[] = [];
    for (const [i, title] of ['Missed', 'Aired', 'Late', 'Starting', 'On air'].entries()) {
      const show = (
        await create({
          stationId: station.id,
          title,
          startsAt: `2028-02-0${i + 1}T10:00:00Z`,
          durationMinutes: 60,
          timeZone: 'UTC',
        }).expect(201)
      ).body as Show;
      ids.push(show.id);
    }
    // Shows cannot be made in the past: move them there, and write the broadcast history.
    const db = t.app.get(DataSource);
    const now = Date.now();
    const at = (ms: number) => new Date(now + ms);
    const move = (id: string, ms: number) =>
      db.query(`UPDATE shows SET starts_at = $2 WHERE id = $1`, [id, at(ms)]);
    const broadcast = (from: number, to: number | null) =>
      db.query(`INSERT INTO broadcasts (station_id, started_at, ended_at) VALUES ($1, $2, $3)`, [
        station.id,
        at(from),
        to === null ? null : at(to),
      ]);
    await move(ids[0]!, -10 * HOUR); // no go-live: missed
    await move(ids[1]!, -8 * HOUR); // live 10 min early: aired
    await broadcast(-8 * HOUR - 10 * 60_000, -7 * HOUR);
    await move(ids[2]!, -6 * HOUR); // live 30 min late: still aired
    await broadcast(-6 * HOUR + 30 * 60_000, -5 * HOUR);
    await move(ids[3]!, -5 * 60_000); // started 5 min ago, not live yet: still upcoming
    await move(ids[4]!, 2 * HOUR);
    const got = await feed(station.id, at(-11 * HOUR).toISOString(), at(4 * HOUR).toISOString());
    expect(got.occurrences.map((o) => [o.title, o.state])).toEqual([
      ['Missed', 'missed'],
      ['Aired', 'aired'],
      ['Late', 'aired'],
      ['Starting', 'upcoming'],
      ['On air', 'upcoming'],
    ]);
    expect(got.occurrences[1]!.wentLiveAt).toBe(at(-8 * HOUR - 10 * 60_000).toISOString());
    // The station goes live now (an open broadcast): the show starting five minutes ago is live.
    await broadcast(-60_000, null);
    const live = await feed(station.id, at(-11 * HOUR).toISOString(), at(4 * HOUR).toISOString());
    expect(live.occurrences.map((o) => o.state)).toEqual([
      'missed',
      'aired',
      'aired',
      'live',
      // Two hours ahead: a broadcast on air now says nothing about it yet.
      'upcoming',
    ]);
  });

  it('schedule.ics parses with ical.js and expands to the same occurrences', async () => {
    const res = await request(t.url).get(`/${owner.username}/${slug}/schedule.ics`).expect(200);
    expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8');
    const text = res.text;
    expect(text).toContain('BEGIN:VTIMEZONE');
    expect(text).toContain('RRULE:FREQ=WEEKLY;BYDAY=SU;WKST=MO');
    expect(text).toContain('EXDATE;TZID=Europe/Berlin:20271114T200000');

    const cal = new ICAL.Component(ICAL.parse(text));
    for (const vtz of cal.getAllSubcomponents('vtimezone')) {
      ICAL.TimezoneService.register(new ICAL.Timezone(vtz));
    }
    const events = cal.getAllSubcomponents('vevent').map((v) => new ICAL.Event(v));
    const event = events.find((e) => e.summary === 'Sunday Night Jazz')!;
    expect(event.uid).toBe(`${jazz.id}@127.0.0.1`);
    const it = event.iterator();
    const starts: string[] = [];
    for (let next = it.next(); next && starts.length < 5; next = it.next()) {
      starts.push(next.toJSDate().toISOString());
    }
    const api = await feed(stationId, '2027-10-15T00:00:00Z', '2027-11-25T00:00:00Z');
    expect(starts).toEqual(
      api.occurrences.filter((o) => o.showId === jazz.id).map((o) => o.startsAt),
    );
    expect(starts).toEqual([
      '2027-10-17T18:00:00.000Z',
      '2027-10-24T18:00:00.000Z',
      '2027-10-31T19:00:00.000Z',
      '2027-11-07T19:00:00.000Z',
      '2027-11-21T19:00:00.000Z',
    ]);
    // A one-off show is one event without a rule.
    const special = events.find((e) => e.summary === 'Special')!;
    expect(special.isRecurring()).toBe(false);
    expect(special.startDate.toJSDate().toISOString()).toBe('2027-11-14T19:00:00.000Z');
    expect(special.duration.toSeconds()).toBe(3600);

    await request(t.url).get(`/${owner.username}/no-such-station/schedule.ics`).expect(404);
  });

  it('schedule.ics expands the same with python3-icalendar and recurring-ical-events', async () => {
    const text = (await request(t.url).get(`/${owner.username}/${slug}/schedule.ics`).expect(200))
      .text;
    const py = spawnSync(
      '/usr/bin/python3',
      ['-c', PYTHON_EXPAND, '2027-10-15T00:00:00', '2027-11-25T00:00:00'],
      { input: text, encoding: 'utf8' },
    );
    expect(py.stderr).toBe('');
    const api = await feed(stationId, '2027-10-15T00:00:00Z', '2027-11-25T00:00:00Z');
    expect(JSON.parse(py.stdout) as [string, string][]).toEqual(
      api.occurrences.map((o) => [o.title, o.startsAt]),
    );
    expect(api.occurrences.map((o) => o.title)).toContain('Special');
  });
});
