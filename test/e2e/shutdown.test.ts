import { mkdtempSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { Station } from '@radiobroadcaster/contracts';
import pg from 'pg';
import {
  createTestDatabase,
  signUp,
  spawnApiProcess,
  TEST_REDIS_URL,
  type NodeProcess,
} from '../../apps/api/testing/test-app.js';
import { waitUntil } from '../support/processes.js';
import { createRadioStation, icecastSource, type FfmpegRun } from '../support/radio.js';

/** The default grace (SHUTDOWN_GRACE_SECONDS) and what the test allows on a loaded machine. */
const GRACE_MS = 8000;

/** An HTTP `/listen` stream held open; `ended` resolves when the server closes it. */
function openListener(url: string): Promise<{ res: IncomingMessage; ended: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, (res) => {
      res.resume();
      const ended = new Promise<void>((done) => {
        res.once('close', () => done());
        res.once('error', () => done());
      });
      resolve({ res, ended });
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * SIGTERM while an ffmpeg Icecast source, an HTTP listener and a WebRTC listener are connected:
 * the process closes them all and exits 0 within the grace, and the station is offline after it.
 */
describe.each<[string, 'embedded' | 'postgres' | 'postgres+redis']>([
  ['embedded PGlite', 'embedded'],
  ['PostgreSQL', 'postgres'],
  // As deployed with several nodes: the event bus, sessions and listener slots in Redis.
  ['PostgreSQL + Redis', 'postgres+redis'],
])('SIGTERM with a live Icecast station (%s)', (_label, mode) => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c().catch(() => undefined);
  });

  it('closes the source and every listener, exits 0 within the grace, and leaves the station offline', async () => {
    const db = mode === 'embedded' ? null : await createTestDatabase();
    if (db) cleanup.push(() => db.drop());
    const env = {
      DATABASE_URL: db?.url ?? '',
      REDIS_URL: mode === 'postgres+redis' ? TEST_REDIS_URL : '',
      EVENT_PREFIX: `rbtest-${randomBytes(4).toString('hex')}`,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'rb-shutdown-')),
      AUTH_SECRET: randomBytes(32).toString('hex'),
      RATE_LIMIT_PUBLISH_PER_MINUTE: '1000',
      LOG_LEVEL: 'info',
    };
    // Embedded PGlite boots slowly on a busy machine.
    const api: NodeProcess = await spawnApiProcess(env, 120_000);
    cleanup.push(async () => api.kill());
    const owner = await signUp(api.url);
    const s = await createRadioStation(api.url, owner, 'Shutdown FM');
    const port = new URL(api.url).port;
    const source: FfmpegRun = icecastSource(
      `icecast://source:${s.key}@127.0.0.1:${port}${s.settings.icecast.mount}`,
      { frequency: 440, format: 'ogg', seconds: 600 },
    );
    cleanup.push(() => source.stop());
    const status = async (base: string) =>
      ((await (await fetch(`${base}/api/stations/${s.id}`)).json()) as Station).status;
    await waitUntil(async () => (await status(api.url)) === 'live', 30_000, 'station live');

    const http = await openListener(`${api.url}/listen/${owner.username}/${s.slug}.ogg`);
    expect(http.res.statusCode).toBe(200);
    const { ApiClient, WhepListener } = await import('../../apps/cli/src/index.js');
    let rtcPackets = 0;
    const rtc = new WhepListener({
      api: new ApiClient(api.url),
      stationId: s.id,
      record: () => rtcPackets++,
    });
    cleanup.push(() => rtc.stop());
    await rtc.start();
    await waitUntil(async () => rtcPackets > 10, 15_000, 'WebRTC audio');

    const started = Date.now();
    process.kill(api.pid, 'SIGTERM');
    await Promise.race([
      api.exited,
      new Promise((resolve) => setTimeout(resolve, GRACE_MS + 2000).unref()),
    ]);
    const took = Date.now() - started;
    console.log(
      `${mode}: ${took} ms after SIGTERM, exit code ${api.exitCode()} (null: still running)`,
    );
    expect({ exitCode: api.exitCode(), withinGrace: took < GRACE_MS + 2000 }).toEqual({
      exitCode: 0,
      withinGrace: true,
    });
    // The source was cut (ffmpeg ends on a write error) and the HTTP listener's stream ended.
    await Promise.race([
      source.exited,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error('ffmpeg still connected')), 10_000).unref(),
      ),
    ]);
    await http.ended;

    if (db) {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      const { rows } = await client.query('SELECT status FROM stations WHERE id = $1', [s.id]);
      await client.end();
      expect(rows).toEqual([{ status: 'offline' }]);
    } else {
      // Read at once, before the restarted node's own reconciliation could end it.
      const again = await spawnApiProcess({ ...env, PUBLISHER_GRACE_MS: '600000' }, 120_000);
      cleanup.push(() => again.stop());
      expect(await status(again.url)).toBe('offline');
    }
  }, 300_000);
});
