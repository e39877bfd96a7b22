import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreateStationResponse, Station } from '@radiobroadcaster/contracts';
import request from 'supertest';
import { signUp, startTestApp, type TestApp, type TestUser } from '../../testing/test-app.js';
import { StationsService } from './stations.service.js';

describe('stations API (PostgreSQL)', () => {
  let t: TestApp;
  let owner: TestUser;
  let other: TestUser;
  let station: Station;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await signUp(t.url);
    other = await signUp(t.url);
  });
  afterAll(async () => {
    await t.close();
  });

  describe('POST /api/stations', () => {
    it('creates a station with a slug derived from the name and a station token', async () => {
      const res = await request(t.url)
        .post('/api/stations')
        .set(owner.auth)
        .send({ name: 'Café Del Mar — Live!', description: 'Sunset sounds' })
        .expect(201);
      const body = res.body as CreateStationResponse;
      station = body.station;
      expect(Object.keys(station).sort()).toEqual(
        [
          'id',
          'name',
          'slug',
          'description',
          'broadcasterId',
          'broadcaster',
          'isActive',
          'status',
          'viewerCount',
          'nowPlaying',
          'createdAt',
          'lastActiveAt',
          'coverUrl',
          'schedule',
          'visibility',
        ].sort(),
      );
      expect(station).toMatchObject({
        name: 'Café Del Mar — Live!',
        slug: 'cafe-del-mar-live',
        description: 'Sunset sounds',
        broadcasterId: owner.id,
        broadcaster: {
          id: owner.id,
          username: owner.username,
          name: `User ${owner.username}`,
          avatarUrl: null,
        },
        isActive: false,
        status: 'offline',
        viewerCount: 0,
        nowPlaying: null,
        lastActiveAt: null,
        coverUrl: null,
        schedule: '',
      });
      expect(body.streamToken.token).toMatch(/\./);
      expect(Date.parse(body.streamToken.expiresAt)).toBeGreaterThan(Date.now() + 50 * 60_000);
    });

    it('refuses a slug the broadcaster already uses with 409', async () => {
      const res = await request(t.url)
        .post('/api/stations')
        .set(owner.auth)
        .send({ name: 'Other', slug: 'cafe-del-mar-live' })
        .expect(409);
      expect(res.body).toEqual({
        error: 'Conflict',
        message: expect.stringContaining('cafe-del-mar-live'),
        fields: [{ path: 'slug', message: expect.stringContaining('Choose another slug') }],
      });
    });

    it('lets another broadcaster use the same slug', async () => {
      await request(t.url)
        .post('/api/stations')
        .set(other.auth)
        .send({ name: 'Cafe del Mar live' })
        .expect(201);
    });

    it('requires a session (401 Unauthorized)', async () => {
      const res = await request(t.url).post('/api/stations').send({ name: 'x' }).expect(401);
      expect(res.body.error).toBe('Unauthorized');
    });

    it('names the invalid and unknown fields (400)', async () => {
      const res = await request(t.url)
        .post('/api/stations')
        .set(owner.auth)
        .send({ name: '', slug: 'Bad Slug', colour: 'red' })
        .expect(400);
      expect(res.body.error).toBe('ValidationError');
      const paths = (res.body.fields as { path: string }[]).map((f) => f.path);
      expect(paths).toEqual(expect.arrayContaining(['name', 'slug', 'colour']));
    });

    it('refuses malformed JSON and oversized bodies with JSON errors', async () => {
      const bad = await request(t.url)
        .post('/api/stations')
        .set(owner.auth)
        .set('Content-Type', 'application/json')
        .send('{"name":')
        .expect(400);
      expect(bad.body.error).toBe('ValidationError');
      const big = await request(t.url)
        .post('/api/stations')
        .set(owner.auth)
        .send({ name: 'x', description: 'y'.repeat(200_000) })
        .expect(413);
      expect(big.body.error).toBe('PayloadTooLarge');
    });
  });

  describe('GET /api/stations/{id}', () => {
    it('returns the station', async () => {
      const res = await request(t.url).get(`/api/stations/${station.id}`).expect(200);
      expect(res.body).toEqual(station);
    });

    it('returns 404 StationNotFoundError for an unknown id', async () => {
      const res = await request(t.url)
        .get('/api/stations/7d0c4a8e-3f7b-4a51-9a55-6b1f4f3c2d10')
        .expect(404);
      expect(res.body).toEqual({ error: 'StationNotFoundError', message: 'Station not found' });
    });

    it('returns 400 for a non-UUID id, never a 500', async () => {
      const res = await request(t.url).get('/api/stations/not-a-uuid').expect(400);
      expect(res.body.error).toBe('ValidationError');
    });
  });

  describe('owner-only changes', () => {
    it('updates name and description (owner)', async () => {
      const res = await request(t.url)
        .post('/api/stations/update')
        .set(owner.auth)
        .send({ stationId: station.id, name: 'Café Del Mar', description: 'Chill' })
        .expect(200);
      expect(res.body).toMatchObject({
        id: station.id,
        name: 'Café Del Mar',
        description: 'Chill',
        slug: 'cafe-del-mar-live',
      });
    });

    it('refuses another user with 403 and an unknown station with 404', async () => {
      const res = await request(t.url)
        .post('/api/stations/update')
        .set(other.auth)
        .send({ stationId: station.id, name: 'Mine' })
        .expect(403);
      expect(res.body.error).toBe('Forbidden');
      await request(t.url)
        .post('/api/stations/update')
        .set(owner.auth)
        .send({ stationId: '7d0c4a8e-3f7b-4a51-9a55-6b1f4f3c2d10', name: 'x' })
        .expect(404);
      const unchanged = await request(t.url).get(`/api/stations/${station.id}`).expect(200);
      expect(unchanged.body.name).toBe('Café Del Mar');
    });

    it('sets and clears now playing', async () => {
      const set = await request(t.url)
        .post('/api/stations/now-playing')
        .set(owner.auth)
        .send({ stationId: station.id, track: 'Blue in Green', artist: 'Miles Davis' })
        .expect(200);
      expect(set.body.nowPlaying).toEqual({
        track: 'Blue in Green',
        artist: 'Miles Davis',
        album: null,
      });
      await request(t.url)
        .post('/api/stations/now-playing')
        .set(other.auth)
        .send({ stationId: station.id, track: 'x' })
        .expect(403);
      await request(t.url)
        .post('/api/stations/now-playing')
        .set(owner.auth)
        .send({ stationId: station.id })
        .expect(400);
      await request(t.url)
        .post('/api/stations/now-playing')
        .send({ stationId: station.id, track: 'x' })
        .expect(401);
      const cleared = await request(t.url)
        .post('/api/stations/now-playing/clear')
        .set(owner.auth)
        .send({ stationId: station.id })
        .expect(200);
      expect(cleared.body.nowPlaying).toBeNull();
      await request(t.url)
        .post('/api/stations/now-playing/clear')
        .set(other.auth)
        .send({ stationId: station.id })
        .expect(403);
    });

    it('issues a station token to the owner only', async () => {
      const res = await request(t.url)
        .post('/api/stations/token/refresh')
        .set(owner.auth)
        .send({ stationId: station.id })
        .expect(200);
      expect(res.body.token).toMatch(/\./);
      await request(t.url)
        .post('/api/stations/token/refresh')
        .set(other.auth)
        .send({ stationId: station.id })
        .expect(403);
      await request(t.url)
        .post('/api/stations/token/refresh')
        .send({ stationId: station.id })
        .expect(401);
      await request(t.url)
        .post('/api/stations/token/refresh')
        .set(owner.auth)
        .send({ stationId: 'nope' })
        .expect(400);
    });
  });

  describe('listing', () => {
    it("lists a user's stations and finds one by username and slug", async () => {
      const list = await request(t.url).get(`/api/users/${owner.username}/stations`).expect(200);
      expect(list.body.user).toEqual({
        id: owner.id,
        username: owner.username,
        name: `User ${owner.username}`,
        avatarUrl: null,
      });
      expect(list.body.stations.map((s: Station) => s.id)).toEqual([station.id]);
      const one = await request(t.url)
        .get(`/api/users/${owner.username}/stations/cafe-del-mar-live`)
        .expect(200);
      expect(one.body.id).toBe(station.id);
    });

    it('answers 404 for an unknown user or slug', async () => {
      const user = await request(t.url).get('/api/users/nobody-here/stations').expect(404);
      expect(user.body.error).toBe('UserNotFoundError');
      const slug = await request(t.url)
        .get(`/api/users/${owner.username}/stations/nope`)
        .expect(404);
      expect(slug.body.error).toBe('StationNotFoundError');
    });

    it('discover lists live stations first, then the most recently active', async () => {
      const mk = async (name: string) =>
        (
          (await request(t.url).post('/api/stations').set(other.auth).send({ name }).expect(201))
            .body as CreateStationResponse
        ).station;
      const older = await mk('Older');
      const recent = await mk('Recent');
      const live = await mk('Live now');
      const svc = t.app.get(StationsService);
      await svc.transition(older.id, 'offline', false, true);
      await svc.transition(recent.id, 'offline', false, true);
      await svc.transition(live.id, 'live', true, true);
      const res = await request(t.url).get('/api/stations/discover').expect(200);
      const ids = (res.body.stations as Station[]).map((s) => s.id);
      expect(ids.slice(0, 3)).toEqual([live.id, recent.id, older.id]);
      expect(ids).toHaveLength(5);
      expect(res.body.stations[0]).toMatchObject({ status: 'live', isActive: true });
    });
  });

  describe('POST /api/stations/end', () => {
    it('ends the station (owner only)', async () => {
      await request(t.url)
        .post('/api/stations/end')
        .set(other.auth)
        .send({ stationId: station.id })
        .expect(403);
      await request(t.url).post('/api/stations/end').send({ stationId: station.id }).expect(401);
      await request(t.url).post('/api/stations/end').set(owner.auth).send({}).expect(400);
      const res = await request(t.url)
        .post('/api/stations/end')
        .set(owner.auth)
        .send({ stationId: station.id })
        .expect(200);
      expect(res.body).toMatchObject({ status: 'ended', isActive: false });
    });

    it('clears now playing, so the next broadcast starts without the old track', async () => {
      await request(t.url)
        .post('/api/stations/now-playing')
        .set(owner.auth)
        .send({ stationId: station.id, track: 'Old Song' })
        .expect(200);
      await t.app.get(StationsService).transition(station.id, 'live', true, true);
      const res = await request(t.url)
        .post('/api/stations/end')
        .set(owner.auth)
        .send({ stationId: station.id })
        .expect(200);
      expect(res.body).toMatchObject({ status: 'ended', isActive: false, nowPlaying: null });
      // Going live again after an ended broadcast is allowed.
      await t.app.get(StationsService).transition(station.id, 'live', true, true);
      expect(
        (await request(t.url).get(`/api/stations/${station.id}`).expect(200)).body.status,
      ).toBe('live');
    });
  });

  describe('DELETE /api/stations/{id}', () => {
    it('deletes an owned station (204): gone for everyone, and its slug is free', async () => {
      const { body } = await request(t.url)
        .post('/api/stations')
        .set(owner.auth)
        .send({ name: 'Short Lived' })
        .expect(201);
      const id = (body as CreateStationResponse).station.id;
      await request(t.url).delete(`/api/stations/${id}`).expect(401);
      await request(t.url).delete(`/api/stations/${id}`).set(other.auth).expect(403);
      await request(t.url).delete('/api/stations/not-a-uuid').set(owner.auth).expect(400);
      await request(t.url).delete(`/api/stations/${id}`).set(owner.auth).expect(204);
      const gone = await request(t.url).get(`/api/stations/${id}`).expect(404);
      expect(gone.body.error).toBe('StationNotFoundError');
      await request(t.url).delete(`/api/stations/${id}`).set(owner.auth).expect(404);
      await request(t.url).get(`/api/users/${owner.username}/stations/short-lived`).expect(404);
      await request(t.url)
        .post('/api/stations')
        .set(owner.auth)
        .send({ name: 'Short Lived' })
        .expect(201);
    });
  });
});
