import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import type { CreateStationResponse, StationStats } from '@radiobroadcaster/contracts';
import pg from 'pg';
import request from 'supertest';
import { createApp } from '../bootstrap.js';
import { EventBus } from '../events/event-bus.js';
import {
  createTestDatabase,
  signUp,
  testConfig,
  TEST_REDIS_URL,
  type TestUser,
} from '../../testing/test-app.js';
import { ListeningSessions } from './listening-sessions.service.js';
import { median } from './stats-math.js';
import { StatsRollup } from './stats-rollup.js';
import { waitUntil } from '../../../../test/support/wait.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148';

interface Node {
  app: INestApplication;
  url: string;
  sessions: ListeningSessions;
  rollup: StatsRollup;
}

/**
 * A scripted set of listeners on two API nodes sharing PostgreSQL and Redis; node B then dies
 * without ending its listener. The figures are checked against the sessions' own times.
 */
describe('listening stats across two API nodes', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let a: Node;
  let b: Node;
  let bClosed = false;
  let owner: TestUser;
  let stranger: TestUser;
  let stationId: string;

  const stats = async (node: Node, query = '') =>
    (
      await request(node.url)
        .get(`/api/stations/${stationId}/stats${query}`)
        .set(owner.auth)
        .expect(200)
    ).body as StationStats;

  /** Each session's length in seconds, straight from the table (open ones: null). */
  const lengths = async () => {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const { rows } = await c.query<{ id: string; s: number | null }>(
        `SELECT id, extract(epoch FROM ended_at - started_at)::float8 AS s FROM listening_sessions`,
      );
      return new Map(rows.map((r) => [r.id, r.s]));
    } finally {
      await c.end();
    }
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    const config = testConfig({
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      STATS_ROLLUP_INTERVAL_MS: '600000',
      STATS_HEARTBEAT_MS: '300',
    });
    const start = async (): Promise<Node> => {
      const app = await createApp(config);
      await app.listen(0, '127.0.0.1');
      return {
        app,
        url: `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`,
        sessions: app.get(ListeningSessions),
        rollup: app.get(StatsRollup),
      };
    };
    a = await start();
    b = await start();
    owner = await signUp(a.url);
    stranger = await signUp(a.url);
    stationId = (
      (await request(a.url).post('/api/stations').set(owner.auth).send({ name: 'Counted FM' }))
        .body as CreateStationResponse
    ).station.id;
  }, 60_000);

  afterAll(async () => {
    await a?.app.close();
    if (!bClosed) await b?.app.close();
    await db?.drop();
  });

  it('rejects strangers and bad queries', async () => {
    await request(a.url).get(`/api/stations/${stationId}/stats`).expect(401);
    await request(a.url).get(`/api/stations/${stationId}/stats`).set(stranger.auth).expect(403);
    const bad = await request(a.url)
      .get(`/api/stations/${stationId}/stats?from=yesterday&tz=Mars/Olympus`)
      .set(owner.auth)
      .expect(400);
    expect(bad.body.fields.map((f: { path: string }) => f.path).sort()).toEqual(['from', 'tz']);
    const tooMany = await request(a.url)
      .get(
        `/api/stations/${stationId}/stats?from=2026-11-01T00:00:00Z&to=2026-11-20T00:00:00Z&interval=minute`,
      )
      .set(owner.auth)
      .expect(400);
    expect(tooMany.body.message).toMatch(/too many points/);
    const empty = await stats(a);
    expect(empty).toMatchObject({
      peakListeners: 0,
      sessions: 0,
      listeningHours: 0,
      interval: 'hour',
    });
    expect(empty.series).toHaveLength(7 * 24 + 1);
  });

  it('counts peak, listening time, sessions, median and breakdowns from both nodes', async () => {
    await a.app.get(EventBus).publish('station.live', {
      stationId,
      status: 'live',
      isActive: true,
      lastActiveAt: new Date().toISOString(),
    });
    await sleep(300);
    const id = { l1: randomUUID(), l2: randomUUID(), l3: randomUUID(), l4: randomUUID() };
    // Three listeners at once: our own page on A; an embed on a phone on B; VLC over HTTP on B.
    await a.sessions.started({
      id: id.l1,
      stationId,
      transport: 'webrtc',
      origin: 'http://localhost:3000',
      userAgent: CHROME,
    });
    await b.sessions.started({
      id: id.l2,
      stationId,
      transport: 'webrtc',
      origin: 'https://blog.example.com',
      userAgent: IPHONE,
    });
    await b.sessions.started({
      id: id.l3,
      stationId,
      transport: 'http',
      origin: null,
      userAgent: 'VLC/3.0.18 LibVLC/3.0.18',
    });
    await sleep(800);
    // L2 leaves (reported through the other node), L4 arrives on the embed.
    await a.sessions.ended(id.l2);
    await a.sessions.started({
      id: id.l4,
      stationId,
      transport: 'webrtc',
      origin: 'https://blog.example.com',
      userAgent: CHROME,
    });
    await sleep(800);
    await b.sessions.ended(id.l1);
    await a.sessions.ended(id.l4);

    // Either node answers the same once the rollup ran (on any node).
    await b.rollup.run();
    const fromA = await stats(
      a,
      '?interval=minute&from=' + new Date(Date.now() - 3_600_000).toISOString(),
    );
    const fromB = await stats(b, '?interval=minute&from=' + fromA.from);
    // (L3 is still open, so only its listening time moves between the two calls.)
    const settled = (x: StationStats) => ({
      peak: x.peakListeners,
      sessions: x.sessions,
      series: x.series.slice(0, fromA.series.length - 2),
      // by name: the order is by listening time, and L3's (http) grows between the calls
      transports: x.byTransport.map((t) => [t.transport, t.sessions]).sort(),
    });
    expect(settled(fromB)).toEqual(settled(fromA));
    expect(fromA.peakListeners).toBe(3);
    expect(fromA.sessions).toBe(4);

    // Node B dies with L3 still playing: it ends at B's last heartbeat.
    await b.app.close();
    bClosed = true;
    await waitUntil(
      async () => {
        await a.rollup.run();
        return (await lengths()).get(id.l3) != null;
      },
      10_000,
      "L3 ended at node B's last heartbeat",
      200,
    );
    await a.app.get(EventBus).publish('station.offline', {
      stationId,
      status: 'offline',
      isActive: false,
      lastActiveAt: new Date().toISOString(),
    });
    await sleep(300);
    await a.rollup.run();

    const len = await lengths();
    expect([...len.values()].every((s) => s !== null)).toBe(true);
    const total = [...len.values()].reduce<number>((s, v) => s + v!, 0);
    const s = await stats(a, '?from=' + new Date(Date.now() - 3_600_000).toISOString());
    expect(s.interval).toBe('minute');
    expect(s.peakListeners).toBe(3);
    expect(s.sessions).toBe(4);
    expect(s.listeningHours * 3600).toBeCloseTo(total, 1);
    expect(s.medianSessionSeconds).toBeCloseTo(median([...len.values()] as number[])!, 0);
    expect(s.series.reduce((x, p) => x + p.listeningHours, 0) * 3600).toBeCloseTo(total, 1);
    expect(Math.max(...s.series.map((p) => p.peakListeners))).toBe(3);
    // L3's length ends near B's last beat, not when the rollup noticed.
    expect(len.get(id.l3)!).toBeLessThan(1.6 + 1.2);
    const bySessions = <T extends { sessions: number }>(list: T[], key: (t: T) => string) =>
      Object.fromEntries(list.map((x) => [key(x), x.sessions]));
    expect(bySessions(s.byTransport, (x) => x.transport)).toEqual({ webrtc: 3, http: 1 });
    expect(bySessions(s.byDomain, (x) => `${x.source}:${x.domain ?? ''}`)).toEqual({
      'embed:blog.example.com': 2,
      'site:': 1,
      'direct:': 1,
    });
    expect(bySessions(s.byClient, (x) => x.client)).toEqual({ desktop: 2, mobile: 1, player: 1 });
    const embedSeconds = s.byDomain.find((x) => x.source === 'embed')!.listeningHours * 3600;
    expect(embedSeconds).toBeCloseTo(len.get(id.l2)! + len.get(id.l4)!, 1);

    // The broadcast keeps its own summary.
    expect(s.broadcasts).toHaveLength(1);
    expect(s.broadcasts[0]).toMatchObject({ peakListeners: 3, sessions: 4 });
    expect(s.broadcasts[0]!.endedAt).not.toBeNull();
    const one = await stats(a, `?broadcastId=${s.broadcasts[0]!.id}`);
    expect(one).toMatchObject({ peakListeners: 3, sessions: 4, broadcastId: s.broadcasts[0]!.id });

    // Hours and days come from the hourly rollups: same totals.
    const daily = await stats(a, '?interval=day&tz=Europe/Paris');
    expect(daily).toMatchObject({ peakListeners: 3, sessions: 4, interval: 'day' });
    expect(daily.listeningHours * 3600).toBeCloseTo(total, 1);

    const csv = await request(a.url)
      .get(`/api/stations/${stationId}/stats.csv?interval=hour&from=${encodeURIComponent(s.from)}`)
      .set(owner.auth)
      .expect(200)
      .expect('Content-Type', /text\/csv/);
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe('interval_start,peak_listeners,listening_hours,sessions');
    expect(lines.slice(1).reduce((x, l) => x + Number(l.split(',')[3]), 0)).toBe(4);
  }, 60_000);
});
