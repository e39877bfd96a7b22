import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreateStationResponse, JoinStationResponse } from '@radiobroadcaster/contracts';
import request from 'supertest';
import { RTCPeerConnection, RTCRtpCodecParameters } from '@radiobroadcaster/sfu/client';
import { StationsService } from '../stations/stations.service.js';
import { signUp, startTestApp, type TestApp, type TestUser } from '../../testing/test-app.js';

/** A real SDP offer from werift: sendonly (publisher) or recvonly (listener) Opus audio. */
async function offer(
  direction: 'sendonly' | 'recvonly',
): Promise<{ sdp: string; pc: RTCPeerConnection }> {
  const pc = new RTCPeerConnection({
    iceServers: [],
    iceAdditionalHostAddresses: ['127.0.0.1'],
    codecs: {
      audio: [new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2 })],
      video: [],
    },
  });
  pc.addTransceiver('audio', { direction });
  await pc.setLocalDescription(await pc.createOffer());
  return { sdp: pc.localDescription!.sdp, pc };
}

describe('WHIP, WHEP and joinStationAsReceiver (signalling and admission)', () => {
  let t: TestApp;
  let owner: TestUser;
  let other: TestUser;
  let stationId: string;
  let token: string;
  let otherStationToken: string;
  const peers: RTCPeerConnection[] = [];

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        RATE_LIMIT_JOIN_PER_MINUTE: '1000',
        SFU_SHARDS: '0',
      },
    });
    owner = await signUp(t.url);
    other = await signUp(t.url);
    const created = (
      await request(t.url).post('/api/stations').set(owner.auth).send({ name: 'Media' }).expect(201)
    ).body as CreateStationResponse;
    stationId = created.station.id;
    token = created.streamToken.token;
    const theirs = (
      await request(t.url)
        .post('/api/stations')
        .set(other.auth)
        .send({ name: 'Theirs' })
        .expect(201)
    ).body as CreateStationResponse;
    otherStationToken = theirs.streamToken.token;
  });
  afterAll(async () => {
    await Promise.all(peers.map((p) => p.close()));
    await t.close();
  });

  const whip = (sdp: string, bearer?: string, type = 'application/sdp') => {
    const r = request(t.url).post(`/whip/${stationId}`).set('Content-Type', type);
    if (bearer) r.set('Authorization', `Bearer ${bearer}`);
    return r.send(sdp);
  };

  describe('WHIP ingest', () => {
    it('answers the preflight with CORS that exposes Location', async () => {
      const res = await request(t.url)
        .options(`/whip/${stationId}`)
        .set('Origin', 'https://studio.example')
        .expect(204);
      expect(res.headers['access-control-allow-origin']).toBe('https://studio.example');
      expect(res.headers['access-control-expose-headers']).toContain('Location');
      expect(res.headers['access-control-allow-headers']).toContain('Authorization');
    });

    it('answers trickle ICE and ICE restarts (PATCH) with 405 and Allow, with CORS, on WHIP and WHEP', async () => {
      for (const kind of ['whip', 'whep']) {
        const res = await request(t.url)
          .patch(`/${kind}/${stationId}/sessions/00000000-0000-4000-8000-000000000000`)
          .set('Origin', 'https://player.example')
          .set('Content-Type', 'application/trickle-ice-sdpfrag')
          .send('a=candidate:1 1 udp 1 127.0.0.1 9 typ host')
          .expect(405);
        expect(res.body.error).toBe('MethodNotAllowed');
        expect(res.headers.allow).toBe('DELETE, OPTIONS');
        expect(res.headers['access-control-allow-origin']).toBe('https://player.example');
      }
    });

    it('refuses a wrong content type (415), a missing or bad token (401) and a foreign token (403)', async () => {
      const { sdp, pc } = await offer('sendonly');
      peers.push(pc);
      expect((await whip(sdp, token, 'text/plain').expect(415)).body.error).toBe(
        'UnsupportedMediaType',
      );
      expect((await whip(sdp).expect(401)).body.error).toBe('Unauthorized');
      expect((await whip(sdp, 'garbage.token').expect(401)).body.message).toBe(
        'Invalid station token',
      );
      expect((await whip(sdp, otherStationToken).expect(403)).body.message).toBe(
        'This token is for another station',
      );
    });

    it('refuses malformed SDP and offers without audio with a 400, and keeps serving', async () => {
      expect((await whip('hello', token).expect(400)).body.error).toBe('ValidationError');
      const videoOnly = [
        'v=0',
        'o=- 1 1 IN IP4 127.0.0.1',
        's=-',
        't=0 0',
        'm=video 9 UDP/TLS/RTP/SAVPF 96',
        'a=rtpmap:96 VP8/90000',
        '',
      ].join('\r\n');
      expect((await whip(videoOnly, token).expect(400)).body.message).toMatch(/Invalid SDP offer/);
      await request(t.url).get('/health').expect(200);
    });

    it('accepts an offer: 201, an SDP answer for stereo music, and a Location to DELETE', async () => {
      const { sdp, pc } = await offer('sendonly');
      peers.push(pc);
      const res = await whip(sdp, token).expect(201);
      expect(res.headers['content-type']).toMatch(/application\/sdp/);
      expect(res.headers.location).toMatch(
        new RegExp(`^/whip/${stationId}/sessions/[0-9a-f-]{36}$`),
      );
      const answer = res.text;
      expect(answer).toMatch(/a=rtpmap:\d+ opus\/48000\/2/i);
      expect(answer).toMatch(/stereo=1/);
      const bitrate = Number(/maxaveragebitrate=(\d+)/.exec(answer)?.[1]);
      expect(bitrate).toBeGreaterThanOrEqual(128000);

      await request(t.url).delete(res.headers.location!).expect(401);
      await request(t.url)
        .delete(res.headers.location!)
        .set('Authorization', `Bearer ${otherStationToken}`)
        .expect(403);
      await request(t.url)
        .delete(`/whip/${stationId}/sessions/00000000-0000-4000-8000-000000000000`)
        .set('Authorization', `Bearer ${token}`)
        .expect(404);
      await request(t.url)
        .delete(res.headers.location!)
        .set('Authorization', `Bearer ${token}`)
        .expect(204);
    });

    it('refuses a second publisher with another token while one is connected (409)', async () => {
      const first = await offer('sendonly');
      peers.push(first.pc);
      await whip(first.sdp, token).expect(201);
      const refreshed = (
        await request(t.url)
          .post('/api/stations/token/refresh')
          .set(owner.auth)
          .send({ stationId })
          .expect(200)
      ).body.token as string;
      const second = await offer('sendonly');
      peers.push(second.pc);
      const res = await whip(second.sdp, refreshed).expect(409);
      expect(res.body.error).toBe('Conflict');
      // The same client (same token) reconnecting replaces its own session.
      const again = await offer('sendonly');
      peers.push(again.pc);
      await whip(again.sdp, token).expect(201);
    });
  });

  describe('joinStationAsReceiver and WHEP', () => {
    it('answers 404 for an unknown station, 400 for a bad id, 409 STATION_NOT_ACTIVE when not live', async () => {
      const unknown = await request(t.url)
        .post('/api/joinStationAsReceiver')
        .send({ stationId: '00000000-0000-4000-8000-000000000000' })
        .expect(404);
      expect(unknown.body.error).toBe('StationNotFoundError');
      await request(t.url).post('/api/joinStationAsReceiver').send({ stationId: 'x' }).expect(400);
      await t.app.get(StationsService).transition(stationId, 'offline', false, false);
      const offline = await request(t.url)
        .post('/api/joinStationAsReceiver')
        .send({ stationId })
        .expect(409);
      expect(offline.body).toEqual({
        error: 'STATION_NOT_ACTIVE',
        message: 'This station is not currently broadcasting',
      });
      const { sdp, pc } = await offer('recvonly');
      peers.push(pc);
      const whep = await request(t.url)
        .post(`/whep/${stationId}`)
        .set('Content-Type', 'application/sdp')
        .send(sdp)
        .expect(409);
      expect(whep.body.error).toBe('STATION_NOT_ACTIVE');
    });

    it('joins a live station: WHEP URL, token and ICE servers; WHEP answers 201 and DELETE leaves', async () => {
      await t.app.get(StationsService).transition(stationId, 'live', true, true);
      const join = (
        await request(t.url).post('/api/joinStationAsReceiver').send({ stationId }).expect(200)
      ).body as JoinStationResponse;
      expect(join).toMatchObject({ stationId, iceServers: [] });
      expect(join.whepUrl).toBe(`${t.url}/whep/${stationId}`);
      // The player's HTTP fallback: signed stream URLs, which play even when the plain URL is
      // private (the signed playlist beside them is accepted too).
      for (const ext of ['ogg', 'mp3'] as const)
        expect(join.listen[ext]).toMatch(
          new RegExp(`^${t.url}/listen/[^/]+/[^/]+\\.${ext}\\?t=[\\w-]+\\.[\\w-]+$`),
        );
      const signedPlaylist = join.listen.ogg.replace('.ogg?', '.m3u?');
      expect((await fetch(signedPlaylist)).status).toBe(200);
      const { sdp, pc } = await offer('recvonly');
      peers.push(pc);
      await request(t.url)
        .post(`/whep/${stationId}`)
        .set('Content-Type', 'text/plain')
        .send(sdp)
        .expect(415);
      const res = await request(t.url)
        .post(`/whep/${stationId}`)
        .set('Content-Type', 'application/sdp')
        .set('Authorization', `Bearer ${join.token}`)
        .send(sdp)
        .expect(201);
      expect(res.text).toMatch(/opus\/48000\/2/i);
      const location = res.headers.location!;
      expect(location).toMatch(new RegExp(`^/whep/${stationId}/sessions/`));
      // Someone else's session: another token cannot end it.
      const otherJoin = (
        await request(t.url).post('/api/joinStationAsReceiver').send({ stationId }).expect(200)
      ).body as JoinStationResponse;
      await request(t.url)
        .delete(location)
        .set('Authorization', `Bearer ${otherJoin.token}`)
        .expect(403);
      await request(t.url)
        .delete(`/whep/${stationId}/sessions/00000000-0000-4000-8000-000000000000`)
        .expect(404);
      await request(t.url)
        .delete(location)
        .set('Authorization', `Bearer ${join.token}`)
        .expect(204);
      await request(t.url)
        .delete(location)
        .set('Authorization', `Bearer ${join.token}`)
        .expect(404);
    });

    it('enforces the owner allowed domains from the Origin header, never Referer', async () => {
      await request(t.url)
        .post('/api/me/allowed-domains')
        .set(owner.auth)
        .send({ domain: 'radio.example.com' })
        .expect(201);
      const refused = await request(t.url)
        .post('/api/joinStationAsReceiver')
        .set('Origin', 'https://evil-example.com')
        .set('Referer', 'https://radio.example.com/page')
        .send({ stationId })
        .expect(403);
      expect(refused.body.error).toBe('DOMAIN_NOT_ALLOWED');
      const ok = (
        await request(t.url)
          .post('/api/joinStationAsReceiver')
          .set('Origin', 'https://radio.example.com')
          .send({ stationId })
          .expect(200)
      ).body as JoinStationResponse;
      // The product's own site is always allowed.
      await request(t.url)
        .post('/api/joinStationAsReceiver')
        .set('Origin', t.config.publicUrl)
        .send({ stationId })
        .expect(200);
      // The token is bound to the origin it was issued to.
      const { sdp, pc } = await offer('recvonly');
      peers.push(pc);
      const stolen = await request(t.url)
        .post(`/whep/${stationId}`)
        .set('Content-Type', 'application/sdp')
        .set('Origin', 'https://evil-example.com')
        .set('Authorization', `Bearer ${ok.token}`)
        .send(sdp)
        .expect(403);
      expect(stolen.body.error).toBe('DOMAIN_NOT_ALLOWED');
      const direct = await request(t.url)
        .post(`/whep/${stationId}`)
        .set('Content-Type', 'application/sdp')
        .set('Origin', 'https://evil-example.com')
        .send(sdp)
        .expect(403);
      expect(direct.body.error).toBe('DOMAIN_NOT_ALLOWED');
      await request(t.url)
        .delete('/api/me/allowed-domains/radio.example.com')
        .set(owner.auth)
        .expect(204);
    });

    it('rate-limits join floods per client with 429 and Retry-After', async () => {
      const limited = await startTestApp({
        env: { RATE_LIMIT_JOIN_PER_MINUTE: '3', SFU_SHARDS: '0' },
      });
      try {
        const codes: number[] = [];
        for (let i = 0; i < 5; i++) {
          codes.push(
            (await request(limited.url).post('/api/joinStationAsReceiver').send({ stationId }))
              .status,
          );
        }
        expect(codes.slice(0, 3)).toEqual([404, 404, 404]);
        const res = await request(limited.url)
          .post('/api/joinStationAsReceiver')
          .send({ stationId })
          .expect(429);
        expect(res.body.error).toBe('TooManyRequests');
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      } finally {
        await limited.close();
      }
    });
  });
});
