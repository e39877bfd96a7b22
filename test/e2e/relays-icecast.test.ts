/**
 * Outbound relays end to end, through the process `npm start` runs: a station published over WHIP
 * (the CLI's tone) is pushed by our relay into Debian's stock icecast2 (a temporary configuration on
 * a free port), and ffmpeg, reading from icecast2, hears the tone (frequency checked): as Ogg/Opus
 * to an Icecast mount, and as MP3 through the Shoutcast source protocol. A wrong password shows as
 * a refusal and a retry; icecast2 going away and coming back is reconnected with backoff. And the
 * other way round: a stock icecast2 `<relay>` pulls our `/listen/…ogg` and ffmpeg hears it there.
 * Needs `npm run build`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Relay, RelaysResponse, StationToken } from '@radiobroadcaster/contracts';
import pg from 'pg';
import {
  createTestDatabase,
  type NodeProcess,
  signUp,
  spawnApiProcess,
  type TestUser,
} from '../../apps/api/testing/test-app.js';
import { type Icecast, icecastSources, startIcecast } from '../support/icecast.js';
import {
  createRadioStation,
  ffmpegListen,
  type RadioStation,
  toneCheck,
} from '../support/radio.js';
import { type CliBroadcast, cliBroadcastTone, until } from '../support/web-app.js';

const TONE_HZ = 660;
// The waits below are on the relay's state and icecast2's status, with deadlines that hold when
// another e2e file runs beside this one on a loaded 2-core machine (none of them is a latency goal).

describe('outbound relays into a stock icecast2', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let api: NodeProcess;
  let owner: TestUser;
  let station: RadioStation;
  let icecast: Icecast;
  let broadcast: CliBroadcast | undefined;

  const call = async <T>(path: string, body?: unknown, method?: string): Promise<T> => {
    const res = await fetch(`${api.url}${path}`, {
      method: method ?? (body === undefined ? 'GET' : 'POST'),
      headers: {
        ...owner.auth,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${path} → ${res.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  const relays = async () =>
    (await call<RelaysResponse>(`/api/stations/${station.id}/relays`)).relays;
  const relay = async (id: string) => (await relays()).find((r) => r.id === id)!;

  beforeAll(async () => {
    db = await createTestDatabase();
    api = await spawnApiProcess({
      DATABASE_URL: db.url,
      REDIS_URL: '',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'rb-relay-')),
      AUTH_SECRET: randomBytes(32).toString('hex'),
      PUBLISHER_GRACE_MS: '2000',
      // The relay targets are our own loopback icecast2: the operator's switch allows them.
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    owner = await signUp(api.url);
    station = await createRadioStation(api.url, owner, 'Relay FM');
    icecast = await startIcecast({ shoutcastMount: '/sc' });
  }, 180_000);

  afterAll(async () => {
    await broadcast?.stop();
    await icecast?.stop();
    await api?.stop();
    await db?.drop();
  });

  it('keeps the password encrypted at rest and never returns it', async () => {
    const created = await call<Relay>('/api/stations/relays', {
      stationId: station.id,
      kind: 'icecast',
      url: icecast.url,
      mount: '/relay.ogg',
      username: 'source',
      password: 'not-the-password',
    });
    expect(created).toMatchObject({
      kind: 'icecast',
      mount: '/relay.ogg',
      format: 'ogg',
      enabled: true,
      hasPassword: true,
      status: { state: 'idle', lastError: null },
    });
    expect(JSON.stringify(await relays())).not.toContain('not-the-password');
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ password_encrypted: string }>(
        'SELECT password_encrypted FROM station_relays WHERE id = $1',
        [created.id],
      );
      expect(rows[0]!.password_encrypted).toMatch(/^v1\./);
      expect(rows[0]!.password_encrypted).not.toContain('not-the-password');
      expect(
        Buffer.from(rows[0]!.password_encrypted.split('.')[3]!, 'base64url').toString(),
      ).not.toContain('not-the-password');
    } finally {
      await client.end();
    }
  });

  it('while live, a wrong password shows as refused and retried; the right one pushes Ogg/Opus that ffmpeg hears through icecast2', async () => {
    const [first] = await relays();
    broadcast = await cliBroadcastTone({
      server: api.url,
      station: `${owner.username}/${station.slug}`,
      token: (await call<StationToken>('/api/stations/token/refresh', { stationId: station.id }))
        .token,
      hz: TONE_HZ,
      timeoutMs: 30_000,
    });
    const refused = await until(
      'the relay to be refused',
      () => relay(first!.id),
      (r) => r.status.state === 'retrying',
      45_000,
    );
    expect(refused.status.lastError).toContain('refused the user name or password (401)');
    expect(refused.status.retryAt).not.toBeNull();

    await call('/api/stations/relays/update', {
      relayId: first!.id,
      password: icecast.sourcePassword,
    });
    const live = await until(
      'the relay to go live',
      () => relay(first!.id),
      (r) => r.status.state === 'live' && r.status.bytesSent > 2000,
      45_000,
    );
    expect(live.status.since).not.toBeNull();
    // icecast2 lists a new source a moment after taking it
    const sources = await until(
      'icecast2 to list the mount',
      async () => icecastSources(await icecast.status()),
      (list) => list.some((s) => s.listenurl.endsWith('/relay.ogg') && !!s.server_type),
      45_000,
    );
    const mount = sources.find((s) => s.listenurl.endsWith('/relay.ogg'));
    expect(mount?.server_type).toBe('audio/ogg');
    expect(mount?.server_name).toBe('Relay FM');

    const heard = toneCheck(await ffmpegListen(`${icecast.url}/relay.ogg`, 3), TONE_HZ);
    expect(heard.at).toBeGreaterThan(heard.elsewhere * 20);
  }, 180_000);

  it('pushes MP3 to a Shoutcast-protocol server; ffmpeg hears the tone there; MP3 relays show now playing as their title', async () => {
    const sc = await call<Relay>('/api/stations/relays', {
      stationId: station.id,
      kind: 'shoutcast',
      url: icecast.url,
      mount: '',
      password: icecast.sourcePassword,
    });
    expect(sc.format).toBe('mp3');
    await until(
      'the Shoutcast relay to go live',
      () => relay(sc.id),
      (r) => r.status.state === 'live' && r.status.bytesSent > 8000,
      45_000,
    );
    const mount = (
      await until(
        'icecast2 to list the Shoutcast mount',
        async () => icecastSources(await icecast.status()),
        (list) => list.some((s) => s.listenurl.endsWith('/sc') && !!s.server_type),
        15_000,
      )
    ).find((s) => s.listenurl.endsWith('/sc'));
    expect(mount?.server_type).toBe('audio/mpeg');
    const heard = toneCheck(await ffmpegListen(`${icecast.url}/sc`, 3), TONE_HZ);
    expect(heard.at).toBeGreaterThan(heard.elsewhere * 20);

    // Now playing reaches MP3 relays' listeners as their title, changes included: Shoutcast's
    // admin.cgi, and Icecast's /admin/metadata for an Icecast MP3 relay beside it.
    const mp3 = await call<Relay>('/api/stations/relays', {
      stationId: station.id,
      kind: 'icecast',
      url: icecast.url,
      mount: '/relay.mp3',
      format: 'mp3',
      password: icecast.sourcePassword,
    });
    await until(
      'the Icecast MP3 relay to go live',
      () => relay(mp3.id),
      (r) => r.status.state === 'live',
      45_000,
    );
    const titles = async () => {
      const list = icecastSources(await icecast.status());
      const of = (end: string) => list.find((s) => s.listenurl.endsWith(end))?.title;
      return `${of('/sc')} | ${of('/relay.mp3')}`;
    };
    await call('/api/stations/now-playing', {
      stationId: station.id,
      track: 'Blue in Green',
      artist: 'Miles Davis',
    });
    await until(
      'icecast2 to show the title',
      titles,
      (t) => t === 'Miles Davis - Blue in Green | Miles Davis - Blue in Green',
      45_000,
    );
    await call('/api/stations/now-playing', { stationId: station.id, track: 'So What' });
    await until('icecast2 to show the new title', titles, (t) => t === 'So What | So What', 45_000);
    await call(`/api/stations/relays/${mp3.id}`, undefined, 'DELETE');

    await call(`/api/stations/relays/${sc.id}`, undefined, 'DELETE');
    await until(
      'icecast2 to lose the Shoutcast source',
      async () => icecastSources(await icecast.status()).map((s) => s.listenurl),
      (urls) => !urls.some((u) => u.endsWith('/sc')),
      45_000,
    );
  }, 180_000);

  it('reconnects with backoff when icecast2 goes away and comes back', async () => {
    const [first] = await relays();
    const port = icecast.port;
    const password = icecast.sourcePassword;
    await icecast.stop();
    const lost = await until(
      'the relay to notice',
      () => relay(first!.id),
      (r) => r.status.state === 'retrying',
      45_000,
    );
    expect(lost.status.lastError).toMatch(/closed the connection|connection lost|refused/);
    icecast = await startIcecast({ port, sourcePassword: password });
    await until(
      'the relay to reconnect',
      () => relay(first!.id),
      (r) => r.status.state === 'live',
      45_000,
    );
    const heard = toneCheck(await ffmpegListen(`${icecast.url}/relay.ogg`, 3), TONE_HZ);
    expect(heard.at).toBeGreaterThan(heard.elsewhere * 20);
  }, 180_000);

  it('serves as the source of a stock icecast2 <relay>: ffmpeg hears our /listen stream through icecast2', async () => {
    const listenUrl = `${api.url}/listen/${owner.username}/${station.slug}.ogg`;
    const puller = await startIcecast({ relays: [{ url: listenUrl, localMount: '/ours.ogg' }] });
    try {
      await until(
        'icecast2 to pull our stream',
        async () => icecastSources(await puller.status()).map((s) => s.listenurl),
        (urls) => urls.some((u) => u.endsWith('/ours.ogg')),
        60_000,
      );
      const heard = toneCheck(await ffmpegListen(`${puller.url}/ours.ogg`, 3), TONE_HZ);
      expect(heard.at).toBeGreaterThan(heard.elsewhere * 20);
    } finally {
      await puller.stop();
    }
  }, 180_000);

  it('stops pushing when the broadcast ends', async () => {
    const [first] = await relays();
    await broadcast!.stop();
    broadcast = undefined;
    await until(
      'the relay to go idle',
      () => relay(first!.id),
      (r) => r.status.state === 'idle',
      45_000,
    );
    await until(
      'icecast2 to lose the source',
      async () => icecastSources(await icecast.status()).length,
      (n) => n === 0,
      45_000,
    );
  }, 180_000);
});
