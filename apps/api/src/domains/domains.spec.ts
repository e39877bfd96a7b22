import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { LIMITS } from '@radiobroadcaster/contracts';
import request from 'supertest';
import { signUp, startTestApp, type TestApp, type TestUser } from '../../testing/test-app.js';

describe('allowed domains API (PostgreSQL)', () => {
  let t: TestApp;
  let user: TestUser;
  let other: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    user = await signUp(t.url);
    other = await signUp(t.url);
  });
  afterAll(async () => {
    await t.close();
  });

  it('requires a session for every call', async () => {
    for (const r of [
      request(t.url).get('/api/me/allowed-domains'),
      request(t.url).post('/api/me/allowed-domains').send({ domain: 'example.com' }),
      request(t.url).delete('/api/me/allowed-domains/example.com'),
    ]) {
      const res = await r.expect(401);
      expect(res.body.error).toBe('Unauthorized');
    }
  });

  it('adds normalised domains, once each', async () => {
    const a = await request(t.url)
      .post('/api/me/allowed-domains')
      .set(user.auth)
      .send({ domain: 'HTTPS://Www.Example.com:8080/page' })
      .expect(201);
    expect(a.body).toEqual({ domain: 'www.example.com', createdAt: expect.any(String) });
    const again = await request(t.url)
      .post('/api/me/allowed-domains')
      .set(user.auth)
      .send({ domain: 'www.example.com.' })
      .expect(200);
    expect(again.body.domain).toBe('www.example.com');
    await request(t.url)
      .post('/api/me/allowed-domains')
      .set(user.auth)
      .send({ domain: '*.Blog.example.org' })
      .expect(201);
    await request(t.url)
      .post('/api/me/allowed-domains')
      .set(user.auth)
      .send({ domain: 'bücher.de' })
      .expect(201);
    const list = await request(t.url).get('/api/me/allowed-domains').set(user.auth).expect(200);
    expect(list.body.domains.map((d: { domain: string }) => d.domain)).toEqual([
      '*.blog.example.org',
      'www.example.com',
      'xn--bcher-kva.de',
    ]);
  });

  it('keeps lists per user', async () => {
    const list = await request(t.url).get('/api/me/allowed-domains').set(other.auth).expect(200);
    expect(list.body).toEqual({ domains: [] });
  });

  it('refuses what is not a hostname with a 400 that says why, and unknown fields', async () => {
    const res = await request(t.url)
      .post('/api/me/allowed-domains')
      .set(user.auth)
      .send({ domain: 'not a domain' })
      .expect(400);
    expect(res.body).toMatchObject({
      error: 'ValidationError',
      message: 'A domain cannot contain spaces',
    });
    const ip = await request(t.url)
      .post('/api/me/allowed-domains')
      .set(user.auth)
      .send({ domain: '10.0.0.1' })
      .expect(400);
    expect(ip.body.message).toContain('IP addresses');
    for (const domain of ['*.co.uk', 'co.uk', '*.github.io']) {
      const suffix = await request(t.url)
        .post('/api/me/allowed-domains')
        .set(user.auth)
        .send({ domain })
        .expect(400);
      expect(suffix.body.message).toContain('is a public suffix shared by unrelated sites');
    }
    await request(t.url).post('/api/me/allowed-domains').set(user.auth).send({}).expect(400);
    await request(t.url)
      .post('/api/me/allowed-domains')
      .set(user.auth)
      .send({ domain: 'a.com', extra: 1 })
      .expect(400);
  });

  it('removes a domain, and 404s one that is not there', async () => {
    await request(t.url)
      .delete('/api/me/allowed-domains/www.example.com')
      .set(user.auth)
      .expect(204);
    const res = await request(t.url)
      .delete('/api/me/allowed-domains/www.example.com')
      .set(user.auth)
      .expect(404);
    expect(res.body.error).toBe('NotFound');
    await request(t.url)
      .delete(`/api/me/allowed-domains/${encodeURIComponent('*.blog.example.org')}`)
      .set(other.auth)
      .expect(404);
    const list = await request(t.url).get('/api/me/allowed-domains').set(user.auth).expect(200);
    expect(list.body.domains.map((d: { domain: string }) => d.domain)).toEqual([
      '*.blog.example.org',
      'xn--bcher-kva.de',
    ]);
  });

  it('allows at most 100 domains per user', async () => {
    const fresh = await signUp(t.url);
    for (let i = 0; i < 100; i++) {
      await request(t.url)
        .post('/api/me/allowed-domains')
        .set(fresh.auth)
        .send({ domain: `site${i}.example.com` })
        .expect(201);
    }
    const res = await request(t.url)
      .post('/api/me/allowed-domains')
      .set(fresh.auth)
      .send({ domain: 'one-more.example.com' })
      .expect(409);
    expect(res.body.message).toContain('100');
  });

  it('holds the 100-domain cap when 150 adds race', async () => {
    const fresh = await signUp(t.url);
    const statuses = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        request(t.url)
          .post('/api/me/allowed-domains')
          .set(fresh.auth)
          .send({ domain: `race${i}.example.com` })
          .then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 201)).toHaveLength(LIMITS.allowedDomainsPerUser);
    expect(statuses.filter((s) => s === 409)).toHaveLength(150 - LIMITS.allowedDomainsPerUser);
    const list = await request(t.url).get('/api/me/allowed-domains').set(fresh.auth).expect(200);
    expect(list.body.domains).toHaveLength(LIMITS.allowedDomainsPerUser);
  });
});
