import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { Station } from '@radiobroadcaster/contracts';
import pg from 'pg';
import {
  createTestDatabase,
  freeLoopbackPort,
  signUp,
  spawnApiProcess,
  TEST_PG_URL,
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

/** Resolves with how long `api` took to exit from now, or with null if it still runs after `ms`. */
async function exitWithin(api: NodeProcess, ms: number): Promise<number | null> {
  const started = Date.now();
  const exited = await Promise.race([
    api.exited.then(() => true),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), ms).unref()),
  ]);
  return exited ? Date.now() - started : null;
}

/** Whatever state the process is in, SIGTERM ends it within the grace; a second signal at once. */
describe('SIGTERM ends the process whatever it is doing (PostgreSQL + Redis)', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c().catch(() => undefined);
  });
  const envFor = async (extra: NodeJS.ProcessEnv = {}) => {
    const db = await createTestDatabase();
    cleanup.push(() => db.drop());
    return {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      EVENT_PREFIX: `rbtest-${randomBytes(4).toString('hex')}`,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'rb-shutdown-')),
      AUTH_SECRET: randomBytes(32).toString('hex'),
      ...extra,
    };
  };

  // A parent busy elsewhere (a Jest worker on a loaded machine) stops reading the process's output:
  // the stdout pipe fills, and pino's flush at exit used to retry the write every 100 ms for ever.
  it('exits within the grace when nobody reads its stdout any more', async () => {
    const api = await spawnApiProcess(await envFor({ LOG_LEVEL: 'info' }), 120_000);
    cleanup.push(async () => api.kill());
    api.stopReading();
    // Request log lines (about 1 kB each) until the pipe is full: then requests go on, lines wait.
    const padding = 'p'.repeat(800);
    for (let i = 0; i < 2000; i++) {
      const res = await fetch(`${api.url}/api/stations/${randomUUID()}?padding=${padding}`);
      expect(res.status).toBe(404);
    }
    process.kill(api.pid, 'SIGTERM');
    const took = await exitWithin(api, GRACE_MS + 2000);
    console.log(`unread stdout: ${took} ms after SIGTERM, exit code ${api.exitCode()}`);
    expect({ took: took !== null && took < GRACE_MS + 2000, exitCode: api.exitCode() }).toEqual({
      took: true,
      exitCode: 0,
    });
  }, 180_000);

  it('ends at once on a second signal while the first shutdown waits', async () => {
    const api = await spawnApiProcess(await envFor({ SHUTDOWN_GRACE_SECONDS: '120' }), 120_000);
    cleanup.push(async () => api.kill());
    // A request whose headers never end holds app.close() (and so the process) until half the grace.
    const socket = connect(Number(new URL(api.url).port), '127.0.0.1');
    cleanup.push(async () => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('error', reject);
    });
    socket.write('GET /api/stations HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    process.kill(api.pid, 'SIGTERM');
    await waitUntil(() => api.output().includes('stopping (SIGTERM'), 10_000, 'stopping line');
    expect(await exitWithin(api, 1000)).toBeNull(); // still shutting down
    process.kill(api.pid, 'SIGINT');
    const took = await exitWithin(api, 3000);
    console.log(`second signal: ${took} ms after SIGINT, ended by ${api.exitSignal()}`);
    expect({ exited: took !== null, signal: api.exitSignal() }).toEqual({
      exited: true,
      signal: 'SIGINT',
    });
  }, 180_000);

  // Whatever holds the main thread (a synchronous loop here, put in with --import), the process is
  // gone at the grace.
  it('is killed at the grace when its event loop is blocked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rb-shutdown-block-'));
    const preload = join(dir, 'block-on-sigterm.mjs');
    writeFileSync(preload, "process.on('SIGTERM', () => setImmediate(() => { for (;;); }));\n");
    const api = await spawnApiProcess(
      await envFor({ NODE_OPTIONS: `--import=${preload}` }),
      120_000,
    );
    cleanup.push(async () => api.kill());
    process.kill(api.pid, 'SIGTERM');
    const took = await exitWithin(api, GRACE_MS + 2000);
    console.log(`blocked event loop: ${took} ms after SIGTERM, ended by ${api.exitSignal()}`);
    expect({ exited: took !== null, signal: api.exitSignal() }).toEqual({
      exited: true,
      signal: 'SIGKILL',
    });
  }, 180_000);

  // No signal handler is ours before the app listens, and no library may swallow the signal then.
  it('ends at once on SIGTERM during start: before any output, and while migrating', async () => {
    const main = fileURLToPath(new URL('../../apps/api/dist/main.js', import.meta.url));
    const env = await envFor();
    const dbName = new URL(env.DATABASE_URL).pathname.slice(1);
    const admin = new pg.Client({ connectionString: TEST_PG_URL });
    await admin.connect();
    cleanup.push(() => admin.end());
    for (const moment of ['spawned', 'database connected'] as const) {
      const port = await freeLoopbackPort();
      const child = spawn(process.execPath, [main], {
        env: {
          ...process.env,
          ...env,
          PORT: String(port),
          PUBLIC_URL: `http://127.0.0.1:${port}`,
          HOST: '127.0.0.1',
          SFU_SHARDS: '0',
          DEMO_STATION: 'false',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      cleanup.push(async () => child.kill('SIGKILL'));
      let output = '';
      child.stdout.on('data', (c: Buffer) => (output += c.toString()));
      child.stderr.on('data', (c: Buffer) => (output += c.toString()));
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      if (moment === 'database connected') {
        const connections = async () =>
          Number(
            (
              await admin.query<{ n: string }>(
                'SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
                [dbName],
              )
            ).rows[0]!.n,
          );
        await waitUntil(
          async () => (await connections()) > 0,
          60_000,
          'the API on its database',
          10,
        );
      }
      const listening = output.includes('listening on');
      const started = Date.now();
      child.kill('SIGTERM');
      await Promise.race([
        exited,
        new Promise((resolve) => setTimeout(resolve, GRACE_MS + 2000).unref()),
      ]);
      const took = Date.now() - started;
      console.log(
        `SIGTERM at "${moment}" (listening: ${listening}): ${took} ms, ended by ${child.signalCode ?? child.exitCode}`,
      );
      expect({ moment, ended: child.exitCode !== null || child.signalCode !== null }).toEqual({
        moment,
        ended: true,
      });
    }
  }, 180_000);
});
