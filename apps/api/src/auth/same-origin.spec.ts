import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreateStationResponse } from '@radiobroadcaster/contracts';
import request from 'supertest';
import { StationsService } from '../stations/stations.service.js';
import { freeLoopbackPort, startTestApp, type TestApp } from '../../testing/test-app.js';
import { newUserBody, sessionCookie } from '../../testing/auth-helpers.js';

describe('same-origin requests are trusted whatever PUBLIC_URL says; other origins are not', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    port = await freeLoopbackPort();
    // The start-up log prints http://127.0.0.1:PORT while PUBLIC_URL names localhost.
    t = await startTestApp({
      port,
      env: { PORT: String(port), PUBLIC_URL: `http://localhost:${port}` },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('signs up and signs in from a page opened at 127.0.0.1 while PUBLIC_URL says localhost', async () => {
    const origin = `http://127.0.0.1:${port}`;
    const body = newUserBody();
    const up = await request(t.url)
      .post('/api/auth/sign-up/email')
      .set('Origin', origin)
      .send(body)
      .expect(200);
    await request(t.url)
      .post('/api/auth/update-user')
      .set('Cookie', sessionCookie(up))
      .set('Origin', origin)
      .send({ name: 'Renamed' })
      .expect(200);
    await request(t.url)
      .post('/api/auth/sign-in/email')
      .set('Origin', origin)
      .send({ email: body.email, password: body.password })
      .expect(200);
  });

  it('trusts the origin the request addressed (scheme and Host), and still refuses any other', async () => {
    const host = 'radio-staging.example';
    const up = await request(t.url)
      .post('/api/auth/sign-up/email')
      .set('Host', host)
      .set('Origin', `http://${host}`)
      .send(newUserBody())
      .expect(200);
    const cookie = sessionCookie(up);
    await request(t.url)
      .post('/api/auth/update-user')
      .set('Host', host)
      .set('Cookie', cookie)
      .set('Origin', `http://${host}`)
      .send({ name: 'Same origin' })
      .expect(200);
    for (const origin of [
      `https://${host}`,
      'http://evil.example',
      `http://${host}.evil.example`,
    ]) {
      const res = await request(t.url)
        .post('/api/auth/update-user')
        .set('Host', host)
        .set('Cookie', cookie)
        .set('Origin', origin)
        .send({ name: 'Cross site' })
        .expect(403);
      expect(res.body).toEqual({ error: 'Forbidden', message: 'Cross-site request refused' });
    }
    await request(t.url)
      .post('/api/auth/sign-in/email')
      .set('Host', host)
      .set('Origin', 'http://evil.example')
      .send({ email: 'a@example.com', password: 'whatever1' })
      .expect(403);
  });

  it('ignores X-Forwarded-Host and -Proto without TRUST_PROXY', async () => {
    await request(t.url)
      .post('/api/auth/sign-up/email')
      .set('X-Forwarded-Host', 'front.example')
      .set('X-Forwarded-Proto', 'https')
      .set('Origin', 'https://front.example')
      .send(newUserBody())
      .expect(403);
  });

  it('builds the join response URLs from the public origin, never from an unknown Host', async () => {
    const user = await request(t.url).post('/api/auth/sign-up/email').send(newUserBody());
    const created = (
      await request(t.url)
        .post('/api/stations')
        .set('Authorization', `Bearer ${user.body.token}`)
        .send({ name: 'Host header' })
        .expect(201)
    ).body as CreateStationResponse;
    const stationId = created.station.id;
    await t.app.get(StationsService).transition(stationId, 'live', true, true);
    const join = (host: string) =>
      request(t.url).post('/api/joinStationAsReceiver').set('Host', host).send({ stationId });
    const evil = await join('evil.example').expect(200);
    expect(evil.body.whepUrl).toBe(`http://localhost:${port}/whep/${stationId}`);
    const loopback = await join(`127.0.0.1:${port}`).expect(200);
    expect(loopback.body.whepUrl).toBe(`http://127.0.0.1:${port}/whep/${stationId}`);
  });
});

describe('behind a proxy (TRUST_PROXY)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { PUBLIC_URL: 'https://radio.example', TRUST_PROXY: 'true' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('takes the request origin from X-Forwarded-Proto and -Host', async () => {
    await request(t.url)
      .post('/api/auth/sign-up/email')
      .set('X-Forwarded-Host', 'front.example')
      .set('X-Forwarded-Proto', 'https')
      .set('Origin', 'https://front.example')
      .send(newUserBody())
      .expect(200);
    await request(t.url)
      .post('/api/auth/sign-up/email')
      .set('X-Forwarded-Host', 'front.example')
      .set('X-Forwarded-Proto', 'https')
      .set('Origin', 'http://front.example')
      .send(newUserBody())
      .expect(403);
  });
});
