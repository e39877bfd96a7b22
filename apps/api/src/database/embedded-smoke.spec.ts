import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreateStationResponse } from '@radiobroadcaster/contracts';
import request from 'supertest';
import { StatsRollup } from '../stats/stats-rollup.js';
import { signUp, startTestApp, type TestApp } from '../../testing/test-app.js';

/** The same flows as the PostgreSQL suites, on embedded PGlite through pglite-socket. */
describe('smoke on embedded PGlite', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ embedded: true });
  }, 90_000); // PGlite's first start on a busy machine
  afterAll(async () => {
    await t.close();
  });

  it('runs the station, profile, domain and join flows', async () => {
    const owner = await signUp(t.url);
    const intruder = await signUp(t.url);
    const created = (
      await request(t.url)
        .post('/api/stations')
        .set(owner.auth)
        .send({ name: 'Embedded FM' })
        .expect(201)
    ).body as CreateStationResponse;
    const id = created.station.id;
    expect(created.station.slug).toBe('embedded-fm');
    await request(t.url)
      .post('/api/stations')
      .set(owner.auth)
      .send({ name: 'Embedded FM' })
      .expect(409);
    await request(t.url)
      .post('/api/stations/update')
      .set(intruder.auth)
      .send({ stationId: id, name: 'x' })
      .expect(403);
    const np = await request(t.url)
      .post('/api/stations/now-playing')
      .set(owner.auth)
      .send({ stationId: id, track: 'T', artist: 'A', album: 'B' })
      .expect(200);
    expect(np.body.nowPlaying).toEqual({ track: 'T', artist: 'A', album: 'B' });
    expect(
      (await request(t.url).get(`/api/users/${owner.username}/stations/embedded-fm`).expect(200))
        .body.id,
    ).toBe(id);
    expect(
      (await request(t.url).get('/api/stations/discover').expect(200)).body.stations,
    ).toHaveLength(1);
    await request(t.url).get('/api/stations/bad-id').expect(400);
    await request(t.url)
      .post('/api/me/allowed-domains')
      .set(owner.auth)
      .send({ domain: 'Example.com' })
      .expect(201);
    expect(
      (await request(t.url).get('/api/me/allowed-domains').set(owner.auth).expect(200)).body
        .domains,
    ).toEqual([{ domain: 'example.com', createdAt: expect.any(String) }]);
    const join = await request(t.url)
      .post('/api/joinStationAsReceiver')
      .send({ stationId: id })
      .expect(409);
    expect(join.body.error).toBe('STATION_NOT_ACTIVE');
    await request(t.url)
      .post('/api/stations/end')
      .set(owner.auth)
      .send({ stationId: id })
      .expect(200);
  });

  it('serializes concurrent transactions through its single connection without losing writes', async () => {
    const owner = await signUp(t.url);
    const names = Array.from({ length: 12 }, (_, i) => `Parallel ${i}`);
    const results = await Promise.all(
      names.map((name) => request(t.url).post('/api/stations').set(owner.auth).send({ name })),
    );
    expect(results.map((r) => r.status)).toEqual(names.map(() => 201));
    const list = await request(t.url).get(`/api/users/${owner.username}/stations`).expect(200);
    expect(list.body.stations).toHaveLength(12);
  });

  it('runs a stats rollup on its single connection and still answers afterwards', async () => {
    await t.app.get(StatsRollup).run();
    const health = await request(t.url).get('/health').expect(200);
    expect(health.body.checks.database.status).toBe('up');
  });
});
