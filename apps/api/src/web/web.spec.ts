import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreateStationResponse } from '@radiobroadcaster/contracts';
import request from 'supertest';
import { signUp, startTestApp, type TestApp, type TestUser } from '../../testing/test-app.js';

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

  it('serves the app with the site title at / and its pages', async () => {
    for (const path of [
      '/',
      '/about',
      '/settings/account',
      '/tutorials/',
      `/${owner.username}`,
      `/${owner.username}/night-owls/replays/3f1c2a4e-1111-4222-8333-444455556666`,
    ]) {
      const res = await request(t.url).get(path).expect(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.text).toContain('<div id="root"></div>');
    }
    const home = await request(t.url).get('/').expect(200);
    expect(home.text).toContain('<title>Radio Broadcaster</title>');
    expect(home.headers['x-frame-options']).toBe('SAMEORIGIN');
  });

  it.each([
    ['an unknown route', '/some/unknown/page', 'Not Found'],
    ['a reserved name', '/test-media-session', 'User not found'],
    ['a file-like name', '/logo.png', 'User not found'],
    ['the assets folder itself', '/assets/', 'User not found'],
    ['an unknown user', '/no-such-user-here', 'User not found'],
    ['an unknown user, trailing slash', '/no-such-user-here/', 'User not found'],
    ['an unknown station', '/OWNER/no-such-station', 'Station not found'],
    ['an unknown station id', '/station/3f1c2a4e-1111-4222-8333-444455556666', 'Station not found'],
    ['a malformed station id', '/station/nope', 'Station not found'],
    ['an unknown embed', '/embed/OWNER/no-such-station', 'Station not found'],
    ['an unknown tutorial', '/tutorials/nope', 'Tutorial not found'],
    ['a replay of an unknown station', '/OWNER/nope/replays/x', 'Replay not found'],
  ])('answers %s (%s) with 404 and the app, titled %s', async (_what, path, title) => {
    const res = await request(t.url).get(path.replace('OWNER', owner.username)).expect(404);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('<div id="root"></div>');
    expect(res.text).toContain(`<title>${title} | Radio Broadcaster</title>`);
    expect(res.text).toContain('<meta name="robots" content="noindex" />');
  });

  it('answers a missing build file with a plain 404, never the app', async () => {
    for (const path of ['/assets/index-missing.js', '/assets/nope.css', '/assets/a/b.js']) {
      const res = await request(t.url).get(path).expect(404);
      expect(res.text).not.toContain('<div id="root">');
    }
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
    // The same hosts the join check allows: any port (a source without one means 80/443 only),
    // and this site's own configured origins.
    const csp = closed.headers['content-security-policy'] as string;
    expect(csp).toMatch(
      /frame-ancestors 'self' (http:\/\/\S+ )+https:\/\/blog\.example\.com:\* http:\/\/blog\.example\.com:\*(;|$)/,
    );
    expect(csp).toContain(` ${t.url} `);
    // Framed by a listed site, or by the site itself: the player, with the strict list.
    for (const referer of ['https://blog.example.com/post', `${t.url}/embed`]) {
      const framed = await request(t.url)
        .get(`/embed/${owner.username}/night-owls`)
        .set('Sec-Fetch-Dest', 'iframe')
        .set('Referer', referer)
        .expect(200);
      expect(framed.headers['content-security-policy']).toContain(
        'https://blog.example.com:* http://blog.example.com:*',
      );
      expect(framed.text).not.toContain('rb-embed-refused');
    }
    // Framed by another site: a page any site may show, which says why it does not play.
    const refused = await request(t.url)
      .get(`/embed/${owner.username}/night-owls`)
      .set('Sec-Fetch-Dest', 'iframe')
      .set('Referer', 'https://evil.example.net/page')
      .expect(403);
    expect(refused.headers['content-security-policy']).toContain('frame-ancestors *');
    expect(refused.headers.vary).toBe('Sec-Fetch-Dest, Referer');
    expect(refused.text).toContain('<meta name="rb-embed-refused" content="evil.example.net" />');
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
