/**
 * A private station while Redis is down (a Redis server of this test's own, stopped and started
 * again): every access check fails closed — a stranger, a changed or revoked invite, a plain
 * `/listen` URL, the public feeds and the socket room are refused with their clear errors, and an
 * invite revoked during the outage stops admitting at once — while those who may listen still
 * get in (the checks read PostgreSQL, never a Redis cache); when Redis returns, the same answers.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreateStationResponse, Invite, StationAccess } from '@radiobroadcaster/contracts';
import type { Socket } from 'socket.io-client';
import { waitUntil } from '../../../../test/support/wait.js';
import { RedisService } from '../redis/redis.service.js';
import { OwnRedis } from '../../testing/own-redis.js';
import { connectSocket, emitAck } from '../../testing/sockets.js';
import {
  freeLoopbackPort,
  signUp,
  startTestApp,
  type TestApp,
  type TestUser,
} from '../../testing/test-app.js';

type Json = Record<string, unknown>;

describe('a private station while Redis is down', () => {
  let redis: OwnRedis;
  let t: TestApp;
  let owner: TestUser;
  let stationId: string;
  let slug: string;
  const sockets: Socket[] = [];

  const call = async (
    method: string,
    path: string,
    body?: unknown,
    auth: Record<string, string> = owner.auth,
  ): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${t.url}${path}`, {
      method,
      headers: { ...auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(20_000),
    });
    const text = await res.text();
    let parsed: Json = {};
    try {
      parsed = text ? (JSON.parse(text) as Json) : {};
    } catch {
      parsed = { text };
    }
    return { status: res.status, body: parsed };
  };
  const join = (body: Json) =>
    call('POST', '/api/joinStationAsReceiver', { stationId, ...body }, {});
  const invite = async (label: string) =>
    (await call('POST', '/api/stations/invites', { stationId, label })).body as unknown as Invite;

  /** Every way a stranger might get in, each refused with its clear error. */
  async function strangersRefused(revoked: Invite): Promise<void> {
    // the station is off air: an admitted join says so; a refused one says why
    expect(await join({})).toMatchObject({ status: 403, body: { error: 'PRIVATE_STATION' } });
    expect(await join({ invite: `${revoked.token.slice(0, -4)}AAAA` })).toMatchObject({
      status: 403,
      body: { error: 'INVITE_INVALID' },
    });
    expect(await join({ invite: revoked.token })).toMatchObject({
      status: 403,
      body: {
        error: 'INVITE_INVALID',
        message: 'This invite link was revoked by the station owner',
      },
    });
    expect(await join({ password: 'wrong' })).toMatchObject({
      status: 403,
      body: { error: 'WRONG_STATION_PASSWORD' },
    });
    for (const path of [
      `/listen/${owner.username}/${slug}.ogg`,
      `/listen/${owner.username}/${slug}.m3u`,
      `/${owner.username}/${slug}/podcast.xml`,
      `/${owner.username}/${slug}/schedule.ics`,
      `/api/stations/${stationId}/recordings?grant=x.y`,
    ]) {
      const res = await call('GET', path, undefined, {});
      expect([path, res.status]).toEqual([path, path.includes('recordings') ? 200 : 403]);
      if (path.includes('recordings')) expect(res.body).toEqual([]);
    }
    const s = await connectSocket(t.url, sockets);
    expect(await emitAck<Json>(s, 'station:join', { stationId, grant: 'x.y' })).toMatchObject({
      ok: false,
      error: 'PRIVATE_STATION',
    });
    s.disconnect();
  }

  beforeAll(async () => {
    redis = new OwnRedis(await freeLoopbackPort());
    await redis.start();
    t = await startTestApp({ env: { REDIS_URL: redis.url, LOG_LEVEL: 'error' } });
    owner = await signUp(t.url);
    const created = (await call('POST', '/api/stations', { name: 'Storm Choir' }))
      .body as unknown as CreateStationResponse;
    stationId = created.station.id;
    slug = created.station.slug;
    await call('POST', '/api/stations/update', { stationId, visibility: 'private' });
    await call('POST', '/api/stations/password', { stationId, password: 'thunder-2026' });
  }, 60_000);

  afterAll(async () => {
    for (const s of sockets) s.disconnect();
    await t?.close();
    await redis?.stop();
  });

  it('refuses strangers with clear errors and admits listeners, during the outage and after it', async () => {
    const [kept, revoked, revokedDuring] = [
      await invite('kept'),
      await invite('revoked'),
      await invite('revoked during the outage'),
    ];
    expect((await call('DELETE', `/api/stations/invites/${revoked.id}`)).status).toBe(204);

    await redis.stop();
    const redisService = t.app.get(RedisService);
    await waitUntil(() => !redisService.ready, 10_000, 'the app to see Redis gone');

    await strangersRefused(revoked);
    // listeners with a way in still get in (the station is off air, so the join says that)
    expect(await join({ invite: kept.token })).toMatchObject({
      status: 409,
      body: { error: 'STATION_NOT_ACTIVE' },
    });
    expect(await join({ password: 'thunder-2026' })).toMatchObject({
      body: { error: 'STATION_NOT_ACTIVE' },
    });
    // a revocation made now holds at once on this node
    expect(await join({ invite: revokedDuring.token })).toMatchObject({
      body: { error: 'STATION_NOT_ACTIVE' },
    });
    expect((await call('DELETE', `/api/stations/invites/${revokedDuring.id}`)).status).toBe(204);
    expect(await join({ invite: revokedDuring.token })).toMatchObject({
      status: 403,
      body: { error: 'INVITE_INVALID' },
    });
    // the owner's panel still answers (who listens: this node's own)
    const panel = await call('GET', `/api/stations/${stationId}/access`);
    expect(panel.status).toBe(200);
    expect((panel.body as unknown as StationAccess).visibility).toBe('private');

    // Redis is back: the same answers
    await redis.start();
    await waitUntil(() => redisService.ready, 20_000, 'the app to reconnect to Redis');
    await strangersRefused(revokedDuring);
    expect(await join({ invite: kept.token })).toMatchObject({
      body: { error: 'STATION_NOT_ACTIVE' },
    });
  }, 120_000);
});
