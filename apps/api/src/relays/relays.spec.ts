import { createServer, type Server, type Socket } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type {
  CreateStationResponse,
  Relay,
  RelaysResponse,
  StationStateEvent,
} from '@radiobroadcaster/contracts';
import request from 'supertest';
import { createApp } from '../bootstrap.js';
import { EventBus } from '../events/event-bus.js';
import {
  createTestDatabase,
  signUp,
  startTestApp,
  testConfig,
  TEST_REDIS_URL,
  type TestApp,
  type TestUser,
} from '../testing/test-app.js';
import { RelaySecrets } from './relay-secrets.js';

describe('relay passwords at rest', () => {
  const secrets = new RelaySecrets('x'.repeat(40));
  it('decrypts only with the same secret and the same relay id', () => {
    const stored = secrets.encrypt('hunter2', 'relay-a');
    expect(stored).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(stored).not.toContain('hunter2');
    expect(secrets.encrypt('hunter2', 'relay-a')).not.toBe(stored);
    expect(secrets.decrypt(stored, 'relay-a')).toBe('hunter2');
    expect(secrets.decrypt(stored, 'relay-b')).toBeNull();
    expect(new RelaySecrets('y'.repeat(40)).decrypt(stored, 'relay-a')).toBeNull();
    const [v, iv, tag, body] = stored.split('.');
    const flipped = Buffer.from(body!, 'base64url');
    flipped[0] ^= 1;
    expect(
      secrets.decrypt([v, iv, tag, flipped.toString('base64url')].join('.'), 'relay-a'),
    ).toBeNull();
    expect(secrets.decrypt('garbage', 'relay-a')).toBeNull();
  });
});

describe('relays API (PostgreSQL)', () => {
  let t: TestApp;
  let owner: TestUser;
  let other: TestUser;
  let stationId: string;
  const base = {
    kind: 'icecast',
    url: 'http://icecast.example.com:8000',
    mount: '/live.ogg',
    username: 'source',
    password: 's3cret-pass',
  };

  beforeAll(async () => {
    t = await startTestApp();
    owner = await signUp(t.url);
    other = await signUp(t.url);
    const res = await request(t.url)
      .post('/api/stations')
      .set(owner.auth)
      .send({ name: 'Relay Test' })
      .expect(201);
    stationId = (res.body as CreateStationResponse).station.id;
  });

  afterAll(async () => {
    await t.close();
  });

  it('adds a relay, lists it with its status and never returns the password', async () => {
    const res = await request(t.url)
      .post('/api/stations/relays')
      .set(owner.auth)
      .send({ ...base, stationId })
      .expect(201);
    const relay = res.body as Relay;
    expect(relay).toMatchObject({
      stationId,
      kind: 'icecast',
      url: base.url,
      mount: '/live.ogg',
      username: 'source',
      hasPassword: true,
      format: 'ogg',
      enabled: true,
      status: { state: 'idle', lastError: null, retryAt: null, since: null, bytesSent: 0 },
    });
    expect(JSON.stringify(res.body)).not.toContain('s3cret-pass');
    const list = await request(t.url)
      .get(`/api/stations/${stationId}/relays`)
      .set(owner.auth)
      .expect(200);
    expect(list.headers['cache-control']).toBe('no-store');
    expect((list.body as RelaysResponse).relays.map((r) => r.id)).toEqual([relay.id]);
    expect(JSON.stringify(list.body)).not.toContain('s3cret-pass');
  });

  it('defaults Shoutcast to MP3 on stream /1 and refuses Ogg for it', async () => {
    const sc = await request(t.url)
      .post('/api/stations/relays')
      .set(owner.auth)
      .send({ ...base, stationId, kind: 'shoutcast', mount: '' })
      .expect(201);
    expect(sc.body).toMatchObject({ format: 'mp3', mount: '/1' });
    const bad = await request(t.url)
      .post('/api/stations/relays')
      .set(owner.auth)
      .send({ ...base, stationId, kind: 'shoutcast', format: 'ogg' })
      .expect(400);
    expect(bad.body).toMatchObject({
      error: 'ValidationError',
      message: 'Shoutcast servers take MP3 only',
    });
    await request(t.url).delete(`/api/stations/relays/${sc.body.id}`).set(owner.auth).expect(204);
  });

  it('validates every field (400)', async () => {
    for (const body of [
      { ...base, stationId, url: 'ftp://x' },
      { ...base, stationId, url: 'not a url' },
      { ...base, stationId, kind: 'wowza' },
      { ...base, stationId, password: '' },
      { ...base, stationId, mount: '/has space' },
      { ...base, stationId, mount: '' },
      { ...base, stationId, format: 'aac' },
      { ...base, stationId: 'nope' },
      { ...base, stationId, extra: 1 },
    ]) {
      const res = await request(t.url).post('/api/stations/relays').set(owner.auth).send(body);
      expect([res.status, res.body.error]).toEqual([400, 'ValidationError']);
    }
  });

  it('refuses signed-out callers (401), other users (403), unknown relays (404)', async () => {
    await request(t.url).get(`/api/stations/${stationId}/relays`).expect(401);
    await request(t.url).get(`/api/stations/${stationId}/relays`).set(other.auth).expect(403);
    await request(t.url)
      .post('/api/stations/relays')
      .set(other.auth)
      .send({ ...base, stationId })
      .expect(403);
    const [relay] = (
      (await request(t.url).get(`/api/stations/${stationId}/relays`).set(owner.auth))
        .body as RelaysResponse
    ).relays;
    await request(t.url)
      .post('/api/stations/relays/update')
      .set(other.auth)
      .send({ relayId: relay!.id, enabled: false })
      .expect(403);
    await request(t.url).delete(`/api/stations/relays/${relay!.id}`).set(other.auth).expect(403);
    await request(t.url)
      .delete('/api/stations/relays/7d0c4a8e-3f7b-4a51-9a55-6b1f4f3c2d10')
      .set(owner.auth)
      .expect(404);
    await request(t.url).delete('/api/stations/relays/nope').set(owner.auth).expect(400);
  });

  it('pauses and changes a relay; at most five per station (409)', async () => {
    const [relay] = (
      (await request(t.url).get(`/api/stations/${stationId}/relays`).set(owner.auth))
        .body as RelaysResponse
    ).relays;
    const paused = await request(t.url)
      .post('/api/stations/relays/update')
      .set(owner.auth)
      .send({ relayId: relay!.id, enabled: false, mount: 'other.ogg', password: 'new-pass' })
      .expect(200);
    expect(paused.body).toMatchObject({
      enabled: false,
      mount: '/other.ogg',
      status: { state: 'disabled' },
    });
    expect(JSON.stringify(paused.body)).not.toContain('new-pass');
    for (let i = 0; i < 4; i++) {
      await request(t.url)
        .post('/api/stations/relays')
        .set(owner.auth)
        .send({ ...base, stationId, mount: `/m${i}.ogg` })
        .expect(201);
    }
    const sixth = await request(t.url)
      .post('/api/stations/relays')
      .set(owner.auth)
      .send({ ...base, stationId, mount: '/m9.ogg' })
      .expect(409);
    expect(sixth.body.message).toBe('A station can have at most 5 relays');
  });
});

/** An Icecast-like source endpoint: answers each PUT with 200 and keeps the stream; notes the mounts. */
class SourceTarget {
  readonly mounts: string[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly server: Server = createServer((socket) => {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    let head = '';
    const onData = (d: Buffer) => {
      head += d.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      socket.on('data', () => undefined);
      this.mounts.push(head.split(' ')[1] ?? '');
      socket.write('HTTP/1.1 200 OK\r\n\r\n');
    };
    socket.on('data', onData);
  });
  port = 0;

  async start(): Promise<this> {
    await new Promise<void>((ok) => this.server.listen(0, '127.0.0.1', ok));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((ok) => this.server.close(ok));
  }
}

async function until(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('relays across two API nodes (PostgreSQL + Redis)', () => {
  it('shows the status the pushing node reports on every node, and an edit on another node restarts the push', async () => {
    const db = await createTestDatabase();
    const base = testConfig({ DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL });
    const apps: INestApplication[] = [];
    const start = async () => {
      const app = await createApp({ ...base, port: 0 });
      await app.listen(0, '127.0.0.1');
      apps.push(app);
      return {
        app,
        url: `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`,
      };
    };
    const target = await new SourceTarget().start();
    try {
      const a = await start();
      const b = await start();
      const owner = await signUp(a.url);
      const stationId = (
        (await request(a.url).post('/api/stations').set(owner.auth).send({ name: 'Two Nodes FM' }))
          .body as CreateStationResponse
      ).station.id;
      const relay = (
        await request(b.url)
          .post('/api/stations/relays')
          .set(owner.auth)
          .send({
            stationId,
            kind: 'icecast',
            url: `http://127.0.0.1:${target.port}`,
            mount: '/live.ogg',
            username: 'source',
            password: 'hackme',
          })
          .expect(201)
      ).body as Relay;
      const state = async (url: string) =>
        (
          (await request(url).get(`/api/stations/${stationId}/relays`).set(owner.auth))
            .body as RelaysResponse
        ).relays[0]!.status.state;
      expect(await state(b.url)).toBe('idle');

      // The station goes live with its publisher on node A: A pushes, and B shows it live too.
      const live: StationStateEvent = {
        stationId,
        status: 'live',
        isActive: true,
        lastActiveAt: new Date().toISOString(),
      };
      await a.app.get(EventBus).publish('station.live', live);
      await until('the push to start', async () => target.mounts.length === 1);
      expect(target.mounts).toEqual(['/live.ogg']);
      await until('node A to show it live', async () => (await state(a.url)) === 'live');
      await until('node B to show it live', async () => (await state(b.url)) === 'live');

      // Changed on node B: node A, which pushes it, starts it over on the new mount.
      await request(b.url)
        .post('/api/stations/relays/update')
        .set(owner.auth)
        .send({ relayId: relay.id, mount: '/other.ogg' })
        .expect(200);
      await until('the push on the new mount', async () => target.mounts.length === 2);
      expect(target.mounts[1]).toBe('/other.ogg');
      await until('node B to show it live again', async () => (await state(b.url)) === 'live');

      // Off the air: both nodes show it idle.
      await a.app.get(EventBus).publish('station.offline', {
        ...live,
        status: 'offline',
        isActive: false,
      });
      await until('node B to show it idle', async () => (await state(b.url)) === 'idle');
      expect(await state(a.url)).toBe('idle');
    } finally {
      await Promise.all(apps.map((app) => app.close()));
      await target.stop();
      await db.drop();
    }
  }, 60_000);
});
