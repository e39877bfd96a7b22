/**
 * Recording real broadcasts end to end: our CLI publishes a tone over WHIP, the media engine's
 * packet tap feeds the recorder, a webhook receiver gets `recording.ready`; and an API whose
 * recordings directory is a tiny tmpfs (its own mount namespace, `unshare`) fills it: the
 * recording stops, the broadcast and its listeners (our CLI over WHEP) go on. Needs `npm run build`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { Recording, Station, WebhooksResponse } from '@radiobroadcaster/contracts';
import {
  createTestDatabase,
  freeLoopbackPort,
  type NodeProcess,
  signUp,
  spawnUntilListening,
  startTestApp,
  type TestApp,
  testConfig,
} from '../../apps/api/testing/test-app.js';
import { WebhookReceiver } from '../../apps/api/testing/webhook-receiver.js';
import { CLI_MAIN, cliBroadcastTone, createStation, REPO_ROOT, until } from '../support/web-app.js';

const run = promisify(execFile);

async function json<T>(url: string, path: string, auth: Record<string, string>, body?: unknown) {
  const res = await fetch(`${url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${path} → ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

/** `radio-broadcaster listen` over WHEP for `seconds`: how many packets it received. */
async function listenPackets(server: string, station: string, seconds: number): Promise<number> {
  const { stdout } = await run(
    process.execPath,
    [
      CLI_MAIN,
      'listen',
      '--server',
      server,
      '--station',
      station,
      '--duration',
      String(seconds),
      '--json',
    ],
    { timeout: (seconds + 30) * 1000 },
  );
  const line = stdout.trim().split('\n').pop()!;
  return (JSON.parse(line) as { packetsReceived: number }).packetsReceived;
}

describe('recording real broadcasts', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it('records what the CLI broadcast and signs the recording.ready webhook', async () => {
    const port = await freeLoopbackPort();
    const t: TestApp = await startTestApp({
      port,
      env: {
        LOG_LEVEL: 'error',
        SFU_SHARDS: '0',
        PUBLISHER_GRACE_MS: '1000',
        OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      },
    });
    cleanups.push(() => t.close());
    const receiver = await new WebhookReceiver('').start();
    cleanups.push(() => receiver.stop());
    const owner = await signUp(t.url);
    const created = await createStation(t.url, owner, { name: 'Taped Live' });
    const stationId = created.station.id;
    await json(t.url, '/api/stations/recording', owner.auth, { stationId, enabled: true });
    await json(t.url, '/api/stations/webhooks', owner.auth, {
      stationId,
      url: receiver.url,
      events: ['recording.ready'],
    });
    receiver.secret = (
      await json<WebhooksResponse>(t.url, `/api/stations/${stationId}/webhooks`, owner.auth)
    ).webhooks[0]!.secret;

    const cli = await cliBroadcastTone({
      server: t.url,
      station: `${owner.username}/taped-live`,
      token: created.streamToken.token,
      hz: 440,
      timeoutMs: 30_000,
    });
    const started = Date.now();
    cleanups.push(() => cli.stop());
    await until(
      'the recording to run',
      () => json<Recording[]>(t.url, `/api/stations/${stationId}/recordings`, owner.auth),
      (l) => l[0]?.status === 'recording',
      15_000,
    );
    expect(await listenPackets(t.url, `${owner.username}/taped-live`, 4)).toBeGreaterThan(100);
    await cli.stop();
    const onAir = (Date.now() - started) / 1000;

    const [rec] = await until(
      'the recording to be ready',
      () => json<Recording[]>(t.url, `/api/stations/${stationId}/recordings`, owner.auth),
      (l) => l[0]?.status === 'ready',
      20_000,
    );
    // The tone as broadcast, give or take the start-up and the last packets in flight.
    expect(rec!.durationSeconds).toBeGreaterThan(4);
    expect(rec!.durationSeconds).toBeLessThanOrEqual(onAir + 0.5);
    const { stdout } = await run('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'format=duration',
      '-of',
      'default=nw=1:nk=1',
      `${t.url}${new URL(rec!.url).pathname}`,
    ]);
    expect(Number(stdout.trim())).toBeCloseTo(rec!.durationSeconds, 0);

    const hook = await until(
      'recording.ready at the receiver',
      async () => receiver.received.find((r) => r.type === 'recording.ready'),
      Boolean,
      20_000,
    );
    expect(hook).toMatchObject({ libraryVerified: true, manualVerified: true });
    const body = JSON.parse(hook!.body) as { data: { recording: Recording } };
    expect(body.data.recording).toMatchObject({
      id: rec!.id,
      status: 'ready',
      url: rec!.url,
      pageUrl: rec!.pageUrl,
    });
  }, 120_000);

  it('a full disk stops the recording; the broadcast goes on and listeners still hear it', async () => {
    const db = await createTestDatabase();
    cleanups.push(() => db.drop());
    const dir = mkdtempSync(join(tmpdir(), 'rb-full-disk-'));
    const port = await freeLoopbackPort();
    const config = testConfig();
    // The API in a mount namespace of its own whose recordings directory is a 48 KiB tmpfs
    // (`unshare -rm` needs no privileges where user namespaces are allowed).
    const api: NodeProcess = await spawnUntilListening(
      '/usr/bin/unshare',
      {
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        SFU_SHARDS: '1',
        REDIS_URL: '',
        DATABASE_URL: db.url,
        DATA_DIR: config.dataDir,
        AUTH_SECRET: config.authSecret,
        PASSWORD_SCRYPT: '1024,8,1',
        RECORDINGS_DIR: dir,
        RB_FULL_DISK_DIR: dir,
        RB_API_MAIN: join(REPO_ROOT, 'apps/api/dist/main.js'),
      },
      'API with a tiny recordings disk',
      60_000,
      [
        '-rm',
        'sh',
        '-c',
        'mount -t tmpfs -o size=48k tmpfs "$RB_FULL_DISK_DIR" && exec "$0" "$RB_API_MAIN"',
        process.execPath,
      ],
    );
    cleanups.push(() => api.stop());
    const owner = await signUp(api.url);
    const created = await createStation(api.url, owner, { name: 'Small Disk' });
    const stationId = created.station.id;
    await json(api.url, '/api/stations/recording', owner.auth, { stationId, enabled: true });
    const cli = await cliBroadcastTone({
      server: api.url,
      station: `${owner.username}/small-disk`,
      token: created.streamToken.token,
      hz: 440,
      timeoutMs: 30_000,
    });
    cleanups.push(() => cli.stop());

    const [rec] = await until(
      'the recording to stop on the full disk',
      () => json<Recording[]>(api.url, `/api/stations/${stationId}/recordings`, owner.auth),
      (l) => l[0]?.status === 'failed',
      60_000,
    );
    expect(rec!.error).toBe('The disk is full: the recording stopped (the broadcast goes on)');
    expect(rec!.sizeBytes).toBeGreaterThan(0);
    expect(rec!.sizeBytes).toBeLessThanOrEqual(48 * 1024);

    // The station is still live, and a listener joining now hears it.
    const station = await json<Station>(api.url, `/api/stations/${stationId}`, {});
    expect(station.status).toBe('live');
    const packets = await listenPackets(api.url, `${owner.username}/small-disk`, 4).catch(
      (err: Error) => {
        throw new Error(`${err.message}\n--- API output:\n${api.output()}`);
      },
    );
    expect(packets).toBeGreaterThan(100);
    // What was written before the disk filled plays.
    const { stdout } = await run('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'format=duration',
      '-of',
      'default=nw=1:nk=1',
      `${api.url}${new URL(rec!.url).pathname}`,
    ]);
    expect(Number(stdout.trim())).toBeGreaterThan(1);
    expect(api.output()).toContain('The disk is full');
    await cli.stop();
  }, 180_000);
});
