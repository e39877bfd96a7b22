import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type {
  CreateStationResponse,
  Recording,
  RecordingSetting,
} from '@radiobroadcaster/contracts';
import request from 'supertest';
import { EventBus } from '../events/event-bus.js';
import { opusPackets, ScriptedTap } from '../../testing/recording-fixtures.js';
import { signUp, startTestApp, type TestApp, type TestUser } from '../../testing/test-app.js';
import { Recorder } from './recorder.js';
import { RecordingsService } from './recordings.service.js';
import { StationAudioTap } from './station-audio-tap.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Async: the server under test runs in this process and must keep answering ffmpeg. */
const run = promisify(execFile);

async function ffprobeDuration(path: string): Promise<number> {
  const { stdout: out } = await run('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'format=duration',
    '-of',
    'default=nw=1:nk=1',
    path,
  ]);
  return Number(out.toString().trim());
}

describe('recordings', () => {
  let t: TestApp;
  let owner: TestUser;
  let stranger: TestUser;
  let stationId: string;
  let username: string;
  const tap = new ScriptedTap();
  const packets = opusPackets(12);

  beforeAll(async () => {
    t = await startTestApp({ env: { LOG_LEVEL: 'error' } });
    t.app.get(StationAudioTap).attach(tap);
    owner = await signUp(t.url);
    stranger = await signUp(t.url);
    username = owner.username;
    stationId = (
      (await request(t.url).post('/api/stations').set(owner.auth).send({ name: 'Taped FM' }))
        .body as CreateStationResponse
    ).station.id;
  }, 60_000);
  afterAll(async () => {
    await t.close();
  });

  const bus = () => t.app.get(EventBus);
  const state = (status: 'live' | 'offline') => ({
    stationId,
    status,
    isActive: status === 'live',
    lastActiveAt: new Date().toISOString(),
  });

  it('is off by default; only the owner turns it on', async () => {
    const initial = (
      await request(t.url).get(`/api/stations/${stationId}/recording`).set(owner.auth).expect(200)
    ).body as RecordingSetting;
    expect(initial).toEqual({ stationId, enabled: false, retentionDays: null });
    await request(t.url)
      .post('/api/stations/recording')
      .set(stranger.auth)
      .send({ stationId, enabled: true })
      .expect(403);
    await request(t.url)
      .post('/api/stations/recording')
      .set(owner.auth)
      .send({ stationId, enabled: 'yes' })
      .expect(400);
    const on = (
      await request(t.url)
        .post('/api/stations/recording')
        .set(owner.auth)
        .send({ stationId, enabled: true, retentionDays: 30 })
        .expect(200)
    ).body as RecordingSetting;
    expect(on).toEqual({ stationId, enabled: true, retentionDays: 30 });
  });

  it('records a broadcast across a reconnect into one Ogg/Opus file that plays, seeks and has the right duration', async () => {
    const service = t.app.get(RecordingsService);
    await bus().publish('station.live', state('live'));
    for (let i = 0; i < 100 && !service.recording(stationId); i++) await sleep(50);
    expect(service.recording(stationId)).not.toBeNull();
    tap.play(stationId, packets.slice(0, 300));
    await bus().publish('station.nowPlaying', {
      stationId,
      nowPlaying: { track: 'Second half', artist: 'Tone', album: null },
    });
    await sleep(100);
    // The publisher reconnects within the grace: the station never went offline, same recording.
    await bus().publish('station.live', state('live'));
    await sleep(100);
    tap.play(stationId, packets.slice(300));
    await bus().publish('station.offline', state('offline'));
    let list: Recording[] = [];
    for (let i = 0; i < 100; i++) {
      list = (
        await request(t.url)
          .get(`/api/stations/${stationId}/recordings`)
          .set(owner.auth)
          .expect(200)
      ).body as Recording[];
      if (list[0]?.status === 'ready') break;
      await sleep(100);
    }
    expect(list).toHaveLength(1);
    const rec = list[0]!;
    expect(rec.status).toBe('ready');
    expect(rec.durationSeconds).toBeCloseTo(packets.length * 0.02, 1);
    expect(rec.timeline).toEqual([
      { offsetSeconds: 6, track: 'Second half', artist: 'Tone', album: null },
    ]);
    expect(rec.pageUrl).toMatch(new RegExp(`/${username}/taped-fm/replays/${rec.id}$`));

    // Seeking: a Range request gets 206 and exactly the bytes asked for.
    const path = new URL(rec.url).pathname;
    const whole = await request(t.url).get(path).buffer(true).expect(200);
    expect(whole.headers['content-type']).toBe('audio/ogg');
    expect(whole.headers['accept-ranges']).toBe('bytes');
    const part = await request(t.url).get(path).set('Range', 'bytes=1000-1999').expect(206);
    expect(part.headers['content-range']).toBe(`bytes 1000-1999/${rec.sizeBytes}`);
    expect(Buffer.compare(part.body as Buffer, (whole.body as Buffer).subarray(1000, 2000))).toBe(
      0,
    );

    // ffprobe reads the duration; ffmpeg seeks over HTTP (Range) and decodes from 8 s on.
    expect(await ffprobeDuration(`${t.url}${path}`)).toBeCloseTo(12, 1);
    const { stdout: pcm } = await run(
      'ffmpeg',
      [
        '-v',
        'error',
        '-ss',
        '8',
        '-i',
        `${t.url}${path}`,
        '-f',
        's16le',
        '-ac',
        '1',
        '-ar',
        '48000',
        '-',
      ],
      { maxBuffer: 64 * 1024 * 1024, encoding: 'buffer' },
    );
    expect(pcm.length / 2 / 48000).toBeCloseTo(4, 1);

    // Unpublished: gone for everyone but the owner; renamed; deleted.
    const hidden = (
      await request(t.url)
        .post('/api/stations/recordings/update')
        .set(owner.auth)
        .send({ recordingId: rec.id, published: false, title: 'Tone test' })
        .expect(200)
    ).body as Recording;
    expect(hidden).toMatchObject({ published: false, title: 'Tone test' });
    await request(t.url).get(path).expect(404);
    await request(t.url).get(path).set(owner.auth).expect(200);
    expect(
      (await request(t.url).get(`/api/stations/${stationId}/recordings`).expect(200))
        .body as Recording[],
    ).toEqual([]);
    await request(t.url)
      .get(`/api/users/${username}/stations/taped-fm/recordings/${rec.id}`)
      .set(owner.auth)
      .expect(200);
    await request(t.url)
      .delete(`/api/stations/recordings/${rec.id}`)
      .set(stranger.auth)
      .expect(403);
    await request(t.url).delete(`/api/stations/recordings/${rec.id}`).set(owner.auth).expect(204);
    await request(t.url).get(path).set(owner.auth).expect(404);
  }, 90_000);

  it('stops the recording, not the broadcast, when the disk is full', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rb-full-'));
    const path = join(dir, 'rec.ogg');
    symlinkSync('/dev/full', path);
    const failures: string[] = [];
    const recorder = new Recorder(path, (e) => failures.push(e));
    await recorder.start({ TITLE: 'x' });
    recorder.push(packets[0]!);
    const stop = await recorder.stop();
    expect(stop).toEqual({
      reason: 'failed',
      error: 'The disk is full: the recording stopped (the broadcast goes on)',
    });
    expect(failures).toHaveLength(1);
  });
});
