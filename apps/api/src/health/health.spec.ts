import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { startTestApp, type TestApp } from '../../testing/test-app.js';

describe('GET /health', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ redis: true });
  });
  afterAll(async () => {
    await t.close();
  });

  it('reports the database and the event bus up', async () => {
    const res = await request(t.url).get('/health').expect(200);
    expect(res.body).toEqual({
      status: 'ok',
      checks: { database: { status: 'up' }, eventBus: { status: 'up' } },
    });
  });

  it('answers 404 NotFound as JSON for an unknown route', async () => {
    const res = await request(t.url).get('/api/no-such-route').expect(404);
    expect(res.body.error).toBe('NotFound');
  });

  it('serves the OpenAPI document with the product routes at /api/docs', async () => {
    await request(t.url).get('/api/docs').expect(200);
    const doc = await request(t.url).get('/api/docs-json').expect(200);
    const paths = Object.keys(doc.body.paths as object);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/api/stations/discover',
        '/api/stations/{id}',
        '/api/joinStationAsReceiver',
        '/api/me/allowed-domains',
        '/api/users/{username}/stations/{slug}',
        '/whip/{stationId}',
      ]),
    );
    // every reference names a schema the document defines: a handler's parameter typed by a contract
    // name that is also its schema's (`body: X`, not `Parsed<typeof X>`) made swc-compiled code
    // (the tests' transform) reference a nameless schema here
    const refs = [
      ...JSON.stringify(doc.body).matchAll(/"\$ref":"#\/components\/schemas\/([^"]*)"/g),
    ];
    const schemas = (doc.body.components?.schemas ?? {}) as Record<string, unknown>;
    expect(refs.map(([, name]) => name).filter((name) => !(name in schemas))).toEqual([]);
  });

  it('reports 503 when the database is down', async () => {
    const down = await startTestApp();
    try {
      const { DataSource } = await import('typeorm');
      await down.app.get(DataSource).destroy();
      const res = await request(down.url).get('/health').expect(503);
      expect(res.body.checks.database.status).toBe('down');
      expect(res.body.checks.eventBus.status).toBe('up');
    } finally {
      await down.close().catch(() => undefined);
    }
  });
});
