import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type {
  BroadcastSettings,
  CreateStationResponse,
  Station,
} from '@radiobroadcaster/contracts';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { signUp, startTestApp, type TestApp, type TestUser } from '../../testing/test-app.js';
import { StreamKeysService } from './stream-keys.service.js';

describe('stream keys and broadcast settings (PostgreSQL)', () => {
  let t: TestApp;
  let owner: TestUser;
  let other: TestUser;
  let station: Station;
  let firstKey: string;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await signUp(t.url);
    other = await signUp(t.url);
    const res = await request(t.url)
      .post('/api/stations')
      .set(owner.auth)
      .send({ name: 'Night Owls' })
      .expect(201);
    station = (res.body as CreateStationResponse).station;
  });

  afterAll(async () => {
    await t.close();
  });

  it('shows the owner a persistent key and how to connect OBS, BUTT, Mixxx and ffmpeg', async () => {
    const res = await request(t.url)
      .get(`/api/stations/${station.id}/broadcast-settings`)
      .set(owner.auth)
      .expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.body as BroadcastSettings;
    firstKey = body.streamKey!;
    expect(firstKey).toMatch(/^rbsk_[A-Za-z0-9_-]{43}$/);
    expect(body).toEqual({
      stationId: station.id,
      streamKey: firstKey,
      streamKeyRotatedAt: expect.any(String),
      whipUrl: `${t.config.publicUrl}/whip/${station.id}`,
      icecast: {
        host: new URL(t.config.publicUrl).hostname,
        port: Number(new URL(t.config.publicUrl).port),
        tls: false,
        mount: `/ingest/${owner.username}/night-owls`,
        username: 'source',
      },
      listen: {
        ogg: `${t.config.publicUrl}/listen/${owner.username}/night-owls.ogg`,
        mp3: `${t.config.publicUrl}/listen/${owner.username}/night-owls.mp3`,
        m3u: `${t.config.publicUrl}/listen/${owner.username}/night-owls.m3u`,
        pls: `${t.config.publicUrl}/listen/${owner.username}/night-owls.pls`,
      },
      publicStreamUrl: true,
      publicStreamUrlSetByOwner: false,
      domainsListed: false,
      signedListen: null,
    });
    const again = await request(t.url)
      .get(`/api/stations/${station.id}/broadcast-settings`)
      .set(owner.auth)
      .expect(200);
    expect(again.body.streamKey).toBe(firstKey);
  });

  it('stores only a hash of the key', async () => {
    const rows: Record<string, unknown>[] = await t.app
      .get(DataSource)
      .query('SELECT * FROM station_radio_settings WHERE station_id = $1', [station.id]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(firstKey);
    expect(JSON.stringify(rows)).not.toContain(firstKey.slice(5, 25));
  });

  it('refuses other users (403), signed-out callers (401) and unknown stations (404)', async () => {
    const forbidden = await request(t.url)
      .get(`/api/stations/${station.id}/broadcast-settings`)
      .set(other.auth)
      .expect(403);
    expect(forbidden.body.error).toBe('Forbidden');
    expect(JSON.stringify(forbidden.body)).not.toContain('rbsk_');
    await request(t.url).get(`/api/stations/${station.id}/broadcast-settings`).expect(401);
    await request(t.url)
      .post('/api/stations/stream-key/rotate')
      .set(other.auth)
      .send({ stationId: station.id })
      .expect(403);
    await request(t.url)
      .get('/api/stations/7d0c4a8e-3f7b-4a51-9a55-6b1f4f3c2d10/broadcast-settings')
      .set(owner.auth)
      .expect(404);
    const bad = await request(t.url)
      .post('/api/stations/stream-key/rotate')
      .set(owner.auth)
      .send({ stationId: 'nope' })
      .expect(400);
    expect(bad.body.error).toBe('ValidationError');
  });

  it('rotates the key: the new one is shown and accepted, the old one no longer is', async () => {
    const keys = t.app.get(StreamKeysService);
    expect(await keys.verify(station.id, firstKey)).not.toBeNull();
    const res = await request(t.url)
      .post('/api/stations/stream-key/rotate')
      .set(owner.auth)
      .send({ stationId: station.id })
      .expect(200);
    const { streamKey } = res.body as { streamKey: string };
    expect(Object.keys(res.body)).toEqual(['streamKey']);
    expect(streamKey).toMatch(/^rbsk_/);
    expect(streamKey).not.toBe(firstKey);
    expect(await keys.verify(station.id, firstKey)).toBeNull();
    expect(await keys.verify(station.id, streamKey)).not.toBeNull();
    expect(await keys.verify(station.id, `${streamKey}x`)).toBeNull();
    const shown = await request(t.url)
      .get(`/api/stations/${station.id}/broadcast-settings`)
      .set(owner.auth)
      .expect(200);
    expect(shown.body.streamKey).toBe(streamKey);
  });

  it('turns the public stream URL off and on', async () => {
    const off = await request(t.url)
      .post('/api/stations/broadcast-settings')
      .set(owner.auth)
      .send({ stationId: station.id, publicStreamUrl: false })
      .expect(200);
    expect(off.body.publicStreamUrl).toBe(false);
    expect(
      await t.app.get(StreamKeysService).publicStreamUrl(station.id, station.broadcasterId),
    ).toBe(false);
    await request(t.url)
      .post('/api/stations/broadcast-settings')
      .set(owner.auth)
      .send({ stationId: station.id, publicStreamUrl: 'no' })
      .expect(400);
    await request(t.url)
      .post('/api/stations/broadcast-settings')
      .set(other.auth)
      .send({ stationId: station.id, publicStreamUrl: true })
      .expect(403);
  });
});
