/**
 * Over HTTP, what keeps anonymous listening in bounds: Origin null and listener tokens against the
 * owner's allowed domains, one session per token, caps per IP and per station, SDP offers a
 * listener needs. Client IPs come from X-Forwarded-For (TRUST_PROXY) so one test can be many.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreateStationResponse, JoinStationResponse } from '@radiobroadcaster/contracts';
import request from 'supertest';
import { RTCPeerConnection, RTCRtpCodecParameters } from '@radiobroadcaster/sfu/client';
import { StationsService } from '../stations/stations.service.js';
import { signUp, startTestApp, type TestApp, type TestUser } from '../../testing/test-app.js';

const SITE = 'https://radio.example.com';

describe('listening guards (join + WHEP over HTTP)', () => {
  let t: TestApp;
  let owner: TestUser;
  let stationId: string;
  const peers: RTCPeerConnection[] = [];

  /** A real recvonly Opus offer from werift. */
  const listenerOffer = async (): Promise<string> => {
    const pc = new RTCPeerConnection({
      iceServers: [],
      iceAdditionalHostAddresses: ['127.0.0.1'],
      codecs: {
        audio: [
          new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2 }),
        ],
        video: [],
      },
    });
    peers.push(pc);
    pc.addTransceiver('audio', { direction: 'recvonly' });
    await pc.setLocalDescription(await pc.createOffer());
    return pc.localDescription!.sdp;
  };

  const join = (headers: Record<string, string> = {}) =>
    request(t.url).post('/api/joinStationAsReceiver').set(headers).send({ stationId });

  const whep = async (headers: Record<string, string> = {}, sdp?: string) =>
    request(t.url)
      .post(`/whep/${stationId}`)
      .set('Content-Type', 'application/sdp')
      .set(headers)
      .send(sdp ?? (await listenerOffer()));

  const domains = {
    add: (domain: string) =>
      request(t.url).post('/api/me/allowed-domains').set(owner.auth).send({ domain }).expect(201),
    remove: (domain: string) =>
      request(t.url).delete(`/api/me/allowed-domains/${domain}`).set(owner.auth).expect(204),
  };

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        SFU_SHARDS: '0',
        TRUST_PROXY: 'true',
        RATE_LIMIT_JOIN_PER_MINUTE: '1000',
        MAX_LISTENERS_PER_IP: '2',
        MAX_LISTENERS_PER_STATION: '4',
      },
    });
    owner = await signUp(t.url);
    const created = (
      await request(t.url).post('/api/stations').set(owner.auth).send({ name: 'Guarded' })
    ).body as CreateStationResponse;
    stationId = created.station.id;
    await t.app.get(StationsService).transition(stationId, 'live', true, true);
  });
  afterAll(async () => {
    await Promise.all(peers.map((p) => p.close()));
    await t.close();
  });

  it('refuses Origin null (a sandboxed frame) on join and WHEP when the owner lists domains', async () => {
    await domains.add('radio.example.com');
    try {
      const refused = await join({ Origin: 'null' }).expect(403);
      expect(refused.body).toEqual({
        error: 'DOMAIN_NOT_ALLOWED',
        message: "This station can't be played on this site",
      });
      const anonymous = await whep({ Origin: 'null' });
      expect(anonymous.status).toBe(403);
      expect(anonymous.body.error).toBe('DOMAIN_NOT_ALLOWED');
      await join({ Origin: SITE }).expect(200);
    } finally {
      await domains.remove('radio.example.com');
    }
    // No list: every site may play, sandboxed frames too.
    await join({ Origin: 'null' }).expect(200);
  });

  it('answers whether the asking page may play, live or not, before any join (never cached)', async () => {
    const playable = (origin?: string) => {
      const r = request(t.url).get(`/api/stations/${stationId}/playable`);
      return origin ? r.set('Origin', origin) : r;
    };
    // No list: any site.
    expect((await playable('https://elsewhere.example').expect(200)).body).toEqual({
      allowed: true,
    });
    await domains.add('radio.example.com');
    try {
      const refused = await playable('https://elsewhere.example').expect(200);
      expect(refused.body).toEqual({ allowed: false });
      // Readable from the foreign page itself, and never kept for another origin.
      expect(refused.headers['access-control-allow-origin']).toBe('*');
      expect(refused.headers['cache-control']).toBe('private, no-store');
      expect(refused.headers['vary']).toMatch(/Origin/);
      expect((await playable('null').expect(200)).body).toEqual({ allowed: false });
      expect((await playable(SITE).expect(200)).body).toEqual({ allowed: true });
      // The product's own pages (no Origin on a same-origin GET) may always play.
      expect((await playable().expect(200)).body).toEqual({ allowed: true });
    } finally {
      await domains.remove('radio.example.com');
    }
    await request(t.url)
      .get('/api/stations/3f1c2a4e-1111-4222-8333-444455556666/playable')
      .expect(404);
  });

  it('binds a listener token to the Origin it was issued to, or to no Origin', async () => {
    const plain = (await join().expect(200)).body as JoinStationResponse;
    const withOrigin = await whep({ Origin: SITE, Authorization: `Bearer ${plain.token}` });
    expect(withOrigin.status).toBe(403);
    expect(withOrigin.body).toEqual({
      error: 'DOMAIN_NOT_ALLOWED',
      message: 'This token was issued to another site',
    });
    const site = (await join({ Origin: SITE }).expect(200)).body as JoinStationResponse;
    expect((await whep({ Authorization: `Bearer ${site.token}` })).status).toBe(403);
    expect((await whep({ Origin: 'null', Authorization: `Bearer ${site.token}` })).status).toBe(
      403,
    );
    const ok = await whep({ Origin: SITE, Authorization: `Bearer ${site.token}` });
    expect(ok.status).toBe(201);
    await request(t.url)
      .delete(ok.headers.location!)
      .set('Authorization', `Bearer ${site.token}`)
      .expect(204);
  });

  it('opens one session per listener token (409 for a second offer)', async () => {
    const { token } = (await join({ 'X-Forwarded-For': '198.51.100.9' }).expect(200))
      .body as JoinStationResponse;
    const auth = { Authorization: `Bearer ${token}`, 'X-Forwarded-For': '198.51.100.9' };
    const first = await whep(auth);
    expect(first.status).toBe(201);
    const second = await whep(auth);
    expect(second.status).toBe(409);
    expect(second.body).toEqual({
      error: 'Conflict',
      message: 'This listener token was already used; join again',
    });
    // Leaving does not make the token good for another session.
    await request(t.url).delete(first.headers.location!).set(auth).expect(204);
    expect((await whep(auth)).status).toBe(409);
  });

  it('refuses an offer with more media sections than a listener needs (400)', async () => {
    const sdp = await listenerOffer();
    const audio = sdp.slice(sdp.indexOf('m=audio'));
    const many = sdp + audio.repeat(20).replace(/a=mid:0/g, 'a=mid:x');
    const res = await whep({ 'X-Forwarded-For': '192.0.2.77' }, many);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'ValidationError',
      message: 'Invalid SDP offer: SDP offer has 21 audio sections; at most one is accepted',
    });
  });

  it('caps sessions per client IP (429) and per station (503), and frees a slot on DELETE', async () => {
    const from = (ip: string) => whep({ 'X-Forwarded-For': ip });
    const a1 = await from('203.0.113.1');
    const a2 = await from('203.0.113.1');
    expect([a1.status, a2.status]).toEqual([201, 201]);
    const a3 = await from('203.0.113.1');
    expect(a3.status).toBe(429);
    expect(a3.body).toEqual({
      error: 'TooManyRequests',
      message: 'Too many listening sessions from your address (at most 2)',
    });
    expect(a3.headers['retry-after']).toBe('30');
    expect((await from('203.0.113.2')).status).toBe(201);
    expect((await from('203.0.113.3')).status).toBe(201);
    const full = await from('203.0.113.4');
    expect(full.status).toBe(503);
    expect(full.body.error).toBe('ServiceUnavailable');
    expect(full.body.message).toBe(
      'This station has reached its listener limit (4), try again shortly',
    );
    await request(t.url).delete(a1.headers.location!).expect(204);
    expect((await from('203.0.113.4')).status).toBe(201);
    expect((await from('203.0.113.1')).status).toBe(503);
  });
});
