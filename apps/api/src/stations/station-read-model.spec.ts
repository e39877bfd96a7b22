import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreateStationResponse, Station } from '@radiobroadcaster/contracts';
import { Redis } from 'ioredis';
import pg from 'pg';
import { EventBus } from '../events/event-bus.js';
import {
  createTestDatabase,
  signUp,
  startTestApp,
  TEST_REDIS_URL,
  type TestApp,
  type TestUser,
} from '../../testing/test-app.js';
import { StationsService } from './stations.service.js';

interface Read {
  status: number;
  etag: string | null;
  cacheControl: string | null;
  body: unknown;
}

async function read(base: string, path: string, ifNoneMatch?: string): Promise<Read> {
  const res = await fetch(`${base}${path}`, {
    headers: ifNoneMatch ? { 'If-None-Match': ifNoneMatch } : {},
  });
  const text = await res.text();
  return {
    status: res.status,
    etag: res.headers.get('etag'),
    cacheControl: res.headers.get('cache-control'),
    body: text ? JSON.parse(text) : null,
  };
}

/** Polls until `check` passes (the change travels through Redis). */
async function eventually(check: () => Promise<void>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

describe('the public station view on two API nodes sharing PostgreSQL and Redis', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let sql: pg.Client;
  let nodes: TestApp[] = [];
  let a: TestApp;
  let owner: TestUser;
  let station: Station;

  const paths = () => ({
    station: `/api/stations/${station.id}`,
    bySlug: `/api/users/${owner.username}/stations/${station.slug}`,
    list: `/api/users/${owner.username}/stations`,
    discover: '/api/stations/discover',
  });

  /** This station as each public read shows it. */
  function shown(path: keyof ReturnType<typeof paths>, body: unknown): Station | undefined {
    if (path === 'station' || path === 'bySlug') return body as Station;
    return (body as { stations: Station[] }).stations.find((s) => s.id === station.id);
  }

  /** Current ETag of every read on every node (all nodes render the same bytes). */
  async function etags(): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const [name, path] of Object.entries(paths())) {
      const seen = await Promise.all(nodes.map((n) => read(n.url, path)));
      for (const r of seen) expect(r.status).toBe(200);
      expect(new Set(seen.map((r) => r.etag)).size).toBe(1);
      out[name] = seen[0]!.etag!;
    }
    return out;
  }

  /**
   * After `change`: every read on both nodes shows `expected` of the station, answers 200 to the
   * ETag from before and 304 to the new one.
   */
  async function expectChangeEverywhere(
    change: () => Promise<void>,
    expected: (s: Station) => boolean,
  ): Promise<void> {
    const before = await etags();
    await change();
    for (const [name, path] of Object.entries(paths()) as [
      keyof ReturnType<typeof paths>,
      string,
    ][]) {
      for (const node of nodes) {
        await eventually(async () => {
          const r = await read(node.url, path, before[name]);
          expect(r.status).toBe(200);
          expect(expected(shown(name, r.body)!)).toBe(true);
        });
      }
    }
    const after = await etags();
    for (const [name, path] of Object.entries(paths())) {
      expect(after[name]).not.toBe(before[name]);
      for (const node of nodes) {
        const r = await read(node.url, path, after[name]);
        expect(r.status).toBe(304);
        expect(r.body).toBeNull();
      }
    }
  }

  async function post(path: string, body: unknown, user = owner): Promise<Response> {
    const res = await fetch(`${a.url}${path}`, {
      method: 'POST',
      headers: { ...user.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBeLessThan(300);
    return res;
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    sql = new pg.Client({ connectionString: db.url });
    const env = {
      DATABASE_URL: db.url,
      AUTH_SECRET: randomBytes(32).toString('hex'),
      EVENT_PREFIX: `rbtest-${randomBytes(4).toString('hex')}`,
    };
    // One after the other: both run the migrations at start, the second finds them applied.
    nodes.push(await startTestApp({ redis: true, env }));
    nodes.push(await startTestApp({ redis: true, env }));
    a = nodes[0]!;
    await sql.connect();
    owner = await signUp(a.url);
    const res = await post('/api/stations', { name: 'Both Nodes', description: 'first' });
    station = ((await res.json()) as CreateStationResponse).station;
  }, 60_000);

  afterAll(async () => {
    await sql.end();
    for (const n of nodes) await n.close();
    nodes = [];
    await db.drop();
  });

  it('answers the public reads with a validator and a cache lifetime within the polling interval', async () => {
    for (const path of Object.values(paths())) {
      const r = await read(a.url, path);
      expect(r.status).toBe(200);
      expect(r.etag).toMatch(/^W\/".+"$/);
      expect(r.cacheControl).toBe('public, max-age=1, stale-while-revalidate=1');
      expect((await read(a.url, path, r.etag!)).status).toBe(304);
      expect((await read(a.url, path, `W/"other", ${r.etag}`)).status).toBe(304);
      expect((await read(a.url, path, 'W/"other"')).status).toBe(200);
    }
  });

  it('serves repeated reads from memory: a row changed behind its back is not seen until an event', async () => {
    await etags();
    await sql.query('UPDATE stations SET description = $1 WHERE id = $2', ['behind', station.id]);
    for (const node of nodes) {
      const r = await read(node.url, paths().station);
      expect((r.body as Station).description).toBe('first');
    }
    await expectChangeEverywhere(
      () => a.app.get(EventBus).publish('station.updated', { stationId: station.id }),
      (s) => s.description === 'behind',
    );
  });

  it('shows going live on both nodes', async () => {
    await expectChangeEverywhere(
      async () =>
        void (await a.app.get(StationsService).transition(station.id, 'live', true, true)),
      (s) => s.status === 'live' && s.isActive && s.lastActiveAt !== null,
    );
  });

  it('shows now playing on both nodes', async () => {
    await expectChangeEverywhere(
      async () =>
        void (await post('/api/stations/now-playing', { stationId: station.id, track: 'So What' })),
      (s) => s.nowPlaying?.track === 'So What',
    );
  });

  it('shows the viewer count on both nodes', async () => {
    await expectChangeEverywhere(
      () =>
        a.app.get(EventBus).publish('station.listeners', { stationId: station.id, viewerCount: 7 }),
      (s) => s.viewerCount === 7,
    );
  });

  it('shows an edit on both nodes', async () => {
    await expectChangeEverywhere(
      async () =>
        void (await post('/api/stations/update', { stationId: station.id, name: 'Renamed' })),
      (s) => s.name === 'Renamed',
    );
  });

  it('shows the broadcaster renamed on both nodes', async () => {
    await expectChangeEverywhere(
      async () => void (await post('/api/auth/update-user', { name: 'New Name' })),
      (s) => s.broadcaster.name === 'New Name',
    );
  });

  it('shows going offline on both nodes', async () => {
    await expectChangeEverywhere(
      async () =>
        void (await a.app.get(StationsService).transition(station.id, 'offline', false, true)),
      (s) => s.status === 'offline' && !s.isActive,
    );
  });

  it('drops the view when the event bus reconnects, since events may have been missed', async () => {
    await etags();
    // A change whose event never arrives, then the subscriber connections drop and come back.
    await sql.query('UPDATE stations SET description = $1 WHERE id = $2', ['missed', station.id]);
    const admin = new Redis(TEST_REDIS_URL);
    try {
      const list = (await admin.client('LIST')) as string;
      const name = `${a.config.redisPrefix}:api:events-sub`;
      const ids = list
        .split('\n')
        .filter((line) => line.includes(` name=${name} `))
        .map((line) => /(?:^| )id=(\d+)/.exec(line)![1]!);
      expect(ids).toHaveLength(2);
      for (const id of ids) await admin.client('KILL', 'ID', id);
    } finally {
      admin.disconnect();
    }
    for (const node of nodes) {
      await eventually(async () => {
        const r = await read(node.url, paths().station);
        expect((r.body as Station).description).toBe('missed');
      });
    }
  });

  it('answers 404 on both nodes once the owner deleted a station, and lists drop it', async () => {
    const res = await post('/api/stations', { name: 'Short Lived' });
    const doomed = ((await res.json()) as CreateStationResponse).station;
    const at = {
      station: `/api/stations/${doomed.id}`,
      bySlug: `/api/users/${owner.username}/stations/${doomed.slug}`,
    };
    for (const node of nodes) {
      await eventually(async () => expect((await read(node.url, at.station)).status).toBe(200));
      expect((await read(node.url, at.bySlug)).status).toBe(200);
    }
    const deleted = await fetch(`${a.url}/api/stations/${doomed.id}`, {
      method: 'DELETE',
      headers: owner.auth,
    });
    expect(deleted.status).toBeLessThan(300);
    for (const node of nodes) {
      await eventually(async () => {
        expect((await read(node.url, at.station)).status).toBe(404);
        expect((await read(node.url, at.bySlug)).status).toBe(404);
        for (const list of [paths().list, paths().discover]) {
          const body = (await read(node.url, list)).body as { stations: Station[] };
          expect(body.stations.map((s) => s.id)).not.toContain(doomed.id);
        }
      });
    }
  });

  it('answers 404 on both nodes once the broadcaster deleted their account', async () => {
    await etags();
    await post('/api/auth/delete-user', { password: owner.password });
    for (const node of nodes) {
      await eventually(async () => {
        expect((await read(node.url, paths().station)).status).toBe(404);
        expect((await read(node.url, paths().bySlug)).status).toBe(404);
        expect((await read(node.url, paths().list)).status).toBe(404);
        const discover = await read(node.url, paths().discover);
        expect(shown('discover', discover.body)).toBeUndefined();
      });
    }
  });
});
