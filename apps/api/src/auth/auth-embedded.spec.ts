import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { startTestApp, type TestApp } from '../../testing/test-app.js';
import { newUserBody, sessionCookie } from '../../testing/auth-helpers.js';

describe('/api/auth smoke on embedded PGlite', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ embedded: true });
  }, 90_000); // PGlite's first start on a busy machine
  afterAll(async () => {
    await t.close();
  });

  it('signs up, reads the session, signs out and is then refused', async () => {
    const body = newUserBody();
    const up = await request(t.url).post('/api/auth/sign-up/email').send(body).expect(200);
    const cookie = sessionCookie(up);
    const s = await request(t.url).get('/api/auth/get-session').set('Cookie', cookie).expect(200);
    expect(s.body.user).toMatchObject({ id: up.body.user.id, username: body.username });
    const origin = new URL(t.config.publicUrl).origin;
    await request(t.url)
      .post('/api/auth/sign-out')
      .set('Cookie', cookie)
      .set('Origin', origin)
      .expect(200);
    const after = await request(t.url)
      .get('/api/auth/get-session')
      .set('Authorization', `Bearer ${up.body.token}`)
      .expect(200);
    expect(after.body).toBeNull();
    await request(t.url)
      .post('/api/auth/sign-out')
      .set('Cookie', cookie)
      .set('Origin', origin)
      .expect(401);
  });
});
