import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreateStationResponse, Relay, RelaysResponse } from '@radiobroadcaster/contracts';
import request from 'supertest';
import { signUp, startTestApp, type TestApp, type TestUser } from '../testing/test-app.js';
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
