import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreateStationResponse, StationToken } from '@radiobroadcaster/contracts';
import request from 'supertest';
import { startTestApp, type TestApp } from '../../testing/test-app.js';
import { signInSession, signUpSession, type Session } from '../../testing/auth-helpers.js';

describe('station tokens die with the session they were issued under', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_PUBLISH_PER_MINUTE: '0', SFU_SHARDS: '0' } });
  });
  afterAll(async () => {
    await t.close();
  });

  const bearer = (s: Session) => ({ Authorization: `Bearer ${s.token}` });

  /** WHIP with a placeholder offer: 401 when the token is refused, 400 (bad SDP) once it passed. */
  const whip = (stationId: string, token: string) =>
    request(t.url)
      .post(`/whip/${stationId}`)
      .set('Content-Type', 'application/sdp')
      .set('Authorization', `Bearer ${token}`)
      .send('v=0\r\n');

  it('refuses a station token after revoke-other-sessions, revoke-sessions or sign-out of its session', async () => {
    const first = await signUpSession(t.url);
    const second = await signInSession(t.url, first.body.email, first.body.password);
    const third = await signInSession(t.url, first.body.email, first.body.password);
    const created = (
      await request(t.url).post('/api/stations').set(bearer(first)).send({ name: 'Tokens' })
    ).body as CreateStationResponse;
    const stationId = created.station.id;
    const refresh = async (s: Session) =>
      (
        (
          await request(t.url)
            .post('/api/stations/token/refresh')
            .set(bearer(s))
            .send({ stationId })
            .expect(200)
        ).body as StationToken
      ).token;
    const fromFirst = created.streamToken.token;
    const fromSecond = await refresh(second);
    const fromThird = await refresh(third);
    for (const token of [fromFirst, fromSecond, fromThird])
      await whip(stationId, token).expect(400);

    await request(t.url).post('/api/auth/revoke-other-sessions').set(bearer(second)).expect(200);
    const refused = await whip(stationId, fromFirst).expect(401);
    expect(refused.body).toEqual({
      error: 'Unauthorized',
      message: 'Station token revoked: its session was signed out',
    });
    await whip(stationId, fromThird).expect(401);
    await whip(stationId, fromSecond).expect(400);

    await request(t.url).post('/api/auth/revoke-sessions').set(bearer(second)).expect(200);
    await whip(stationId, fromSecond).expect(401);

    const again = await signInSession(t.url, first.body.email, first.body.password);
    const fromAgain = await refresh(again);
    await whip(stationId, fromAgain).expect(400);
    await request(t.url).post('/api/auth/sign-out').set(bearer(again)).expect(200);
    await whip(stationId, fromAgain).expect(401);
  });
});
