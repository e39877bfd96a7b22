import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { startTestApp, type TestApp } from '../../testing/test-app.js';
import { newUserBody } from '../../testing/auth-helpers.js';

describe.each([
  ['in memory', false],
  ['in Redis', true],
])('sign-in and sign-up rate limit per client IP (%s)', (_label, redis) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ redis, env: { RATE_LIMIT_AUTH_PER_MINUTE: '3' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers 429 TooManyRequests with Retry-After after 3 sign-in attempts a minute', async () => {
    const attempt = () =>
      request(t.url)
        .post('/api/auth/sign-in/email')
        .send({ email: 'nobody@example.com', password: 'wrong password' });
    for (let i = 0; i < 3; i++) await attempt().expect(401);
    const res = await attempt().expect(429);
    expect(res.body).toEqual({
      error: 'TooManyRequests',
      message: expect.stringMatching(/try again/),
    });
    const retryAfter = Number(res.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Malformed attempts count too, and are refused before validation.
    await request(t.url).post('/api/auth/sign-in/email').send({}).expect(429);
  });

  it('limits sign-up the same way', async () => {
    for (let i = 0; i < 3; i++)
      await request(t.url).post('/api/auth/sign-up/email').send(newUserBody()).expect(200);
    const res = await request(t.url)
      .post('/api/auth/sign-up/email')
      .send(newUserBody())
      .expect(429);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
  });
});
