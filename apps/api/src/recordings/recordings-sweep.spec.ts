/**
 * What the recordings sweep does on every node: closes the open recording of a node that died
 * (its heartbeat stopped) at the last page it flushed, leaves a live node's alone, and deletes
 * recordings past their station's retention, rows and files.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OggOpusWriter, opusPacketSamples } from '@radiobroadcaster/audio';
import type { CreateStationResponse, Recording } from '@radiobroadcaster/contracts';
import pg from 'pg';
import request from 'supertest';
import { EventBus } from '../events/event-bus.js';
import { opusPackets, ScriptedTap } from '../../testing/recording-fixtures.js';
import { signUp, startTestApp, type TestApp, type TestUser } from '../../testing/test-app.js';
import { RecordingStorage } from './recording-storage.js';
import { RecordingsRepository } from './recordings.repository.js';
import { RecordingsService } from './recordings.service.js';
import { StationAudioTap } from './station-audio-tap.js';

const run = promisify(execFile);

describe('recordings sweep', () => {
  let t: TestApp;
  let owner: TestUser;
  let db: pg.Client;
  const packets = opusPackets(8);
  const tap = new ScriptedTap();

  beforeAll(async () => {
    t = await startTestApp({ env: { LOG_LEVEL: 'error' } });
    t.app.get(StationAudioTap).attach(tap);
    owner = await signUp(t.url);
    db = new pg.Client({ connectionString: t.config.databaseUrl });
    await db.connect();
  }, 60_000);
  afterAll(async () => {
    await db?.end();
    await t?.close();
  });

  const newStation = async (name: string) =>
    (
      (await request(t.url).post('/api/stations').set(owner.auth).send({ name }))
        .body as CreateStationResponse
    ).station.id;

  const list = async (stationId: string) =>
    (await request(t.url).get(`/api/stations/${stationId}/recordings`).set(owner.auth).expect(200))
      .body as Recording[];

  /**
   * What a node that was killed mid-broadcast leaves: an open row whose heartbeat stopped
   * `ageSeconds` ago, and a file of flushed pages with no end-of-stream page.
   */
  async function crashedRecording(stationId: string, ageSeconds: number, packetCount: number) {
    const repo = t.app.get(RecordingsRepository);
    const id = randomUUID();
    const row = (await repo.create(stationId, id, `${stationId}/${id}.ogg`))!;
    const writer = new OggOpusWriter({ vendor: 'test' });
    const pages = [writer.headers()];
    for (const p of packets.slice(0, packetCount))
      pages.push(writer.page(p, opusPacketSamples(p)).bytes);
    const path = t.app.get(RecordingStorage).localPath(row.storageKey);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, Buffer.concat(pages));
    await db.query(
      `UPDATE recordings SET heartbeat_at = now() - make_interval(secs => $2), duration_seconds = 2
       WHERE id = $1`,
      [id, ageSeconds],
    );
    return { id, path };
  }

  it("closes a dead node's open recording where it was last saved, and leaves a live node's alone", async () => {
    const stationId = await newStation('Crash FM');
    const dead = await crashedRecording(stationId, 120, 250);
    const other = await newStation('Alive FM');
    const alive = await crashedRecording(other, 3, 100);

    await t.app.get(RecordingsService).sweep();

    const [closed] = await list(stationId);
    expect(closed).toMatchObject({
      id: dead.id,
      status: 'ready',
      error: 'The server stopped during the broadcast: the recording ends where it was last saved',
    });
    expect(closed!.durationSeconds).toBeCloseTo(5, 1);
    expect(closed!.endedAt).not.toBeNull();
    // What the dead node flushed plays, with that length, through the public URL.
    const { stdout } = await run('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'format=duration',
      '-of',
      'default=nw=1:nk=1',
      `${t.url}${new URL(closed!.url).pathname}`,
    ]);
    expect(Number(stdout.trim())).toBeCloseTo(5, 1);

    // A node still beating (3 s ago) keeps its recording.
    expect((await list(other))[0]).toMatchObject({ id: alive.id, status: 'recording' });
  }, 60_000);

  it('going live again after a crash closes the dead recording and starts a new one', async () => {
    const stationId = await newStation('Comeback FM');
    const dead = await crashedRecording(stationId, 120, 50);
    await request(t.url)
      .post('/api/stations/recording')
      .set(owner.auth)
      .send({ stationId, enabled: true })
      .expect(200);
    const service = t.app.get(RecordingsService);
    await service.begin(stationId);
    expect(service.recording(stationId)).not.toBeNull();
    tap.play(stationId, packets);
    await t.app.get(EventBus).publish('station.offline', {
      stationId,
      status: 'offline',
      isActive: false,
      lastActiveAt: new Date().toISOString(),
    });
    for (let i = 0; i < 50 && (await list(stationId)).some((r) => r.status === 'recording'); i++)
      await new Promise((r) => setTimeout(r, 100));
    const rows = await list(stationId);
    expect(rows.map((r) => [r.id === dead.id, r.status])).toEqual([
      [false, 'ready'],
      [true, 'ready'],
    ]);
    expect(rows[0]!.durationSeconds).toBeCloseTo(8, 1);
    expect(rows[1]!.durationSeconds).toBeCloseTo(1, 1);
  }, 60_000);

  it('deletes recordings older than the retention, with their files, and keeps the others', async () => {
    const stationId = await newStation('Short Memory FM');
    const old = await crashedRecording(stationId, 120, 50);
    await t.app.get(RecordingsService).sweep();
    const recent = await crashedRecording(stationId, 120, 50);
    await t.app.get(RecordingsService).sweep();
    await db.query(`UPDATE recordings SET started_at = now() - interval '31 days' WHERE id = $1`, [
      old.id,
    ]);
    // No retention yet: both stay.
    await t.app.get(RecordingsService).sweep();
    expect((await list(stationId)).length).toBe(2);

    await request(t.url)
      .post('/api/stations/recording')
      .set(owner.auth)
      .send({ stationId, enabled: true, retentionDays: 30 })
      .expect(200);
    await t.app.get(RecordingsService).sweep();
    expect((await list(stationId)).map((r) => r.id)).toEqual([recent.id]);
    expect(existsSync(old.path)).toBe(false);
    expect(existsSync(recent.path)).toBe(true);
    await request(t.url).get(`/api/recordings/${old.id}/audio.ogg`).set(owner.auth).expect(404);
  }, 60_000);
});
