import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { signUp, startTestApp, type TestApp } from '../../testing/test-app.js';

const MISSING_STATION = '00000000-0000-4000-8000-000000000000';
const SDP = 'v=0\r\n';

describe('rate limits held in Redis are shared by every API node', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    // Two nodes of one cluster: same Redis, same key prefix, each with its own database.
    const env = {
      RATE_LIMIT_AUTH_PER_MINUTE: '3',
      EVENT_PREFIX: `rl-${randomBytes(4).toString('hex')}`,
    };
    [a, b] = await Promise.all([
      startTestApp({ redis: true, env }),
      startTestApp({ redis: true, env }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it('refuses the 4th sign-in attempt a minute on node B after 3 on node A and B together', async () => {
    const attempt = (t: TestApp) =>
      request(t.url)
        .post('/api/auth/sign-in/email')
        .send({ email: 'nobody@example.com', password: 'wrong password' });
    await attempt(a).expect(401);
    await attempt(b).expect(401);
    await attempt(a).expect(401);
    const res = await attempt(b).expect(429);
    expect(res.body).toEqual({
      error: 'TooManyRequests',
      message: expect.stringMatching(/^Too many attempts, try again in \d+ seconds$/),
    });
    await attempt(a).expect(429);
  });
});

describe('publishing and listening limits (WHIP, token refresh, join, WHEP)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      env: { RATE_LIMIT_PUBLISH_PER_MINUTE: '2', RATE_LIMIT_JOIN_PER_MINUTE: '2', SFU_SHARDS: '0' },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  /** Two answers the route gives normally, then 429 with Retry-After and our error body. */
  async function expectLimited(send: () => request.Test, normal: number): Promise<void> {
    await send().expect(normal);
    await send().expect(normal);
    const res = await send().expect(429);
    expect(res.body.error).toBe('TooManyRequests');
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  }

  it('limits WHIP offers', async () => {
    await expectLimited(
      () =>
        request(t.url)
          .post(`/whip/${MISSING_STATION}`)
          .set('Content-Type', 'application/sdp')
          .set('Authorization', 'Bearer not-a-token')
          .send(SDP),
      401,
    );
  });

  it('limits station token refreshes, counted apart from WHIP', async () => {
    const user = await signUp(t.url);
    await expectLimited(
      () =>
        request(t.url)
          .post('/api/stations/token/refresh')
          .set(user.auth)
          .send({ stationId: MISSING_STATION }),
      404,
    );
  });

  it('limits joins and WHEP offers, each on its own count', async () => {
    await expectLimited(
      () => request(t.url).post('/api/joinStationAsReceiver').send({ stationId: MISSING_STATION }),
      404,
    );
    await expectLimited(
      () =>
        request(t.url)
          .post(`/whep/${MISSING_STATION}`)
          .set('Content-Type', 'application/sdp')
          .send(SDP),
      404,
    );
  });
});
