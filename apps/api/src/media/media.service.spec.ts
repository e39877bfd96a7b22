/**
 * MediaService without the app: a fake MediaEngine, the in-memory session store, the real token
 * signer and domain rules over a fake table. What WHIP/WHEP callers are told, call by call.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { CapacityError, SdpError } from '@radiobroadcaster/sfu';
import { SessionsRepository } from '../auth/sessions.repository.js';
import { AppError } from '../common/app-error.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { DomainsRepository } from '../domains/domains.repository.js';
import { DomainsService } from '../domains/domains.service.js';
import { EventBus, InProcessEventBus } from '../events/event-bus.js';
import { MetricsService } from '../metrics/metrics.service.js';
import type { StationEntity } from '../stations/station.entity.js';
import { StationTokensService } from '../stations/station-tokens.service.js';
import { StationsService } from '../stations/stations.service.js';
import { FakeMediaEngine } from '../../testing/fake-media-engine.js';
import { testConfig } from '../../testing/test-app.js';
import { MEDIA_ENGINE } from './media.providers.js';
import { ListeningSessions } from '../stats/listening-sessions.service.js';
import { MediaService, type Caller } from './media.service.js';
import { AccessService } from '../access/access.service.js';
import { AccessSessions } from '../access/access-sessions.js';
import { RedisService } from '../redis/redis.service.js';
import { StreamKeysService } from '../radio/stream-keys.service.js';
import { ListenGrants } from '../radio/listen-grants.js';
import { IceServersService } from '../turn/ice-servers.service.js';
import { InMemorySessionStore, SessionStore } from './session-store.js';

const OWNER = 'owner-1';
const SESSION = '33333333-3333-4333-8333-333333333333';
const STATION = '11111111-1111-4111-8111-111111111111';
const OFFER = 'v=0 offer';
const SITE = 'https://radio.example.com';
const EVIL = 'https://evil.example.net';
const BASE = 'https://api.example';

const station = (over: Partial<StationEntity> = {}): StationEntity =>
  ({
    id: STATION,
    broadcasterId: OWNER,
    broadcaster: { id: OWNER, username: 'o', name: 'O' },
    slug: 'radio',
    status: 'live',
    isActive: true,
    ...over,
  }) as StationEntity;

/** The AppError a call fails with (so a test reads tag and message). */
async function refusal(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected the call to be refused');
}

describe('MediaService (fake engine, no app)', () => {
  let media: MediaService;
  let engine: FakeMediaEngine;
  let sessions: InMemorySessionStore;
  let tokens: StationTokensService;
  let metrics: MetricsService;
  let config: AppConfig;
  let current: StationEntity;
  let domains: string[];
  const caller = (origin: string | null = null, ip = '203.0.113.7'): Caller => ({ origin, ip });
  const listening = { started: async () => undefined, ended: async () => undefined };

  beforeEach(async () => {
    config = testConfig({ MAX_LISTENERS_PER_IP: '3', MAX_LISTENERS_PER_STATION: '5' });
    engine = new FakeMediaEngine();
    sessions = new InMemorySessionStore();
    current = station();
    domains = [];
    const module = await Test.createTestingModule({
      providers: [
        MediaService,
        StationTokensService,
        DomainsService,
        MetricsService,
        IceServersService,
        ListenGrants,
        AccessSessions,
        // private stations have their own tests (access.spec, private-station e2e): public here
        {
          provide: AccessService,
          useValue: { admit: async () => null, grantValid: async () => true },
        },
        { provide: APP_CONFIG, useValue: config },
        { provide: RedisService, useValue: new RedisService(null) },
        { provide: MEDIA_ENGINE, useValue: engine },
        { provide: SessionStore, useValue: sessions },
        // Station tokens are checked against their sign-in session: here it is always live.
        { provide: SessionsRepository, useValue: { findActive: async () => ({ username: 'o' }) } },
        { provide: EventBus, useValue: new InProcessEventBus() },
        { provide: ListeningSessions, useValue: listening },
        // stream keys have their own tests (stream-keys.spec, icecast ingest e2e)
        {
          provide: StreamKeysService,
          useValue: { verify: async () => null, isCurrent: async () => true },
        },
        {
          provide: StationsService,
          useValue: {
            entity: async (id: string) => {
              if (id !== STATION) throw AppError.stationNotFound();
              return current;
            },
          },
        },
        { provide: DomainsRepository, useValue: { domainsOf: async () => domains } },
      ],
    }).compile();
    media = module.get(MediaService);
    tokens = module.get(StationTokensService);
    metrics = module.get(MetricsService);
  });

  afterEach(async () => {
    await sessions.close();
  });

  const stationToken = (userId = OWNER) => tokens.issueStationToken(STATION, userId, SESSION).token;

  describe('publish (WHIP)', () => {
    it('refuses a missing, bad or foreign token and a station the token owner does not own', async () => {
      expect((await refusal(media.publish(STATION, null, OFFER))).tag).toBe('Unauthorized');
      expect((await refusal(media.publish(STATION, 'x.y', OFFER))).message).toBe(
        'Invalid station token',
      );
      const foreign = tokens.issueStationToken(
        '22222222-2222-4222-8222-222222222222',
        OWNER,
        SESSION,
      ).token;
      expect((await refusal(media.publish(STATION, foreign, OFFER))).message).toBe(
        'This token is for another station',
      );
      expect((await refusal(media.publish(STATION, stationToken('someone'), OFFER))).tag).toBe(
        'Forbidden',
      );
      expect(engine.callsOf('publish')).toEqual([]);
    });

    it('answers with the engine session and records it as the station publisher', async () => {
      const out = await media.publish(STATION, stationToken(), OFFER);
      expect(out.answer).toBe(`v=0 answer for ${out.sessionId}`);
      expect(engine.callsOf('publish')).toEqual([[STATION, OFFER]]);
      expect(await sessions.publisher(STATION)).toMatchObject({
        sessionId: out.sessionId,
        userId: OWNER,
      });
    });

    it('refuses another token while a publisher is connected, lets the same token replace itself, and anyone in once it is gone', async () => {
      const first = stationToken();
      const a = await media.publish(STATION, first, OFFER);
      const second = stationToken();
      const busy = await refusal(media.publish(STATION, second, OFFER));
      expect(busy.tag).toBe('Conflict');
      expect(busy.message).toBe('This station already has a live publisher');
      const again = await media.publish(STATION, first, OFFER);
      expect(again.sessionId).not.toBe(a.sessionId);
      // it becomes the station's publisher once its media flows (StationLifecycle); until then `a` is
      expect((await sessions.publisher(STATION))?.sessionId).toBe(a.sessionId);
      expect(await sessions.session(again.sessionId)).toMatchObject({
        kind: 'publisher',
        publisher: { userId: OWNER },
      });
      engine.end(again.sessionId, 'ice-failed');
      expect((await refusal(media.publish(STATION, second, OFFER))).tag).toBe('Conflict');
      engine.end(a.sessionId, 'timeout');
      await expect(media.publish(STATION, second, OFFER)).resolves.toHaveProperty('sessionId');
    });

    it('maps the engine refusals: bad SDP 400, no capacity 503 with Retry-After', async () => {
      engine.failNext = new SdpError('no audio');
      const bad = await refusal(media.publish(STATION, stationToken(), OFFER));
      expect(bad.tag).toBe('ValidationError');
      expect(bad.message).toBe('Invalid SDP offer: no audio');
      engine.failNext = new CapacityError('full');
      const full = await refusal(media.publish(STATION, stationToken(), OFFER));
      expect(full.tag).toBe('ServiceUnavailable');
      expect(full.headers).toEqual({ 'Retry-After': '5' });
    });

    it('unpublishes only its own publishing session: 404 for a listener session or an ended one', async () => {
      const token = stationToken();
      const pub = await media.publish(STATION, token, OFFER);
      const join = await media.join(STATION, caller(), BASE);
      const l = await media.listen(STATION, join.token, caller(), OFFER);
      expect((await refusal(media.unpublish(STATION, l.sessionId, token))).tag).toBe('NotFound');
      await media.unpublish(STATION, pub.sessionId, token);
      expect(engine.callsOf('unpublish')).toEqual([[STATION, pub.sessionId]]);
      expect((await refusal(media.unpublish(STATION, pub.sessionId, token))).message).toBe(
        'No such publishing session',
      );
    });
  });

  describe('join and listen (WHEP)', () => {
    it('refuses a station that is not live', async () => {
      current = station({ status: 'offline', isActive: false });
      const e = await refusal(media.join(STATION, caller(), BASE));
      expect(e.tag).toBe('STATION_NOT_ACTIVE');
      expect((await refusal(media.listen(STATION, null, caller(), OFFER))).tag).toBe(
        'STATION_NOT_ACTIVE',
      );
      expect(engine.callsOf('addListener')).toEqual([]);
    });

    it('gives a WHEP URL, a token and ICE servers; the token opens exactly one session', async () => {
      const join = await media.join(STATION, caller(), BASE);
      expect(join).toMatchObject({ stationId: STATION, whepUrl: `${BASE}/whep/${STATION}` });
      await media.listen(STATION, join.token, caller(), OFFER);
      const reused = await refusal(media.listen(STATION, join.token, caller(), OFFER));
      expect(reused.tag).toBe('Conflict');
      expect(reused.message).toBe('This listener token was already used; join again');
      expect(engine.callsOf('addListener')).toHaveLength(1);
    });

    it('keeps a token usable when the engine refused its offer', async () => {
      const join = await media.join(STATION, caller(), BASE);
      engine.failNext = new SdpError('no opus');
      expect((await refusal(media.listen(STATION, join.token, caller(), OFFER))).tag).toBe(
        'ValidationError',
      );
      await expect(media.listen(STATION, join.token, caller(), OFFER)).resolves.toHaveProperty(
        'sessionId',
      );
    });

    it('binds a token to the Origin it was issued to, or to no Origin', async () => {
      const fromSite = await media.join(STATION, caller(SITE), BASE);
      const stolen = await refusal(media.listen(STATION, fromSite.token, caller(EVIL), OFFER));
      expect(stolen.tag).toBe('DOMAIN_NOT_ALLOWED');
      expect(stolen.message).toBe('This token was issued to another site');
      expect((await refusal(media.listen(STATION, fromSite.token, caller(), OFFER))).tag).toBe(
        'DOMAIN_NOT_ALLOWED',
      );
      const noOrigin = await media.join(STATION, caller(), BASE);
      expect((await refusal(media.listen(STATION, noOrigin.token, caller(EVIL), OFFER))).tag).toBe(
        'DOMAIN_NOT_ALLOWED',
      );
      expect(
        (await refusal(media.listen(STATION, noOrigin.token, caller('null'), OFFER))).tag,
      ).toBe('DOMAIN_NOT_ALLOWED');
      await expect(
        media.listen(STATION, fromSite.token, caller(SITE), OFFER),
      ).resolves.toBeTruthy();
    });

    it('refuses Origin null, and any unlisted site, when the owner lists domains', async () => {
      domains = ['radio.example.com'];
      for (const origin of ['null', EVIL]) {
        expect((await refusal(media.join(STATION, caller(origin), BASE))).tag).toBe(
          'DOMAIN_NOT_ALLOWED',
        );
        expect((await refusal(media.listen(STATION, null, caller(origin), OFFER))).tag).toBe(
          'DOMAIN_NOT_ALLOWED',
        );
      }
      await expect(media.join(STATION, caller(SITE), BASE)).resolves.toBeTruthy();
      await expect(media.join(STATION, caller(config.publicUrl), BASE)).resolves.toBeTruthy();
    });

    it('checks the list again at WHEP time: a token from a site removed since is refused', async () => {
      domains = ['radio.example.com'];
      const join = await media.join(STATION, caller(SITE), BASE);
      domains = ['other.example.org'];
      expect((await refusal(media.listen(STATION, join.token, caller(SITE), OFFER))).tag).toBe(
        'DOMAIN_NOT_ALLOWED',
      );
    });

    it('caps sessions per IP (429) and per station (503), and frees a slot when a session ends', async () => {
      const open = (ip: string) => media.listen(STATION, null, caller(null, ip), OFFER);
      const mine = [
        await open('198.51.100.1'),
        await open('198.51.100.1'),
        await open('198.51.100.1'),
      ];
      const perIp = await refusal(open('198.51.100.1'));
      expect(perIp.tag).toBe('TooManyRequests');
      expect(perIp.message).toBe('Too many listening sessions from your address (at most 3)');
      await open('198.51.100.2');
      await open('198.51.100.3');
      const perStation = await refusal(open('198.51.100.4'));
      expect(perStation.tag).toBe('ServiceUnavailable');
      expect(perStation.headers).toEqual({ 'Retry-After': '30' });
      await media.leave(STATION, mine[0]!.sessionId, null);
      engine.end(mine[1]!.sessionId, 'ice-failed');
      await sessions.takeSession(mine[1]!.sessionId); // what StationLifecycle does on listener-gone
      await expect(open('198.51.100.1')).resolves.toBeTruthy();
      await expect(open('198.51.100.4')).resolves.toBeTruthy();
    });

    it('leave: 404 for an unknown or publishing session, 403 with another token, then 204 once', async () => {
      const pub = await media.publish(STATION, stationToken(), OFFER);
      const join = await media.join(STATION, caller(), BASE);
      const other = await media.join(STATION, caller(), BASE);
      const l = await media.listen(STATION, join.token, caller(), OFFER);
      expect((await refusal(media.leave(STATION, 'nope', join.token))).tag).toBe('NotFound');
      expect((await refusal(media.leave(STATION, pub.sessionId, join.token))).tag).toBe('NotFound');
      expect((await refusal(media.leave(STATION, l.sessionId, other.token))).message).toBe(
        'This session belongs to someone else',
      );
      expect((await refusal(media.leave(STATION, l.sessionId, null))).tag).toBe('Forbidden');
      await media.leave(STATION, l.sessionId, join.token);
      expect(engine.callsOf('removeListener')).toEqual([[STATION, l.sessionId]]);
      expect((await refusal(media.leave(STATION, l.sessionId, join.token))).tag).toBe('NotFound');
    });

    it('maps a full engine to 503 and counts it as a capacity refusal', async () => {
      engine.failNext = new CapacityError('full');
      const e = await refusal(media.listen(STATION, null, caller(), OFFER));
      expect(e.tag).toBe('ServiceUnavailable');
      expect(e.message).toBe('This server is at capacity, try again shortly');
      const joins = await metrics.registry.getSingleMetricAsString('rb_listener_joins_total');
      expect(joins).toMatch(/rb_listener_joins_total\{result="capacity"\} 1/);
    });
  });
});
