import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreateStationResponse, Station, StationStats } from '@radiobroadcaster/contracts';
import {
  connectPublisher,
  createTestListener,
  waitFor,
  type TestListener,
  type TestPublisher,
} from '../../../sfu/testing/test-peers.js';
import request from 'supertest';
import { signUp, startTestApp, type TestApp, type TestUser } from '../../testing/test-app.js';
import { StatsRollup } from './stats-rollup.js';

const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148';

/** Real WebRTC publisher and listeners over WHIP/WHEP: the media paths record each listening session. */
describe('listening sessions from real WHEP listeners', () => {
  let t: TestApp;
  let owner: TestUser;
  let stationId: string;
  let token: string;
  let publisher: TestPublisher | undefined;
  let pacing = true;
  const listeners: TestListener[] = [];

  const whip = {
    publish: async (id: string, sdp: string) => {
      const res = await fetch(`${t.url}/whip/${id}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/sdp', Authorization: `Bearer ${token}` },
        body: sdp,
      });
      if (res.status !== 201) throw new Error(`WHIP ${res.status}: ${await res.text()}`);
      return {
        sessionId: res.headers.get('location')!.split('/').pop()!,
        answerSdp: await res.text(),
      };
    },
  };
  const whep = (origin: string | null, userAgent: string) => ({
    addListener: async (id: string, sdp: string) => {
      const res = await fetch(`${t.url}/whep/${id}`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/sdp',
          'User-Agent': userAgent,
          ...(origin ? { Origin: origin } : {}),
        },
        body: sdp,
      });
      if (res.status !== 201) throw new Error(`WHEP ${res.status}: ${await res.text()}`);
      return {
        sessionId: res.headers.get('location')!.split('/').pop()!,
        answerSdp: await res.text(),
      };
    },
  });

  beforeAll(async () => {
    t = await startTestApp({ env: { SFU_SHARDS: '0', STATS_ROLLUP_INTERVAL_MS: '600000' } });
    owner = await signUp(t.url);
    const created = (
      await request(t.url).post('/api/stations').set(owner.auth).send({ name: 'Heard FM' })
    ).body as CreateStationResponse;
    stationId = created.station.id;
    token = created.streamToken.token;
  }, 60_000);

  afterAll(async () => {
    pacing = false;
    for (const l of listeners) await l.close();
    await publisher?.close();
    await t.close();
  });

  it('records start, end, transport, place and client kind of each listener', async () => {
    publisher = await connectPublisher(whip, stationId);
    void (async () => {
      for (let i = 0; pacing; i += 10) await publisher!.stream(i, 10);
    })();
    const live = async () =>
      ((await request(t.url).get(`/api/stations/${stationId}`)).body as Station).status === 'live';
    for (let i = 0; i < 100 && !(await live()); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await live()).toBe(true);

    const ownPage = await createTestListener(
      whep(new URL(t.config.publicUrl).origin, CHROME),
      stationId,
    );
    const embed = await createTestListener(whep('https://blog.example.com', IPHONE), stationId);
    listeners.push(ownPage, embed);
    for (const l of listeners) {
      let up = false;
      void l.connected.then(() => (up = true));
      await waitFor(() => up, 15_000, 'listener connected');
    }
    await waitFor(() => embed.received.size > 10, 15_000, 'audio at the embed listener');
    // One leaves with DELETE; the other is disconnected when the owner ends the station.
    await request(t.url).delete(`/whep/${stationId}/sessions/${embed.sessionId}`).expect(204);
    await request(t.url).post('/api/stations/end').set(owner.auth).send({ stationId }).expect(200);

    const rollup = t.app.get(StatsRollup);
    let s: StationStats | undefined;
    for (let i = 0; i < 100; i++) {
      await rollup.run();
      s = (await request(t.url).get(`/api/stations/${stationId}/stats`).set(owner.auth).expect(200))
        .body as StationStats;
      if (s.broadcasts[0]?.endedAt && s.medianSessionSeconds !== null && s.byDomain.length === 2)
        break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(s).toMatchObject({ peakListeners: 2, sessions: 2 });
    expect(s!.byTransport).toEqual([expect.objectContaining({ transport: 'webrtc', sessions: 2 })]);
    expect(s!.byDomain.map((d) => [d.source, d.domain]).sort()).toEqual([
      ['embed', 'blog.example.com'],
      ['site', null],
    ]);
    expect(s!.byClient.map((c) => c.client).sort()).toEqual(['desktop', 'mobile']);
    expect(s!.broadcasts).toHaveLength(1);
    expect(s!.broadcasts[0]).toMatchObject({ sessions: 2, peakListeners: 2 });
    expect(s!.listeningHours).toBeGreaterThan(0);
  }, 90_000);
});
