import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type {
  BroadcastSettings,
  CreateStationResponse,
  Station,
} from '@radiobroadcaster/contracts';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { PublicStreamDefault1796150000000 } from '../database/migrations/1796150000000-public-stream-default.js';
import { signUp, startTestApp, type TestApp, type TestUser } from '../../testing/test-app.js';
import { ListenGrants } from './listen-grants.js';
import { waitUntil } from '../../../../test/support/wait.js';

/**
 * Who may open `/listen/…` (issue: a page with `<meta name=referrer content=no-referrer>` sends
 * neither Origin nor Referer, like VLC): listing allowed domains turns "Public stream URL" off by
 * default, and then only signed links play.
 */
describe('HTTP listening: public stream URL and signed links (PostgreSQL)', () => {
  let t: TestApp;
  let owner: TestUser;
  let other: TestUser;
  let station: Station;
  let otherStation: Station;

  beforeAll(async () => {
    t = await startTestApp();
    [owner, other] = [await signUp(t.url), await signUp(t.url)];
    const create = async (user: TestUser, name: string) =>
      (
        (await request(t.url).post('/api/stations').set(user.auth).send({ name }).expect(201))
          .body as CreateStationResponse
      ).station;
    station = await create(owner, 'Night Owls');
    otherStation = await create(other, 'Day Larks');
  });

  afterAll(async () => {
    await t.close();
  });

  const settings = async (): Promise<BroadcastSettings> =>
    (
      await request(t.url)
        .get(`/api/stations/${station.id}/broadcast-settings`)
        .set(owner.auth)
        .expect(200)
    ).body as BroadcastSettings;
  const setPublic = async (publicStreamUrl: boolean): Promise<BroadcastSettings> =>
    (
      await request(t.url)
        .post('/api/stations/broadcast-settings')
        .set(owner.auth)
        .send({ stationId: station.id, publicStreamUrl })
        .expect(200)
    ).body as BroadcastSettings;
  /** What VLC, a radio app or a page that hides its referrer sends: no Origin, no Referer. */
  const plain = (path: string, headers: Record<string, string> = {}) =>
    request(t.url).get(path).set(headers);
  const path = (ext: string, s: Station = station) =>
    `/listen/${s.broadcaster.username}/${s.slug}.${ext}`;
  /** Lookups are reused for a second: wait for a change to apply. */
  const until = (what: string, check: () => Promise<boolean>) =>
    waitUntil(check, 10_000, what, 100);

  it('turns "Public stream URL" off once domains are listed; the owner may turn it back on', async () => {
    const before = await settings();
    expect(before).toMatchObject({
      publicStreamUrl: true,
      publicStreamUrlSetByOwner: false,
      domainsListed: false,
      signedListen: null,
    });
    expect((await plain(path('m3u'))).status).toBe(200);

    await request(t.url)
      .post('/api/me/allowed-domains')
      .set(owner.auth)
      .send({ domain: 'radio-fan.example' })
      .expect(201);
    const listed = await settings();
    expect(listed).toMatchObject({
      publicStreamUrl: false,
      publicStreamUrlSetByOwner: false,
      domainsListed: true,
    });
    expect(listed.signedListen?.m3u).toMatch(
      new RegExp(`^${t.config.publicUrl}${path('m3u')}\\?t=[\\w-]+\\.[\\w-]+$`),
    );
    await until(
      'the plain URL to be refused',
      async () => (await plain(path('m3u'))).status === 403,
    );
    for (const ext of ['ogg', 'mp3', 'm3u', 'pls']) {
      const res = await plain(path(ext));
      expect([ext, res.status, res.body]).toEqual([
        ext,
        403,
        {
          error: 'STREAM_NOT_PUBLIC',
          message:
            "This station's stream URL is not public: listen on its page, or ask its owner for a link",
        },
      ]);
    }
    // A Referer or Origin is no pass either: anything can send one.
    expect((await plain(path('ogg'), { Referer: 'https://radio-fan.example/' })).status).toBe(403);

    const on = await setPublic(true);
    expect(on).toMatchObject({
      publicStreamUrl: true,
      publicStreamUrlSetByOwner: true,
      signedListen: null,
    });
    await until(
      'the plain URL to play again',
      async () => (await plain(path('m3u'))).status === 200,
    );
    // Sites the owner did not list are still refused when they say who they are.
    expect((await plain(path('m3u'), { Referer: 'https://elsewhere.example/' })).status).toBe(403);
    expect((await setPublic(false)).publicStreamUrl).toBe(false);
    await until('private again', async () => (await plain(path('m3u'))).status === 403);
  });

  it('plays signed links: a signed playlist lists signed streams for a new listener', async () => {
    const { signedListen } = await settings();
    const token = new URL(signedListen!.m3u).searchParams.get('t')!;
    const res = await fetch(`${t.url}${path('m3u')}?t=${token}`);
    expect(res.status).toBe(200);
    const entries = (await res.text()).split('\n').filter((l) => l.startsWith('http'));
    expect(entries).toHaveLength(2);
    for (const [i, ext] of ['ogg', 'mp3'].entries()) {
      const u = new URL(entries[i]!);
      expect(u.pathname).toBe(path(ext));
      const t2 = u.searchParams.get('t')!;
      expect(t2).toMatch(/^[\w-]+\.[\w-]+$/);
      // a listener id of its own
      expect(t2).not.toBe(token);
      // The signature is accepted: the station is just not on the air.
      const stream = await plain(u.pathname + u.search);
      expect([stream.status, stream.body.error]).toEqual([404, 'STATION_NOT_ACTIVE']);
    }
    const pls = await fetch(`${t.url}${path('pls')}?t=${token}`);
    expect(pls.status).toBe(200);
    expect(await pls.text()).toMatch(/File1=http\S+\.ogg\?t=[\w-]+\.[\w-]+\n/);
  });

  it("refuses unsigned, tampered, expired and other stations' links with 403 and a clear reason", async () => {
    const grants = t.app.get(ListenGrants);
    const base = t.config.publicUrl;
    const fresh = grants.issue(station, { via: 'owner', origin: null }, 600, base);
    const token = new URL(fresh.ogg).searchParams.get('t')!;
    const [body, mac] = token.split('.') as [string, string];
    const refused = async (query: string, message: RegExp) => {
      const res = await plain(`${path('ogg')}?${query}`);
      expect([res.status, res.body.error]).toEqual([403, 'LISTEN_LINK_INVALID']);
      expect(res.body.message).toMatch(message);
    };
    // Another station in the payload, the same signature.
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, stationId: otherStation.id })).toString(
      'base64url',
    );
    await refused(`t=${forged}.${mac}`, /not valid/);
    await refused(`t=${body}.${mac.slice(0, -2)}AA`, /not valid/);
    await refused(`t=${body}`, /not valid/);
    await refused('t=', /not valid/);
    const expired = grants.issue(
      station,
      { via: 'owner', origin: null },
      60,
      base,
      Date.now() - 3600_000,
    );
    await refused(new URL(expired.ogg).search.slice(1), /expired/);
    const elsewhere = grants.issue(otherStation, { via: 'owner', origin: null }, 600, base);
    await refused(new URL(elsewhere.ogg).search.slice(1), /another station/);
    // A signed link on a site the owner did not list is still refused.
    const onForeignSite = await plain(`${path('ogg')}?t=${token}`, {
      Referer: 'https://elsewhere.example/page',
    });
    expect([onForeignSite.status, onForeignSite.body.error]).toEqual([403, 'DOMAIN_NOT_ALLOWED']);
    expect((await plain(`${path('ogg')}?t=${token}`)).status).toBe(404); // accepted, offline
  });

  it('makes stations that had the old default (true) follow the new one on upgrade', async () => {
    const db = t.app.get(DataSource);
    // What every station had before: the column's default, true.
    await db.query(
      `UPDATE station_radio_settings SET public_stream_url = true WHERE station_id = $1`,
      [station.id],
    );
    expect((await settings()).publicStreamUrl).toBe(true);
    const runner = db.createQueryRunner();
    try {
      await new PublicStreamDefault1796150000000().up(runner);
    } finally {
      await runner.release();
    }
    // Its owner lists domains: private now, until they turn it on.
    expect(await settings()).toMatchObject({
      publicStreamUrl: false,
      publicStreamUrlSetByOwner: false,
    });
  });
});
