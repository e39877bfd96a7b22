import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreateStationResponse } from '@radiobroadcaster/contracts';
import request from 'supertest';
import { signUp, startTestApp, type TestApp, type TestUser } from '../../testing/test-app.js';

const NUL = '\u0000';
const RLO = '\u202E';
const ZWSP = '\u200B';

describe('text fields refuse control characters, direction overrides and invisible names', () => {
  let t: TestApp;
  let user: TestUser;
  let stationId: string;
  beforeAll(async () => {
    t = await startTestApp();
    user = await signUp(t.url);
    stationId = (
      (
        await request(t.url)
          .post('/api/stations')
          .set(user.auth)
          .send({ name: 'Plain' })
          .expect(201)
      ).body as CreateStationResponse
    ).station.id;
  });
  afterAll(async () => {
    await t.close();
  });

  /** 400 ValidationError naming exactly `field`. */
  async function refused(res: request.Test, field: string): Promise<void> {
    const r = await res.expect(400);
    expect(r.body.error).toBe('ValidationError');
    expect(r.body.fields.map((f: { path: string }) => f.path)).toEqual([field]);
  }

  it.each([
    ['a NUL byte', `Night${NUL}Owls`],
    ['a line break', 'Night\nOwls'],
    ['a right-to-left override', `Night ${RLO}slwO`],
    ['only zero-width characters', `${ZWSP}${ZWSP}\u2060`],
    ['a zero-width space inside', `Night${ZWSP}Owls`],
    ['a variation selector after a letter', 'Night\uFE0F Owls'],
  ])('refuses a station name with %s', async (_what, name) => {
    await refused(request(t.url).post('/api/stations').set(user.auth).send({ name }), 'name');
    await refused(
      request(t.url).post('/api/stations/update').set(user.auth).send({ stationId, name }),
      'name',
    );
  });

  it('refuses invisible characters in a description, and keeps emoji', async () => {
    await refused(
      request(t.url)
        .post('/api/stations/update')
        .set(user.auth)
        .send({ stationId, description: `Live${ZWSP} every night` }),
      'description',
    );
    const ok = await request(t.url)
      .post('/api/stations/update')
      .set(user.auth)
      .send({ stationId, name: '❤️ Night Owls 👨‍👩‍👧', description: 'Live 1️⃣ night' })
      .expect(200);
    expect(ok.body.name).toBe('❤️ Night Owls 👨‍👩‍👧');
  });

  it('refuses NUL in a description but keeps its line breaks', async () => {
    await refused(
      request(t.url)
        .post('/api/stations/update')
        .set(user.auth)
        .send({ stationId, description: `a${NUL}b` }),
      'description',
    );
    const ok = await request(t.url)
      .post('/api/stations/update')
      .set(user.auth)
      .send({ stationId, description: 'Line one\nLine two' })
      .expect(200);
    expect(ok.body.description).toBe('Line one\nLine two');
  });

  it.each(['track', 'artist', 'album'])('refuses NUL in now playing %s', async (field) => {
    await refused(
      request(t.url)
        .post('/api/stations/now-playing')
        .set(user.auth)
        .send({ stationId, track: 'Song', [field]: `x${NUL}y` }),
      field,
    );
  });

  it("refuses NUL and direction overrides in a user's name", async () => {
    await refused(
      request(t.url)
        .post('/api/auth/sign-up/email')
        .send({
          email: 'nul@example.com',
          password: 'correct horse battery',
          name: `A${NUL}B`,
          username: 'nulname',
        }),
      'name',
    );
    await refused(
      request(t.url)
        .post('/api/auth/update-user')
        .set(user.auth)
        .send({ name: `${RLO}evil` }),
      'name',
    );
  });

  it('answers 400, not 500, for control characters in a path, signed in or not', async () => {
    const res = await request(t.url).get('/api/users/a%00b/stations').expect(400);
    expect(res.body).toEqual({
      error: 'ValidationError',
      message: 'The address must not contain control characters',
    });
    await request(t.url).get('/api/users/a%00b/stations/c%01d').expect(400);
  });

  it('gives names without Latin letters a readable slug; a name with none gets a numbered one', async () => {
    const create = async (name: string) =>
      (
        (await request(t.url).post('/api/stations').set(user.auth).send({ name }).expect(201))
          .body as CreateStationResponse
      ).station.slug;
    expect(await create('Радио Ночь')).toBe('radio-noch');
    expect(await create('日本語ラジオ')).toBe('ribenyurajio');
    expect(await create('🎵🎶')).toBe('musical-note-notes');
    expect(await create('???')).toBe('station');
    expect(await create('!!!')).toBe('station-2');
    expect(await create('***')).toBe('station-3');
    await request(t.url)
      .post('/api/stations')
      .set(user.auth)
      .send({ name: 'Радио Ночь' })
      .expect(409);
  });
});
