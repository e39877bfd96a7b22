/**
 * A crash leaves a station "live" in the database with nobody publishing. After `kill -9` of the
 * real API process and a restart on the same database, the station waits one grace period for its
 * publisher (reconnecting), then goes offline with the usual push to browsers; join is then refused
 * with STATION_NOT_ACTIVE.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type {
  CreateStationResponse,
  Station,
  StationUpdatePush,
} from '@radiobroadcaster/contracts';
import { io, type Socket } from 'socket.io-client';
import {
  createTestDatabase,
  freeLoopbackPort,
  signUp,
  spawnApiProcess,
} from '../../apps/api/testing/test-app.js';
import { runCliProcess, waitUntil, type RunningProcess } from '../support/processes.js';
import { within } from '../support/wait.js';

const GRACE_MS = 3000;

describe('a station left live by a crash', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let env: NodeJS.ProcessEnv;
  let api: Awaited<ReturnType<typeof spawnApiProcess>> | undefined;
  let broadcaster: RunningProcess | undefined;
  let socket: Socket | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
    env = {
      DATABASE_URL: db.url,
      REDIS_URL: '',
      PORT: String(await freeLoopbackPort()),
      DATA_DIR: mkdtempSync(join(tmpdir(), 'rb-crash-')),
      AUTH_SECRET: randomBytes(32).toString('hex'),
      PUBLISHER_GRACE_MS: String(GRACE_MS),
    };
    api = await spawnApiProcess(env);
  }, 60_000);

  afterAll(async () => {
    socket?.disconnect();
    await broadcaster?.stop('SIGKILL');
    await api?.stop();
    await db?.drop();
  });

  it('goes offline one grace period after the API restarts, and browsers are told', async () => {
    const owner = await signUp(api!.url);
    const created = (await (
      await fetch(`${api!.url}/api/stations`, {
        method: 'POST',
        headers: { ...owner.auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Crash FM' }),
      })
    ).json()) as CreateStationResponse;
    const id = created.station.id;
    const station = async (): Promise<Station> =>
      (await (await fetch(`${api!.url}/api/stations/${id}`)).json()) as Station;

    broadcaster = runCliProcess([
      'broadcast',
      '--station',
      `${owner.username}/${created.station.slug}`,
      '--server',
      api!.url,
      '--token',
      created.streamToken.token,
      '--tone',
      '440',
    ]);
    await waitUntil(async () => (await station()).status === 'live', 15_000, 'live');

    // The broadcaster's machine and the API die together: nothing tells anyone.
    await broadcaster.stop('SIGKILL');
    broadcaster = undefined;
    api!.kill();
    await api!.exited;
    api = await spawnApiProcess(env);
    const restartedAt = Date.now();
    // Still on air for now: live, or already marked as waiting for its publisher.
    expect(await station()).toMatchObject({
      status: expect.stringMatching(/^(live|reconnecting)$/),
      isActive: true,
    });

    socket = io(api.url, { transports: ['websocket'], forceNew: true });
    const offline = new Promise<{ push: StationUpdatePush; at: number }>((resolve) => {
      socket!.on('station:update', (push: StationUpdatePush) => {
        if (push.id === id && push.status === 'offline') resolve({ push, at: Date.now() });
      });
    });
    const joined = (await socket.timeout(5000).emitWithAck('station:join', { stationId: id })) as {
      ok: boolean;
    };
    expect(joined.ok).toBe(true);

    const { push, at } = await within(offline, GRACE_MS + 15_000, 'the offline push');
    expect(push).toMatchObject({ id, status: 'offline', isActive: false });
    // Not before the grace period (a publisher that reconnects at once keeps the station live).
    expect(at - restartedAt).toBeGreaterThanOrEqual(GRACE_MS - 1500);
    expect(await station()).toMatchObject({ status: 'offline', isActive: false });
    const join = await fetch(`${api.url}/api/joinStationAsReceiver`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ stationId: id }),
    });
    expect(join.status).toBe(409);
    expect(((await join.json()) as { error: string }).error).toBe('STATION_NOT_ACTIVE');
  }, 60_000);
});
