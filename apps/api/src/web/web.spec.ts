import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreateStationResponse } from '@radiobroadcaster/contracts';
import request from 'supertest';
import { signUp, startTestApp, type TestApp, type TestUser } from '../testing/test-app.js';

describe('serving the web app', () => {
  let t: TestApp;
  let owner: TestUser;
  let stationId: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { DISCORD_URL: 'https://discord.example/invite' } });
    owner = await signUp(t.url);
    const created = (
      await request(t.url)
        .post('/api/stations')
        .set(owner.auth)
        .send({ name: 'Night <Owls>', description: 'Jazz "after" dark' })
        .expect(201)
    ).body as CreateStationResponse;
    stationId = created.station.id;
  });
  afterAll(async () => {
    await t.close();
  });

  it('serves the app with the site title at / and unknown pages (SPA fallback)', async () => {
    for (const path of ['/', '/about', '/some/unknown/page']) {
      const res = await request(t.url).get(path).expect(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.text).toContain('<div id="root"></div>');
    }
    const home = await request(t.url).get('/').expect(200);
    expect(home.text).toContain('<title>Radio Broadcaster</title>');
    expect(home.headers['x-frame-options']).toBe('SAMEORIGIN');
  });

  it('puts the station title, description and social tags in the HTML it sends, escaped', async () => {
    const res = await request(t.url).get(`/${owner.username}/night-owls`).expect(200);
    const title = `Night &lt;Owls&gt; by @${owner.username} | Radio Broadcaster`;
    expect(res.text).toContain(`<title>${title}</title>`);
    expect(res.text).toContain(`<meta property="og:title" content="${title}" />`);
    expect(res.text).toContain('<meta name="description" content="Jazz &quot;after&quot; dark" />');
    expect(res.text).not.toContain('<Owls>');
    expect((res.text.match(/<title>/g) ?? []).length).toBe(1);
    const byId = await request(t.url).get(`/station/${stationId}`).expect(200);
    expect(byId.text).toContain(`<title>${title}</title>`);
  });

  it('lets anyone frame the embed page until the owner lists domains, then only those', async () => {
    const open = await request(t.url).get(`/embed/${owner.username}/night-owls`).expect(200);
    expect(open.headers['content-security-policy']).toContain('frame-ancestors *');
    expect(open.headers['x-frame-options']).toBeUndefined();
    await request(t.url)
      .post('/api/me/allowed-domains')
      .set(owner.auth)
      .send({ domain: 'blog.example.com' })
      .expect(201);
    const closed = await request(t.url).get(`/embed/${owner.username}/night-owls`).expect(200);
    expect(closed.headers['content-security-policy']).toContain(
      "frame-ancestors 'self' https://blog.example.com http://blog.example.com",
    );
    const demo = await request(t.url).get('/embed/radiobroadcaster/demo').expect(200);
    expect(demo.text).toContain(
      '<title>Radio Broadcaster Demo by @radiobroadcaster | Radio Broadcaster</title>',
    );
  });

  it('redirects /app-store, /appstore, /review, /press and /discord with 302', async () => {
    for (const path of ['/app-store', '/appstore', '/review', '/press', '/discord']) {
      const res = await request(t.url).get(path).expect(302);
      expect(res.headers.location).toMatch(/^https:\/\//);
    }
    expect((await request(t.url).get('/discord').expect(302)).headers.location).toBe(
      'https://discord.example/invite',
    );
  });

  it('keeps unknown API paths as JSON 404s', async () => {
    const res = await request(t.url).get('/api/nope').expect(404);
    expect(res.body.error).toBe('NotFound');
  });

  it('lets other sites read public stations and join, without credentials', async () => {
    const pre = await request(t.url)
      .options('/api/joinStationAsReceiver')
      .set('Origin', 'https://blog.example.com')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type')
      .expect(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    expect(pre.headers['access-control-allow-headers']).toContain('Content-Type');
    expect(pre.headers['access-control-allow-credentials']).toBeUndefined();
    const get = await request(t.url)
      .get(`/api/stations/${stationId}`)
      .set('Origin', 'https://blog.example.com')
      .expect(200);
    expect(get.headers['access-control-allow-origin']).toBe('*');
    const mine = await request(t.url)
      .get('/api/me/allowed-domains')
      .set('Origin', 'https://blog.example.com')
      .set(owner.auth);
    expect(mine.headers['access-control-allow-origin']).toBeUndefined();
  });
});
