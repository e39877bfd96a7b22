/**
 * Recordings in an S3-compatible bucket: a real S3 server (s3rver) on loopback, the AWS SDK
 * client. A finished recording moves from the recordings directory to the bucket, plays and seeks
 * through the API with HTTP Range, and is deleted from the bucket.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreateStationResponse, Recording } from '@radiobroadcaster/contracts';
import S3rver from 's3rver';
import request from 'supertest';
import { EventBus } from '../events/event-bus.js';
import { opusPackets, ScriptedTap } from '../../testing/recording-fixtures.js';
import {
  freeLoopbackPort,
  signUp,
  startTestApp,
  type TestApp,
  type TestUser,
} from '../../testing/test-app.js';
import { RecordingStorage } from './recording-storage.js';
import { RecordingsService } from './recordings.service.js';
import { StationAudioTap } from './station-audio-tap.js';

const run = promisify(execFile);
const BUCKET = 'radio-recordings';
const KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

const s3Dir = mkdtempSync(join(tmpdir(), 'rb-s3-'));

/** s3rver on `port`, keeping its objects in one directory across restarts. */
async function startS3(port: number): Promise<S3rver> {
  const server = new S3rver({
    address: '127.0.0.1',
    port,
    silent: true,
    directory: s3Dir,
    configureBuckets: [{ name: BUCKET }],
  });
  await server.run();
  return server;
}

describe('recordings in an S3-compatible bucket', () => {
  let s3: S3rver;
  let endpoint: string;
  let client: S3Client;
  let t: TestApp;
  let owner: TestUser;
  let stationId: string;
  const tap = new ScriptedTap();
  const packets = opusPackets(10);

  beforeAll(async () => {
    const port = await freeLoopbackPort();
    s3 = await startS3(port);
    endpoint = `http://127.0.0.1:${port}`;
    client = new S3Client({
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: KEYS,
    });
    t = await startTestApp({
      env: {
        LOG_LEVEL: 'error',
        RECORDINGS_S3_BUCKET: BUCKET,
        RECORDINGS_S3_ENDPOINT: endpoint,
        RECORDINGS_S3_REGION: 'us-east-1',
        RECORDINGS_S3_ACCESS_KEY_ID: KEYS.accessKeyId,
        RECORDINGS_S3_SECRET_ACCESS_KEY: KEYS.secretAccessKey,
      },
    });
    t.app.get(StationAudioTap).attach(tap);
    owner = await signUp(t.url);
    stationId = (
      (await request(t.url).post('/api/stations').set(owner.auth).send({ name: 'Cloud FM' }))
        .body as CreateStationResponse
    ).station.id;
    await request(t.url)
      .post('/api/stations/recording')
      .set(owner.auth)
      .send({ stationId, enabled: true })
      .expect(200);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    client?.destroy();
    await s3?.close();
  });

  it('uploads a finished recording, serves it with Range from the bucket, and deletes it there', async () => {
    const service = t.app.get(RecordingsService);
    const bus = t.app.get(EventBus);
    const state = (status: 'live' | 'offline') => ({
      stationId,
      status,
      isActive: status === 'live',
      lastActiveAt: new Date().toISOString(),
    });
    await bus.publish('station.live', state('live'));
    for (let i = 0; i < 100 && !service.recording(stationId); i++)
      await new Promise((r) => setTimeout(r, 50));
    const localPath = service.recording(stationId)!.path;
    tap.play(stationId, packets);
    await bus.publish('station.offline', state('offline'));
    let rec: Recording | undefined;
    for (let i = 0; i < 100; i++) {
      [rec] = (
        await request(t.url)
          .get(`/api/stations/${stationId}/recordings`)
          .set(owner.auth)
          .expect(200)
      ).body as Recording[];
      if (rec?.status === 'ready' && !existsSync(localPath)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(rec?.status).toBe('ready');
    // The bucket has it (with the key prefix); the local staging copy is gone.
    expect(existsSync(localPath)).toBe(false);
    const key = `recordings/${stationId}/${rec!.id}.ogg`;
    const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(head.ContentLength).toBe(rec!.sizeBytes);
    const stored = Buffer.from(
      await (
        await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))
      ).Body!.transformToByteArray(),
    );

    // Served through the API: whole, a range (206 and exactly those bytes), a HEAD, a bad range.
    const path = new URL(rec!.url).pathname;
    const whole = await request(t.url).get(path).buffer(true).expect(200);
    expect(whole.headers['content-type']).toBe('audio/ogg');
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(Buffer.compare(whole.body as Buffer, stored)).toBe(0);
    const part = await request(t.url).get(path).set('Range', 'bytes=1000-1999').expect(206);
    expect(part.headers['content-range']).toBe(`bytes 1000-1999/${rec!.sizeBytes}`);
    expect(Buffer.compare(part.body as Buffer, stored.subarray(1000, 2000))).toBe(0);
    const headRes = await request(t.url).head(path).expect(200);
    expect(headRes.headers['content-length']).toBe(String(rec!.sizeBytes));
    await request(t.url)
      .get(path)
      .set('Range', `bytes=${rec!.sizeBytes + 10}-`)
      .expect(416)
      .expect('Content-Range', `bytes */${rec!.sizeBytes}`);

    // ffmpeg reads the duration and seeks over HTTP, through the API, from the bucket.
    const { stdout } = await run('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'format=duration',
      '-of',
      'default=nw=1:nk=1',
      `${t.url}${path}`,
    ]);
    expect(Number(stdout.trim())).toBeCloseTo(10, 1);
    const { stdout: pcm } = await run(
      'ffmpeg',
      ['-v', 'error', '-ss', '7', '-i', `${t.url}${path}`, '-f', 's16le', '-ac', '1', '-'],
      { maxBuffer: 64 * 1024 * 1024, encoding: 'buffer' },
    );
    expect(pcm.length / 2 / 48000).toBeCloseTo(3, 1);

    // Deleting removes the object from the bucket.
    await request(t.url).delete(`/api/stations/recordings/${rec!.id}`).set(owner.auth).expect(204);
    await expect(
      client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key })),
    ).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
    await request(t.url).get(path).set(owner.auth).expect(404);
  }, 90_000);

  it('uploads later what could not be uploaded at the end (the bucket was away)', async () => {
    await s3.close();
    const storage = t.app.get(RecordingStorage);
    const service = t.app.get(RecordingsService);
    const bus = t.app.get(EventBus);
    await bus.publish('station.live', {
      stationId,
      status: 'live',
      isActive: true,
      lastActiveAt: new Date().toISOString(),
    });
    for (let i = 0; i < 100 && !service.recording(stationId); i++)
      await new Promise((r) => setTimeout(r, 50));
    tap.play(stationId, packets.slice(0, 100));
    await service.end(stationId);
    const [rec] = (
      await request(t.url).get(`/api/stations/${stationId}/recordings`).set(owner.auth).expect(200)
    ).body as Recording[];
    // Still local, and served from here meanwhile.
    expect(existsSync(storage.localPath(`${stationId}/${rec!.id}.ogg`))).toBe(true);
    await request(t.url).get(new URL(rec!.url).pathname).expect(200);

    s3 = await startS3(Number(new URL(endpoint).port));
    await service.sweep();
    expect(existsSync(storage.localPath(`${stationId}/${rec!.id}.ogg`))).toBe(false);
    const head = await client.send(
      new HeadObjectCommand({ Bucket: BUCKET, Key: `recordings/${stationId}/${rec!.id}.ogg` }),
    );
    expect(head.ContentLength).toBe(rec!.sizeBytes);
  }, 90_000);
});
