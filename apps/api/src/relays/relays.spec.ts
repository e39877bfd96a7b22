import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
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
import { OutboundPolicy } from '../common/outbound/outbound-policy.js';
import { EventBus } from '../events/event-bus.js';
import {
  createTestDatabase,
  signUp,
  startTestApp,
  testConfig,
  TEST_REDIS_URL,
  type TestApp,
  type TestUser,
} from '../../testing/test-app.js';
import { fakeDns } from '../../testing/fake-dns.js';
import { connectRelay, type RelayTarget, sendRelayTitle } from './relay-connection.js';
import { RelayPusher } from './relay-pusher.js';
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

  it('refuses targets on private or reserved addresses (400), on create and on update', async () => {
    for (const url of [
      'http://127.0.0.1:6379',
      'http://localhost:8000',
      'http://[::1]:8000',
      'http://[::ffff:127.0.0.1]:6379',
      'http://169.254.169.254',
      'http://[fd00:ec2::254]',
      'http://10.0.0.8:8000',
      'http://100.64.0.1:8000',
      'http://2130706433:6379',
    ]) {
      const res = await request(t.url)
        .post('/api/stations/relays')
        .set(owner.auth)
        .send({ ...base, stationId, url });
      expect([url, res.status, res.body.error]).toEqual([url, 400, 'ValidationError']);
      expect(res.body.fields).toEqual([
        {
          path: 'url',
          message: expect.stringContaining(
            'is a private or reserved address: this server only connects to public addresses',
          ),
        },
      ]);
    }
    const [relay] = (
      (await request(t.url).get(`/api/stations/${stationId}/relays`).set(owner.auth))
        .body as RelaysResponse
    ).relays;
    const update = await request(t.url)
      .post('/api/stations/relays/update')
      .set(owner.auth)
      .send({ relayId: relay!.id, url: 'http://127.0.0.1:6379' })
      .expect(400);
    expect(update.body.message).toBe(
      'Invalid request: url: 127.0.0.1 is a private or reserved address: this server only connects to public addresses',
    );
  });

  it('refuses control characters in credentials, mount and address (400): a password cannot inject protocol lines', async () => {
    const [relay] = (
      (await request(t.url).get(`/api/stations/${stationId}/relays`).set(owner.auth))
        .body as RelaysResponse
    ).relays;
    const message = 'must not contain control characters (line breaks, tabs, NUL...)';
    for (const [field, value] of [
      ['password', 'SET k v\r\nQUIT'],
      ['password', 'pass\n'],
      ['password', 'pa\u0000ss'],
      ['password', 'pa\u007fss'],
      ['password', 'pa\u0085ss'],
      ['password', 'pa\tss'],
      ['username', 'source\r\nX-Injected: 1'],
      ['username', ' source\n'],
      ['mount', '/live.ogg\r\n'],
      ['mount', '/live\u0000.ogg'],
      ['url', 'http://icecast.example.com:8000\r\n'],
      ['url', 'http://icecast.exa\tmple.com:8000'],
    ] as const) {
      const created = await request(t.url)
        .post('/api/stations/relays')
        .set(owner.auth)
        .send({ ...base, stationId, [field]: value });
      expect([field, value, created.status]).toEqual([field, value, 400]);
      expect(created.body.fields).toContainEqual({ path: field, message });
      const updated = await request(t.url)
        .post('/api/stations/relays/update')
        .set(owner.auth)
        .send({ relayId: relay!.id, [field]: value });
      expect([field, value, updated.status]).toEqual([field, value, 400]);
      expect(updated.body.message).toContain(`${field}: ${message}`);
    }
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

  connections = 0;

  async start(host = '127.0.0.1'): Promise<this> {
    this.server.on('connection', () => this.connections++);
    await new Promise<void>((ok) => this.server.listen(0, host, ok));
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
    // The target is a loopback server: the operator's switch allows it.
    const base = testConfig({
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    });
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

/** A loopback server that answers every connection with `reply` and notes what it was sent. */
async function scriptedServer(reply: string, host = '127.0.0.1') {
  const sockets = new Set<Socket>();
  const received: string[] = [];
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let text = '';
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (text.includes('\n')) {
        received.push(text);
        socket.end(reply);
      }
    });
  });
  await new Promise<void>((ok) => server.listen(0, host, ok));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    stop: () =>
      new Promise<void>((ok) => {
        for (const s of sockets) s.destroy();
        server.close(() => ok());
      }),
  };
}

const relayTarget = (over: Partial<RelayTarget>): RelayTarget => ({
  kind: 'icecast',
  url: 'http://127.0.0.1:1',
  mount: '/live.ogg',
  username: 'source',
  password: 'pw',
  format: 'ogg',
  name: 'Test FM',
  description: 'Live radio streaming.',
  pageUrl: 'http://127.0.0.1/u/s',
  ...over,
});

describe('relay connections (loopback servers: the operator switch is on)', () => {
  const allowed = new OutboundPolicy({ allowPrivateNetworks: true });

  it('shows our own words when a server refuses, never the bytes it sent', async () => {
    const cases: [Partial<RelayTarget>, string, string][] = [
      [
        {},
        'HTTP/1.1 403 SECRET-BANNER\r\nServer: SECRET\r\n\r\nSECRET body',
        'the server refused the source (403); is the mount already in use?',
      ],
      [{}, 'HTTP/1.0 500 SECRET-BANNER\r\n\r\n', 'unexpected answer from the server (HTTP 500)'],
      [
        {},
        '-ERR SECRET-BANNER unknown command\r\n\r\n',
        'unexpected answer from the server (not HTTP)',
      ],
      [
        { kind: 'shoutcast', format: 'mp3' },
        '-ERR unknown command `SECRET-BANNER`\r\n',
        'unexpected answer from the server (not a Shoutcast source port)',
      ],
      [
        { kind: 'shoutcast', format: 'mp3' },
        'Invalid Password SECRET\r\n',
        'the server refused the password',
      ],
    ];
    for (const [over, reply, shown] of cases) {
      const server = await scriptedServer(reply);
      try {
        // Shoutcast sources connect to the port after the listed one.
        const port = over.kind === 'shoutcast' ? server.port - 1 : server.port;
        const err = await connectRelay(
          relayTarget({ ...over, url: `http://127.0.0.1:${port}` }),
          allowed,
          5000,
        ).then(
          () => null,
          (e: Error) => e.message,
        );
        expect([reply, err]).toEqual([reply, shown]);
        expect(server.received).toHaveLength(1);
      } finally {
        await server.stop();
      }
    }
    // What the owner sees: the pusher's lastError.
    const server = await scriptedServer(
      'HTTP/1.1 302 SECRET\r\nLocation: http://10.0.0.1/\r\n\r\n',
    );
    const pusher = new RelayPusher(
      relayTarget({ url: `http://127.0.0.1:${server.port}` }),
      allowed,
      () => () => undefined,
      () => undefined,
      { minBackoffMs: 60_000, connectTimeoutMs: 5000 },
    );
    try {
      pusher.start();
      await until('the refusal', async () => pusher.status().state === 'retrying');
      expect(pusher.status().lastError).toBe('unexpected answer from the server (HTTP 302)');
    } finally {
      pusher.stop();
      await server.stop();
    }
  });

  it('connects to an IPv6 literal URL (http://[::1]:port)', async () => {
    const target = await new SourceTarget().start('::1');
    try {
      const socket = await connectRelay(
        relayTarget({ url: `http://[::1]:${target.port}` }),
        allowed,
        5000,
      );
      socket.destroy();
      expect(target.mounts).toEqual(['/live.ogg']);
    } finally {
      await target.stop();
    }
  });

  it('sends MP3 titles through the policy without following redirects', async () => {
    let followed = 0;
    const second = createHttpServer((_req, res) => {
      followed++;
      res.end();
    });
    await new Promise<void>((ok) => second.listen(0, '127.0.0.1', ok));
    const first = createHttpServer((_req, res) =>
      res
        .writeHead(302, { Location: `http://127.0.0.1:${(second.address() as AddressInfo).port}/` })
        .end(),
    );
    await new Promise<void>((ok) => first.listen(0, '127.0.0.1', ok));
    try {
      const url = `http://127.0.0.1:${(first.address() as AddressInfo).port}`;
      await expect(
        sendRelayTitle(relayTarget({ url, format: 'mp3' }), 'Artist - Track', allowed),
      ).rejects.toThrow('the server refused the title (302)');
      expect(followed).toBe(0);
      // Without the switch, a name that resolves to loopback is not even connected to.
      const dns = fakeDns({ 'titles.rebind.test': ['127.0.0.1'] });
      await expect(
        sendRelayTitle(
          relayTarget({ url: url.replace('127.0.0.1', 'titles.rebind.test'), format: 'mp3' }),
          'Artist - Track',
          new OutboundPolicy({ allowPrivateNetworks: false, lookup: dns }),
        ),
      ).rejects.toThrow('titles.rebind.test is a private or reserved address');
      expect(dns.asked).toEqual(['titles.rebind.test']);
    } finally {
      await new Promise((ok) => first.close(ok));
      await new Promise((ok) => second.close(ok));
    }
  });
});

describe('relays the outbound policy refuses are paused with the reason shown (PostgreSQL)', () => {
  it('pauses a relay saved with a private address when the server starts without the switch; resuming needs a public address', async () => {
    const db = await createTestDatabase();
    const shared = { DATABASE_URL: db.url, AUTH_SECRET: 'a'.repeat(64) };
    let t = await startTestApp({ env: { ...shared, OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } });
    try {
      const owner = await signUp(t.url);
      const stationId = (
        (await request(t.url).post('/api/stations').set(owner.auth).send({ name: 'Paused FM' }))
          .body as CreateStationResponse
      ).station.id;
      // Saved while the operator allowed private networks (or before the policy existed).
      const relay = (
        await request(t.url)
          .post('/api/stations/relays')
          .set(owner.auth)
          .send({
            stationId,
            kind: 'shoutcast',
            url: 'http://127.0.0.1:6378',
            mount: '',
            password: 'pw',
          })
          .expect(201)
      ).body as Relay;
      expect(relay).toMatchObject({ enabled: true, pausedReason: null });
      await t.close();
      t = await startTestApp({ env: shared });
      const list = async () =>
        (
          (await request(t.url).get(`/api/stations/${stationId}/relays`).set(owner.auth))
            .body as RelaysResponse
        ).relays;
      expect(await list()).toEqual([
        expect.objectContaining({
          id: relay.id,
          enabled: false,
          pausedReason:
            'Paused: 127.0.0.1 is a private or reserved address: this server only connects to public addresses',
          status: expect.objectContaining({ state: 'disabled' }),
        }),
      ]);
      const resume = await request(t.url)
        .post('/api/stations/relays/update')
        .set(owner.auth)
        .send({ relayId: relay.id, enabled: true })
        .expect(400);
      expect(resume.body.fields).toEqual([
        {
          path: 'url',
          message:
            '127.0.0.1 is a private or reserved address: this server only connects to public addresses',
        },
      ]);
      const moved = await request(t.url)
        .post('/api/stations/relays/update')
        .set(owner.auth)
        .send({ relayId: relay.id, url: 'http://icecast.example.com:8000' })
        .expect(200);
      expect(moved.body).toMatchObject({ enabled: true, pausedReason: null });
    } finally {
      await t.close();
      await db.drop();
    }
  }, 90_000);

  it('pauses a live relay whose name resolves to a private address at connect time (DNS injected): no connection is made', async () => {
    const db = await createTestDatabase();
    const config = testConfig({ DATABASE_URL: db.url });
    const dns = fakeDns({ 'relay.rebind.test': ['127.0.0.1'] });
    config.outbound.lookup = dns;
    const app = await createApp({ ...config, port: 0 });
    await app.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    const target = await new SourceTarget().start();
    try {
      const owner = await signUp(url);
      const stationId = (
        (await request(url).post('/api/stations').set(owner.auth).send({ name: 'Rebind FM' }))
          .body as CreateStationResponse
      ).station.id;
      // A name is judged when it is used, after DNS: saving it is fine.
      const relay = (
        await request(url)
          .post('/api/stations/relays')
          .set(owner.auth)
          .send({
            stationId,
            kind: 'icecast',
            url: `http://relay.rebind.test:${target.port}`,
            mount: '/live.ogg',
            password: 'pw',
          })
          .expect(201)
      ).body as Relay;
      await app.get(EventBus).publish('station.live', {
        stationId,
        status: 'live',
        isActive: true,
        lastActiveAt: new Date().toISOString(),
      });
      const shown = async () =>
        (
          (await request(url).get(`/api/stations/${stationId}/relays`).set(owner.auth))
            .body as RelaysResponse
        ).relays[0]!;
      await until('the relay to be paused', async () => (await shown()).pausedReason !== null);
      expect(await shown()).toMatchObject({
        id: relay.id,
        enabled: false,
        pausedReason:
          'Paused: relay.rebind.test is a private or reserved address: this server only connects to public addresses',
        status: { state: 'disabled' },
      });
      expect(dns.asked).toContain('relay.rebind.test');
      expect(target.connections).toBe(0);
    } finally {
      await app.close();
      await target.stop();
      await db.drop();
    }
  }, 60_000);
});

describe('relay to an IPv6 literal (PostgreSQL; the operator switch is on for a ::1 listener)', () => {
  it('goes live on http://[::1]:port and shows it', async () => {
    const t = await startTestApp({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } });
    const target = await new SourceTarget().start('::1');
    try {
      const owner = await signUp(t.url);
      const stationId = (
        (await request(t.url).post('/api/stations').set(owner.auth).send({ name: 'V6 FM' }))
          .body as CreateStationResponse
      ).station.id;
      await request(t.url)
        .post('/api/stations/relays')
        .set(owner.auth)
        .send({
          stationId,
          kind: 'icecast',
          url: `http://[::1]:${target.port}`,
          mount: '/live.ogg',
          password: 'pw',
        })
        .expect(201);
      await t.app.get(EventBus).publish('station.live', {
        stationId,
        status: 'live',
        isActive: true,
        lastActiveAt: new Date().toISOString(),
      });
      const shown = async () =>
        (
          (await request(t.url).get(`/api/stations/${stationId}/relays`).set(owner.auth))
            .body as RelaysResponse
        ).relays[0]!;
      await until('the relay to go live', async () => (await shown()).status.state === 'live');
      expect(target.mounts).toEqual(['/live.ogg']);
      expect((await shown()).status.lastError).toBeNull();
    } finally {
      await t.close();
      await target.stop();
    }
  }, 60_000);
});
