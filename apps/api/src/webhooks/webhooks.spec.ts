import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type {
  CreateStationResponse,
  Webhook,
  WebhookDeliveriesResponse,
  WebhookDelivery,
  WebhookPayload,
  WebhooksResponse,
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
import { WebhookReceiver } from '../../testing/webhook-receiver.js';
import { HttpWebhookSender } from './webhook-sender.js';
import { holdsFor } from '../../../../test/support/wait.js';

/** Polls until `ok` holds (generous: the machine is shared). */
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

// The receivers are loopback servers: the operator's switch allows them.
const FAST_RETRIES = { WEBHOOK_RETRY_SCHEDULE: '1,1', OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' };

async function createStation(url: string, owner: TestUser, name: string): Promise<string> {
  const res = await request(url).post('/api/stations').set(owner.auth).send({ name }).expect(201);
  return (res.body as CreateStationResponse).station.id;
}

async function addWebhook(
  url: string,
  owner: TestUser,
  body: { stationId: string; url: string; events: string[] },
): Promise<Webhook> {
  return (await request(url).post('/api/stations/webhooks').set(owner.auth).send(body).expect(201))
    .body as Webhook;
}

async function deliveries(url: string, owner: TestUser, id: string): Promise<WebhookDelivery[]> {
  const res = await request(url)
    .get(`/api/stations/webhooks/${id}/deliveries`)
    .set(owner.auth)
    .expect(200);
  return (res.body as WebhookDeliveriesResponse).deliveries;
}

describe('webhooks', () => {
  let t: TestApp;
  let owner: TestUser;
  let stranger: TestUser;
  let stationId: string;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    t = await startTestApp({ env: FAST_RETRIES });
    owner = await signUp(t.url);
    stranger = await signUp(t.url);
    stationId = await createStation(t.url, owner, 'Hooked FM');
  }, 60_000);
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.stop()));
  });
  afterAll(async () => {
    await t.close();
  });

  async function receiver(script: number[] = []): Promise<WebhookReceiver> {
    const r = await new WebhookReceiver('', script).start();
    receivers.push(r);
    return r;
  }

  it('validates input and lets only the owner manage a station’s webhooks', async () => {
    await request(t.url)
      .post('/api/stations/webhooks')
      .send({ stationId, url: 'https://example.com/h', events: ['station.live'] })
      .expect(401);
    const forbidden = await request(t.url)
      .post('/api/stations/webhooks')
      .set(stranger.auth)
      .send({ stationId, url: 'https://example.com/h', events: ['station.live'] })
      .expect(403);
    expect(forbidden.body.error).toBe('Forbidden');
    const bad = await request(t.url)
      .post('/api/stations/webhooks')
      .set(owner.auth)
      .send({ stationId, url: 'ftp://example.com', events: ['station.exploded'] })
      .expect(400);
    expect(bad.body.error).toBe('ValidationError');
    expect(bad.body.fields.map((f: { path: string }) => f.path).sort()).toEqual([
      'events.0',
      'url',
    ]);
    await request(t.url)
      .post('/api/stations/webhooks')
      .set(owner.auth)
      .send({ stationId, url: 'https://example.com/h', events: [] })
      .expect(400);

    const hook = await addWebhook(t.url, owner, {
      stationId,
      url: 'https://example.com/h',
      events: ['station.live', 'station.live'],
    });
    expect(hook).toMatchObject({ events: ['station.live'], enabled: true, lastDelivery: null });
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    await request(t.url).get(`/api/stations/${stationId}/webhooks`).set(stranger.auth).expect(403);
    await request(t.url)
      .get(`/api/stations/webhooks/${hook.id}/deliveries`)
      .set(stranger.auth)
      .expect(403);
    await request(t.url).delete(`/api/stations/webhooks/${hook.id}`).set(stranger.auth).expect(403);

    const rotated = (
      await request(t.url)
        .post('/api/stations/webhooks/rotate-secret')
        .set(owner.auth)
        .send({ webhookId: hook.id })
        .expect(200)
    ).body as Webhook;
    expect(rotated.secret).not.toBe(hook.secret);
    const updated = (
      await request(t.url)
        .post('/api/stations/webhooks/update')
        .set(owner.auth)
        .send({ webhookId: hook.id, enabled: false, description: 'Discord bot' })
        .expect(200)
    ).body as Webhook;
    expect(updated).toMatchObject({ enabled: false, description: 'Discord bot' });

    await request(t.url).delete(`/api/stations/webhooks/${hook.id}`).set(owner.auth).expect(204);
    await request(t.url).delete(`/api/stations/webhooks/${hook.id}`).set(owner.auth).expect(404);
    const list = (
      await request(t.url).get(`/api/stations/${stationId}/webhooks`).set(owner.auth).expect(200)
    ).body as WebhooksResponse;
    expect(list.webhooks).toEqual([]);
  });

  it('signs every attempt, retries a failing receiver with the same event id until it answers 2xx', async () => {
    const r = await receiver([500, 503]);
    const hook = await addWebhook(t.url, owner, {
      stationId,
      url: r.url,
      events: ['now_playing.changed'],
    });
    r.secret = hook.secret;
    await request(t.url)
      .post('/api/stations/now-playing')
      .set(owner.auth)
      .send({ stationId, track: 'Blue in Green', artist: 'Miles Davis' })
      .expect(200);

    await until(
      'three attempts',
      () => r.received.length,
      (n) => n >= 3,
    );
    expect(r.received.map((x) => x.status)).toEqual([500, 503, 200]);
    expect(new Set(r.received.map((x) => x.id)).size).toBe(1);
    expect(r.received.every((x) => x.libraryVerified && x.manualVerified)).toBe(true);
    const payload = JSON.parse(r.received[2]!.body) as WebhookPayload<{
      station: { id: string; username: string };
      nowPlaying: unknown;
    }>;
    expect(payload).toMatchObject({
      type: 'now_playing.changed',
      data: {
        station: { id: stationId, username: owner.username },
        nowPlaying: { track: 'Blue in Green', artist: 'Miles Davis', album: null },
      },
    });

    const log = await until(
      'the log to show success',
      () => deliveries(t.url, owner, hook.id),
      (l) => l[0]?.status === 'succeeded',
    );
    expect(log).toHaveLength(1);
    expect(log[0]!.attempts.map((a) => a.responseStatus)).toEqual([500, 503, 200]);
    expect(log[0]!.attempts[0]!.responseBody).toBe('answer 500');
    expect(log[0]!.eventId).toBe(r.received[0]!.id);
    // A signature does not verify for another body or a timestamp outside the tolerance.
    const first = r.received[0]!;
    const { manualVerify } = await import('../../testing/webhook-receiver.js');
    const headers = (ts: number) => ({
      'webhook-id': first.id,
      'webhook-timestamp': String(ts),
      'webhook-signature': first.signature,
    });
    expect(manualVerify(hook.secret, first.body, headers(first.timestamp))).toBe(true);
    expect(
      manualVerify(hook.secret, first.body.replace('Blue', 'Red'), headers(first.timestamp)),
    ).toBe(false);
    expect(manualVerify(hook.secret, first.body, headers(first.timestamp - 3600))).toBe(false);
  }, 60_000);

  it('gives up after the last retry and marks the delivery failed', async () => {
    const r = await receiver([500, 500, 500, 500]);
    const hook = await addWebhook(t.url, owner, {
      stationId,
      url: r.url,
      events: ['station.offline'],
    });
    r.secret = hook.secret;
    await request(t.url).post('/api/stations/end').set(owner.auth).send({ stationId }).expect(200);
    const log = await until(
      'the delivery to fail',
      () => deliveries(t.url, owner, hook.id),
      (l) => l[0]?.status === 'failed',
    );
    // The first attempt and one per retry delay ("1,1"): three in all.
    expect(log[0]!.attempts).toHaveLength(3);
    expect(r.received).toHaveLength(3);
    expect(JSON.parse(r.received[0]!.body)).toMatchObject({
      type: 'station.offline',
      data: { status: 'ended' },
    });
    const list = (
      await request(t.url).get(`/api/stations/${stationId}/webhooks`).set(owner.auth).expect(200)
    ).body as WebhooksResponse;
    expect(list.webhooks.find((w) => w.id === hook.id)!.lastDelivery).toMatchObject({
      status: 'failed',
      responseStatus: 500,
    });
  }, 60_000);

  it('sends only subscribed events; the test button answers with the outcome at once', async () => {
    const r = await receiver();
    const hook = await addWebhook(t.url, owner, {
      stationId,
      url: r.url,
      events: ['station.live'],
    });
    r.secret = hook.secret;
    await request(t.url)
      .post('/api/stations/now-playing')
      .set(owner.auth)
      .send({ stationId, track: 'Not for this hook' })
      .expect(200);
    await t.app.get(EventBus).publish('station.live', {
      stationId,
      status: 'live',
      isActive: true,
      lastActiveAt: new Date().toISOString(),
    });
    await until(
      'the live event',
      () => r.received.length,
      (n) => n >= 1,
    );
    const test = (
      await request(t.url)
        .post('/api/stations/webhooks/test')
        .set(owner.auth)
        .send({ webhookId: hook.id })
        .expect(200)
    ).body as WebhookDelivery;
    expect(test).toMatchObject({ eventType: 'webhook.test', status: 'succeeded' });
    expect(test.attempts).toEqual([expect.objectContaining({ responseStatus: 200 })]);
    expect(r.received.map((x) => x.type)).toEqual(['station.live', 'webhook.test']);
    expect(r.received.every((x) => x.manualVerified)).toBe(true);

    // A failed test is not retried; "Resend" sends the same event again.
    r.script = [502];
    const failed = (
      await request(t.url)
        .post('/api/stations/webhooks/test')
        .set(owner.auth)
        .send({ webhookId: hook.id })
        .expect(200)
    ).body as WebhookDelivery;
    expect(failed).toMatchObject({ status: 'failed', attemptCount: 1 });
    const resent = (
      await request(t.url)
        .post('/api/stations/webhooks/deliveries/retry')
        .set(owner.auth)
        .send({ deliveryId: failed.id })
        .expect(200)
    ).body as WebhookDelivery;
    expect(resent).toMatchObject({ status: 'succeeded', attemptCount: 2 });
    expect(r.received.at(-1)!.id).toBe(r.received.at(-2)!.id);
  }, 60_000);
});

describe('webhook sender', () => {
  it('refuses private addresses unless they are allowed, checked after DNS (injected)', async () => {
    const r = await new WebhookReceiver('x').start();
    try {
      const dns = fakeDns({ 'hook.rebind.test': ['127.0.0.1'] });
      const sender = new HttpWebhookSender(
        new OutboundPolicy({ allowPrivateNetworks: false, lookup: dns }),
      );
      const send = (url: string) => sender.send({ url, headers: {}, body: '{}', timeoutMs: 2000 });
      expect(await send(r.url)).toMatchObject({
        status: null,
        error:
          '127.0.0.1 is a private or reserved address: this server only connects to public addresses',
        refused: true,
      });
      expect(await send(r.url.replace('127.0.0.1', 'localhost'))).toMatchObject({
        status: null,
        error:
          'localhost is a private or reserved address: this server only connects to public addresses',
        refused: true,
      });
      expect(await send(r.url.replace('127.0.0.1', '[::ffff:127.0.0.1]'))).toMatchObject({
        status: null,
        refused: true,
      });
      expect(await send(r.url.replace('127.0.0.1', 'hook.rebind.test'))).toMatchObject({
        status: null,
        error:
          'hook.rebind.test is a private or reserved address: this server only connects to public addresses',
        refused: true,
      });
      expect(dns.asked).toEqual(['hook.rebind.test']);
      expect(r.received).toHaveLength(0);
      const allowed = await new HttpWebhookSender(
        new OutboundPolicy({ allowPrivateNetworks: true }),
      ).send({
        url: r.url,
        headers: {},
        body: '{"type":"x"}',
        // a bound, not what is tested: the receiver runs in this Jest worker, which CI runs at the
        // lowest priority beside the serial files (2 s once passed with no answer there)
        timeoutMs: 15_000,
      });
      expect(allowed).toMatchObject({ status: 200, error: null, body: 'answer 200' });
    } finally {
      await r.stop();
    }
  });

  it('describes a failure in its own words, never with what a non-HTTP server sent (switch on, loopback)', async () => {
    const server = createNetServer((s) => {
      s.on('error', () => undefined);
      s.resume();
      s.end('-ERR SECRET-BANNER redis_version:7.2.4\r\n');
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    try {
      const port = (server.address() as AddressInfo).port;
      const res = await new HttpWebhookSender(
        new OutboundPolicy({ allowPrivateNetworks: true }),
      ).send({ url: `http://127.0.0.1:${port}/`, headers: {}, body: '{}', timeoutMs: 2000 });
      expect(res).toMatchObject({
        status: null,
        error: 'Unexpected answer from the server (not HTTP)',
        body: null,
      });
      expect(JSON.stringify(res)).not.toContain('SECRET');
    } finally {
      await new Promise((ok) => server.close(ok));
    }
  });
});

describe('webhooks the outbound policy refuses are paused with the reason shown (PostgreSQL)', () => {
  it('pauses an endpoint saved with a private address when the server starts without the switch; enabling needs a public address', async () => {
    const db = await createTestDatabase();
    const shared = { DATABASE_URL: db.url, AUTH_SECRET: 'b'.repeat(64) };
    let t = await startTestApp({ env: { ...shared, OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } });
    try {
      const owner = await signUp(t.url);
      const stationId = await createStation(t.url, owner, 'Paused hooks');
      const hook = await addWebhook(t.url, owner, {
        stationId,
        url: 'http://127.0.0.1:6379/hook',
        events: ['station.live'],
      });
      expect(hook).toMatchObject({ enabled: true, pausedReason: null });
      await t.close();
      t = await startTestApp({ env: shared });
      const list = (
        await request(t.url).get(`/api/stations/${stationId}/webhooks`).set(owner.auth).expect(200)
      ).body as WebhooksResponse;
      expect(list.webhooks).toEqual([
        expect.objectContaining({
          id: hook.id,
          enabled: false,
          pausedReason:
            'Paused: 127.0.0.1 is a private or reserved address: this server only connects to public addresses',
        }),
      ]);
      const enable = await request(t.url)
        .post('/api/stations/webhooks/update')
        .set(owner.auth)
        .send({ webhookId: hook.id, enabled: true })
        .expect(400);
      expect(enable.body.fields).toEqual([
        {
          path: 'url',
          message:
            '127.0.0.1 is a private or reserved address: this server only connects to public addresses',
        },
      ]);
      const moved = await request(t.url)
        .post('/api/stations/webhooks/update')
        .set(owner.auth)
        .send({ webhookId: hook.id, url: 'https://hooks.example.com/radio' })
        .expect(200);
      expect(moved.body).toMatchObject({ enabled: true, pausedReason: null });
    } finally {
      await t.close();
      await db.drop();
    }
  }, 90_000);

  it('pauses an endpoint whose name resolves to a private address when it is sent to (DNS injected): no request is made', async () => {
    const db = await createTestDatabase();
    const config = testConfig({ DATABASE_URL: db.url });
    const dns = fakeDns({ 'hook.rebind.test': ['127.0.0.1'] });
    config.outbound.lookup = dns;
    const app = await createApp({ ...config, port: 0 });
    await app.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    const r = await new WebhookReceiver('').start();
    try {
      const owner = await signUp(url);
      const stationId = await createStation(url, owner, 'Rebind hooks');
      const hook = await addWebhook(url, owner, {
        stationId,
        url: r.url.replace('127.0.0.1', 'hook.rebind.test'),
        events: ['station.live'],
      });
      const test = (
        await request(url)
          .post('/api/stations/webhooks/test')
          .set(owner.auth)
          .send({ webhookId: hook.id })
          .expect(200)
      ).body as WebhookDelivery;
      const reason =
        'hook.rebind.test is a private or reserved address: this server only connects to public addresses';
      expect(test).toMatchObject({ status: 'failed' });
      expect(test.attempts).toEqual([
        expect.objectContaining({ responseStatus: null, error: reason, responseBody: null }),
      ]);
      const list = (
        await request(url).get(`/api/stations/${stationId}/webhooks`).set(owner.auth).expect(200)
      ).body as WebhooksResponse;
      expect(list.webhooks[0]).toMatchObject({ enabled: false, pausedReason: `Paused: ${reason}` });
      expect(dns.asked).toEqual(['hook.rebind.test']);
      expect(r.received).toHaveLength(0);
    } finally {
      await app.close();
      await r.stop();
      await db.drop();
    }
  }, 60_000);
});

describe('webhooks across API nodes and restarts', () => {
  it('delivers each event once with two nodes, and a retry survives the node that queued it', async () => {
    const db = await createTestDatabase();
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '2',
    };
    const base = testConfig(env);
    const start = async () => {
      const app = await createApp({ ...base, port: 0 });
      await app.listen(0, '127.0.0.1');
      return {
        app,
        url: `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`,
      };
    };
    const a = await start();
    const b = await start();
    const r = await new WebhookReceiver('').start();
    let aClosed = false;
    try {
      const owner = await signUp(a.url);
      const stationId = await createStation(a.url, owner, 'Two node hooks');
      const hook = await addWebhook(b.url, owner, {
        stationId,
        url: r.url,
        events: ['now_playing.changed'],
      });
      r.secret = hook.secret;
      for (let i = 0; i < 5; i++) {
        await request(i % 2 ? b.url : a.url)
          .post('/api/stations/now-playing')
          .set(owner.auth)
          .send({ stationId, track: `Track ${i}` })
          .expect(200);
      }
      await until(
        'five deliveries',
        () => r.received.length,
        (n) => n >= 5,
      );
      // Both nodes poll the queue for a while: still exactly one request per event.
      await holdsFor(() => r.received.length === 5, 2500, 'exactly five deliveries');
      expect(new Set(r.received.map((x) => x.id)).size).toBe(5);

      // The first attempt fails; the node that queued it goes away; the other one retries.
      r.script = [500];
      await request(a.url)
        .post('/api/stations/now-playing')
        .set(owner.auth)
        .send({ stationId, track: 'Survivor' })
        .expect(200);
      await until(
        'the failed attempt',
        () => r.received.length,
        (n) => n >= 6,
      );
      await a.app.close();
      aClosed = true;
      await until(
        'the retry from node B',
        () => r.received.length,
        (n) => n >= 7,
      );
      expect(r.received[6]!.id).toBe(r.received[5]!.id);
      expect(r.received[6]!.status).toBe(200);
      expect(r.received.every((x) => x.libraryVerified)).toBe(true);
      const log = await until(
        'the log on node B',
        () => deliveries(b.url, owner, hook.id),
        (l) => l[0]?.status === 'succeeded',
      );
      expect(log).toHaveLength(6);
    } finally {
      await r.stop();
      if (!aClosed) await a.app.close();
      await b.app.close();
      await db.drop();
    }
  }, 90_000);
});
