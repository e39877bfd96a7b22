import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreateStationResponse, EventMap } from '@radiobroadcaster/contracts';
import request from 'supertest';
import {
  createTestDatabase,
  freeLoopbackPort,
  signUp,
  startTestApp,
  type TestApp,
  type TestUser,
} from '../../testing/test-app.js';
import { EventBus } from './event-bus.js';
import { holdsFor } from '../../../../test/support/wait.js';
import { OwnRedis } from '../../testing/own-redis.js';

/**
 * A loopback TCP gate in front of Redis for one node: closed, it cuts that node's connections and
 * refuses new ones, so one node can lose Redis (or get it back) before or after the other.
 */
class Gate {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  open = true;
  port = 0;
  constructor(private readonly target: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    // Half-open like a direct connection: a client's QUIT still gets its replies before the close.
    this.server = createServer({ allowHalfOpen: true }, (client) => {
      if (!this.open) return void client.destroy();
      const upstream = connect({ port: this.target, host: '127.0.0.1', allowHalfOpen: true });
      for (const [a, b] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        this.sockets.add(a);
        a.on('error', () => b.destroy());
        a.on('close', () => this.sockets.delete(a));
        a.pipe(b);
      }
    });
    await new Promise<void>((ok) => this.server!.listen(0, '127.0.0.1', ok));
    this.port = (this.server.address() as { port: number }).port;
  }

  close(): void {
    this.open = false;
    for (const s of this.sockets) s.destroy();
  }

  async stop(): Promise<void> {
    this.close();
    await new Promise<void>((ok) => (this.server ? this.server.close(() => ok()) : ok()));
  }
}

async function until<T>(
  what: string,
  fn: () => Promise<T> | T,
  ok: (v: T) => boolean,
  ms = 20_000,
) {
  const end = Date.now() + ms;
  let last = await fn();
  while (!ok(last)) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
    last = await fn();
  }
  return last;
}

describe('a Redis outage: writes succeed, events wait and arrive once', () => {
  let redis: OwnRedis;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let a: TestApp;
  let b: TestApp;
  let owner: TestUser;
  let stationId: string;
  const seenOn = {
    a: [] as EventMap['station.nowPlaying'][],
    b: [] as EventMap['station.nowPlaying'][],
  };

  beforeAll(async () => {
    redis = new OwnRedis(await freeLoopbackPort());
    await redis.start();
    db = await createTestDatabase();
    // Two nodes of one cluster: one database, one Redis, one secret and key prefix.
    const env = {
      REDIS_URL: redis.url,
      AUTH_SECRET: randomBytes(32).toString('hex'),
      EVENT_PREFIX: `outage-${randomBytes(4).toString('hex')}`,
      SFU_SHARDS: '0',
    };
    a = await startTestApp({ env: { ...env, DATABASE_URL: db.url } });
    b = await startTestApp({ env: { ...env, DATABASE_URL: db.url } });
    a.app.get(EventBus).subscribe('station.nowPlaying', (p) => seenOn.a.push(p));
    b.app.get(EventBus).subscribe('station.nowPlaying', (p) => seenOn.b.push(p));
    owner = await signUp(a.url);
    stationId = (
      (await request(a.url).post('/api/stations').set(owner.auth).send({ name: 'Outage FM' }))
        .body as CreateStationResponse
    ).station.id;
  }, 90_000);

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await redis?.stop();
    await db?.drop();
  });

  const nowPlaying = (track: string) =>
    request(a.url).post('/api/stations/now-playing').set(owner.auth).send({ stationId, track });

  it('delivers events normally while Redis is up', async () => {
    await nowPlaying('Before').expect(200);
    await until(
      'both nodes saw it',
      () => seenOn.b.length + seenOn.a.length,
      (n) => n === 2,
    );
  });

  it('answers writes during the outage, says on /health what is down, and delivers once Redis is back', async () => {
    seenOn.a.length = 0;
    seenOn.b.length = 0;
    await redis.stop();

    const during = await nowPlaying('During the outage').expect(200);
    expect(during.body.nowPlaying).toMatchObject({ track: 'During the outage' });
    // The node that made the change acts on it at once; the other waits for Redis.
    expect(seenOn.a.map((e) => e.nowPlaying?.track)).toEqual(['During the outage']);
    expect(seenOn.b).toEqual([]);
    // Sign-in still works: rate limits count on the node meanwhile.
    await request(b.url)
      .post('/api/auth/sign-in/email')
      .send({ email: owner.email, password: owner.password })
      .expect(200);

    const health = await request(a.url).get('/health').expect(200);
    expect(health.body.status).toBe('degraded');
    expect(health.body.checks.database).toEqual({ status: 'up' });
    expect(health.body.checks.eventBus).toEqual({
      status: 'degraded',
      pending: 1,
      message: expect.stringMatching(/^Redis unreachable.*; 1 events waiting for delivery$/),
    });

    await redis.start();
    await until(
      'node B got the queued event',
      () => seenOn.b.length,
      (n) => n >= 1,
    );
    await until(
      'the outbox emptied',
      async () => (await request(a.url).get('/health')).body,
      (h) => h.status === 'ok',
    );
    // Exactly once on each node, and no second copy for a while.
    await holdsFor(
      () => seenOn.a.length === 1 && seenOn.b.length === 1,
      1000,
      'one copy of the event on each node',
    );
    expect(seenOn.b.map((e) => e.nowPlaying?.track)).toEqual(['During the outage']);
    expect(seenOn.a.map((e) => e.nowPlaying?.track)).toEqual(['During the outage']);
    const read = await request(b.url).get(`/api/stations/${stationId}`).expect(200);
    expect(read.body.nowPlaying).toMatchObject({ track: 'During the outage' });
  }, 90_000);
});

describe('Redis restarts under two nodes: every event reaches the other node once, in order', () => {
  let redis: OwnRedis;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  const gates: Record<'a' | 'b', Gate> = {} as Record<'a' | 'b', Gate>;
  const nodes: Record<'a' | 'b', TestApp> = {} as Record<'a' | 'b', TestApp>;
  let owner: TestUser;
  let stationId: string;
  /** Tracks written through each node, and the ones each node saw (its own, and the other's). */
  const written = { a: [] as string[], b: [] as string[] };
  const own = { a: [] as string[], b: [] as string[] };
  const fromOther = { a: [] as string[], b: [] as string[] };
  let seq = 0;

  beforeAll(async () => {
    redis = new OwnRedis(await freeLoopbackPort());
    await redis.start();
    db = await createTestDatabase();
    const env = {
      AUTH_SECRET: randomBytes(32).toString('hex'),
      EVENT_PREFIX: `restarts-${randomBytes(4).toString('hex')}`,
      SFU_SHARDS: '0',
      DATABASE_URL: db.url,
    };
    for (const n of ['a', 'b'] as const) {
      gates[n] = new Gate(redis.port);
      await gates[n].start();
      nodes[n] = await startTestApp({ env: { ...env, REDIS_URL: gates[n].url } });
      nodes[n].app.get(EventBus).subscribe('station.nowPlaying', (p, meta) => {
        const track = p.nowPlaying?.track;
        if (track) (meta.local ? own : fromOther)[n].push(track);
      });
    }
    owner = await signUp(nodes.a.url);
    stationId = (
      (
        await request(nodes.a.url)
          .post('/api/stations')
          .set(owner.auth)
          .send({ name: 'Restart FM' })
      ).body as CreateStationResponse
    ).station.id;
  }, 90_000);

  afterAll(async () => {
    await Promise.all([nodes.a?.close(), nodes.b?.close()]);
    await Promise.all([gates.a?.stop(), gates.b?.stop()]);
    await redis?.stop();
    await db?.drop();
  });

  /** A now-playing change through node `n` (answered 200 whatever Redis does). */
  const write = async (n: 'a' | 'b', count = 1) => {
    for (let i = 0; i < count; i++) {
      const track = `${n.toUpperCase()}${++seq}`;
      written[n].push(track);
      await request(nodes[n].url)
        .post('/api/stations/now-playing')
        .set(owner.auth)
        .send({ stationId, track })
        .expect(200);
    }
  };

  /** Each node saw its own events once and the other's once, in the order they were written; the outbox is empty. */
  const healed = async () => {
    const other = { a: 'b', b: 'a' } as const;
    await until(
      'every event on both nodes, and /health ok on both',
      async () => ({
        a: fromOther.a.length,
        b: fromOther.b.length,
        health: await Promise.all(
          [nodes.a, nodes.b].map(async (t) => (await request(t.url).get('/health')).body),
        ),
      }),
      (v) =>
        v.a >= written.b.length &&
        v.b >= written.a.length &&
        v.health.every((h: { status: string }) => h.status === 'ok'),
      60_000,
    );
    for (const n of ['a', 'b'] as const) {
      expect(own[n]).toEqual(written[n]);
      expect(fromOther[n]).toEqual(written[other[n]]);
    }
  };

  it("heals after the probe's sequence: Redis killed, three writes, Redis back on the same port, more writes", async () => {
    await write('a');
    await healed();
    for (let round = 0; round < 3; round++) {
      await redis.stop();
      await write('a', 3);
      await write('b');
      await redis.start();
      // At once, while either node may still be reconnecting.
      await write('a', 2);
      await write('b', 2);
      await healed();
    }
    // Not a gap left: later writes go straight through.
    await write('a', 2);
    await write('b');
    await healed();
  }, 240_000);

  it('heals whichever node gets Redis back first', async () => {
    // Node A back first: B is still away while A writes straight to Redis.
    await redis.stop();
    gates.b.close();
    await write('a', 2);
    await redis.start();
    await until(
      'node A reaches Redis',
      async () => (await request(nodes.a.url).get('/health')).body.status,
      (s) => s === 'ok',
    );
    await write('a', 3);
    await write('b', 2);
    gates.b.open = true;
    await healed();

    // Node B back first: A's events wait in the outbox while B writes straight to Redis.
    gates.a.close();
    await write('a', 2);
    await write('b', 2);
    gates.a.open = true;
    await write('b');
    await healed();
  }, 240_000);
});
