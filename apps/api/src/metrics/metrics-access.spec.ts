import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { startTestApp, type TestApp } from '../../testing/test-app.js';

describe('/metrics is not public', () => {
  let open: TestApp;
  let tokened: TestApp;
  const TOKEN = 'metrics-token-0123456789';
  beforeAll(async () => {
    [open, tokened] = await Promise.all([
      startTestApp(),
      startTestApp({ env: { METRICS_TOKEN: TOKEN } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([open.close(), tokened.close()]);
  });

  it('answers a client on this machine that reaches it directly', async () => {
    const res = await request(open.url).get('/metrics').expect(200);
    expect(res.text).toMatch(/^rb_nodejs_version_info/m);
    // the SFU's fast paths into werift/Node internals, all active on the supported Node versions
    for (const path of ['udp_handle_send', 'udp_sync_lookup', 'werift_patches']) {
      expect(res.text).toContain(`rb_sfu_fast_path{path="${path}"} 1`);
    }
  });

  it('refuses anything that came through a proxy', async () => {
    for (const [h, v] of [
      ['X-Forwarded-For', '203.0.113.9'],
      ['Forwarded', 'for=203.0.113.9'],
    ] as const) {
      const res = await request(open.url).get('/metrics').set(h, v).expect(403);
      expect(res.body.error).toBe('Forbidden');
      expect(res.text).not.toMatch(/nodejs/);
    }
  });

  it('needs the bearer token when METRICS_TOKEN is set, from anywhere', async () => {
    await request(tokened.url).get('/metrics').expect(401);
    await request(tokened.url)
      .get('/metrics')
      .set('Authorization', 'Bearer metrics-token-0123456788')
      .expect(401);
    await request(tokened.url)
      .get('/metrics')
      .set('Authorization', `Bearer ${TOKEN}`)
      .set('X-Forwarded-For', '203.0.113.9')
      .expect(200);
  });
});

describe('/api/docs', () => {
  it('is off in production unless API_DOCS turns it on, and always sent with a strict CSP', async () => {
    const prod = await startTestApp({ env: { NODE_ENV: 'production' } });
    const prodDocs = await startTestApp({ env: { NODE_ENV: 'production', API_DOCS: 'true' } });
    try {
      await request(prod.url).get('/api/docs').expect(404);
      await request(prod.url).get('/api/docs-json').expect(404);
      const res = await request(prodDocs.url).get('/api/docs').expect(200);
      const csp = res.headers['content-security-policy'] as string;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
    } finally {
      await Promise.all([prod.close(), prodDocs.close()]);
    }
  });
});
