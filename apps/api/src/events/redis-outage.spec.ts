import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
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
} from '../testing/test-app.js';
import { EventBus } from './event-bus.js';
import { holdsFor } from '../../../../test/support/wait.js';

/** A Redis server of this test's own, so it can be stopped and started again. */
class OwnRedis {
  private child: ChildProcess | null = null;
  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(
        () => reject(new Error(`redis-server did not start:\n${out}`)),
        15_000,
      );
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        if (/Ready to accept connections/.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}:\n${out}`));
      });
    });
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
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
