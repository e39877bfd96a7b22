/**
 * Web Push to followers against a push service this test runs on loopback: each go-live sends one
 * message per subscription, whose VAPID signature (RFC 8292) verifies with the configured key and
 * whose aes128gcm payload (RFC 8291) decrypts with the subscription's own keys; an expired
 * subscription (410) is removed; endpoints on private addresses are refused.
 */
import {
  createDecipheriv,
  createECDH,
  createPublicKey,
  hkdfSync,
  randomBytes,
  verify,
} from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreateStationResponse } from '@radiobroadcaster/contracts';
import request from 'supertest';
import { DataSource } from 'typeorm';
import webpush from 'web-push';
import { holdsFor, waitUntil } from '../../../../test/support/wait.js';
import { StationsService } from '../stations/stations.service.js';
import { signUp, startTestApp, type TestApp, type TestUser } from '../../testing/test-app.js';

const b64u = (b: Buffer) => b.toString('base64url');

/** A browser's side of a subscription: its key pair and auth secret. */
function browserKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return { ecdh, auth, json: { p256dh: b64u(ecdh.getPublicKey()), auth: b64u(auth) } };
}

/** RFC 8291 decryption, as a browser does it. */
function decrypt(body: Buffer, keys: ReturnType<typeof browserKeys>): string {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20]!;
  const asPublic = body.subarray(21, 21 + idlen);
  const record = body.subarray(21 + idlen);
  expect(record.length).toBeLessThanOrEqual(rs);
  const secret = keys.ecdh.computeSecret(asPublic);
  const keyInfo = Buffer.concat([
    Buffer.from('WebPush: info\0'),
    keys.ecdh.getPublicKey(),
    asPublic,
  ]);
  const ikm = Buffer.from(hkdfSync('sha256', secret, keys.auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, 'Content-Encoding: aes128gcm\0', 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, 'Content-Encoding: nonce\0', 12));
  const d = createDecipheriv('aes-128-gcm', cek, nonce);
  d.setAuthTag(record.subarray(record.length - 16));
  const plain = Buffer.concat([d.update(record.subarray(0, record.length - 16)), d.final()]);
  // The last record ends with the delimiter 0x02 then zero padding.
  const end = plain.lastIndexOf(2);
  expect(plain.subarray(end + 1).every((b) => b === 0)).toBe(true);
  return plain.subarray(0, end).toString('utf8');
}

/** RFC 8292: `vapid t=<JWT>, k=<public key>`, the JWT signed ES256 by that key. */
function verifyVapid(headers: IncomingHttpHeaders, publicKey: string, audience: string) {
  const m = /^vapid t=([^,]+),\s*k=(\S+)$/.exec(headers.authorization ?? '');
  expect(m).not.toBeNull();
  const [, jwt, k] = m!;
  expect(k).toBe(publicKey);
  const [h, p, s] = jwt!.split('.') as [string, string, string];
  expect(JSON.parse(Buffer.from(h, 'base64url').toString())).toEqual({ typ: 'JWT', alg: 'ES256' });
  const raw = Buffer.from(k!, 'base64url');
  const key = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: b64u(raw.subarray(1, 33)), y: b64u(raw.subarray(33, 65)) },
    format: 'jwk',
  });
  const ok = verify(
    'sha256',
    Buffer.from(`${h}.${p}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(s, 'base64url'),
  );
  expect(ok).toBe(true);
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as {
    aud: string;
    exp: number;
    sub: string;
  };
  expect(claims.aud).toBe(audience);
  expect(claims.exp * 1000).toBeGreaterThan(Date.now());
  expect(claims.exp * 1000).toBeLessThanOrEqual(Date.now() + 24 * 3_600_000);
  expect(claims.sub).toBe('mailto:push-test@radio.test');
}

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

describe('Web Push to followers', () => {
  const vapid = webpush.generateVAPIDKeys();
  const received: Received[] = [];
  let pushService: Server;
  let origin: string;
  let t: TestApp;
  let strict: TestApp;
  let owner: TestUser;
  let fan: TestUser;
  let stationId: string;
  const keys = browserKeys();

  beforeAll(async () => {
    pushService = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
        // An expired subscription, as push services answer for one.
        res.statusCode = req.url?.startsWith('/push/gone') ? 410 : 201;
        res.end();
      });
    });
    await new Promise<void>((ok) => pushService.listen(0, '127.0.0.1', ok));
    origin = `http://127.0.0.1:${(pushService.address() as { port: number }).port}`;
    const env = {
      VAPID_PUBLIC_KEY: vapid.publicKey,
      VAPID_PRIVATE_KEY: vapid.privateKey,
      VAPID_SUBJECT: 'mailto:push-test@radio.test',
    };
    // The push service is on loopback: this node may reach private addresses…
    t = await startTestApp({ env: { ...env, OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } });
    // …and this one, as in production, may not.
    strict = await startTestApp({ env });
    owner = await signUp(t.url);
    fan = await signUp(t.url);
    stationId = (
      (await request(t.url).post('/api/stations').set(owner.auth).send({ name: 'Push FM' }))
        .body as CreateStationResponse
    ).station.id;
    await request(t.url).post('/api/stations/follow').set(fan.auth).send({ stationId }).expect(200);
  });

  afterAll(async () => {
    await strict?.close();
    await t?.close();
    pushService?.close();
  });

  it('hands out the VAPID public key, the same as configured', async () => {
    const res = await request(t.url).get('/api/push/vapid-public-key').expect(200);
    expect(res.body).toEqual({ publicKey: vapid.publicKey });
  });

  it('refuses endpoints on private addresses, plain http, and bad keys', async () => {
    const strictFan = await signUp(strict.url);
    for (const endpoint of [
      'https://127.0.0.1/push/x',
      'https://10.1.2.3/push/x',
      'https://[::1]/push/x',
      'https://localhost/push/x',
      'http://push.example.com/x',
    ]) {
      const res = await request(strict.url)
        .post('/api/push/subscriptions')
        .set(strictFan.auth)
        .send({ endpoint, keys: keys.json })
        .expect(400);
      expect(res.body.fields[0].path).toBe('endpoint');
    }
    await request(strict.url)
      .post('/api/push/subscriptions')
      .set(strictFan.auth)
      .send({
        endpoint: 'https://push.example.com/x',
        keys: { p256dh: 'abc', auth: keys.json.auth },
      })
      .expect(400);
    await request(strict.url)
      .post('/api/push/subscriptions')
      .send({ endpoint: 'https://push.example.com/x', keys: keys.json })
      .expect(401);
  });

  it('one message per go-live per subscription, VAPID-signed and aes128gcm-encrypted; 410 removes the subscription', async () => {
    const gone = browserKeys();
    await request(t.url)
      .post('/api/push/subscriptions')
      .set(fan.auth)
      .send({ endpoint: `${origin}/push/ok-1`, keys: keys.json })
      .expect(204);
    await request(t.url)
      .post('/api/push/subscriptions')
      .set(fan.auth)
      .send({ endpoint: `${origin}/push/gone-1`, keys: gone.json })
      .expect(204);

    await t.app.get(StationsService).transition(stationId, 'live', true, true);
    await waitUntil(
      () =>
        received.some((r) => r.path === '/push/ok-1') &&
        received.some((r) => r.path === '/push/gone-1'),
      20_000,
      'the push messages',
    );
    const msg = received.find((r) => r.path === '/push/ok-1')!;
    expect(msg.headers['content-encoding']).toBe('aes128gcm');
    expect(msg.headers.ttl).toBe('3600');
    expect(msg.headers.urgency).toBe('high');
    verifyVapid(msg.headers, vapid.publicKey, origin);
    const payload = JSON.parse(decrypt(msg.body, keys)) as Record<string, string>;
    expect(payload).toEqual({
      title: 'Push FM is live',
      body: `@${owner.username} just went live. Tap to listen.`,
      url: expect.stringMatching(new RegExp(`/${owner.username}/push-fm$`)) as unknown as string,
      tag: `station:${stationId}`,
    });

    // The expired one is gone from the database; the live one stays.
    const db = t.app.get(DataSource);
    await waitUntil(
      async () =>
        (
          (await db.query(`SELECT endpoint FROM push_subscriptions WHERE user_id = $1`, [
            fan.id,
          ])) as { endpoint: string }[]
        )
          .map((r) => r.endpoint)
          .join() === `${origin}/push/ok-1`,
      15_000,
      'the expired subscription removed',
    );
    // Exactly one message per go-live.
    await holdsFor(
      () => received.filter((r) => r.path === '/push/ok-1').length === 1,
      3000,
      'one push per go-live',
    );
    expect(received.filter((r) => r.path === '/push/gone-1')).toHaveLength(1);
  });
});
