/**
 * Draining an SFU node, end to end: an API process (SFU_MODE=remote), two SFU node processes, the
 * real PostgreSQL and Redis. A station live on node A with 4 CLI listeners (`ReconnectingWhepListener`)
 * there; node B joins and takes a listener of the station (relayed from A); SIGTERM to node A:
 * within 5 s every listener of A hears the station again from node B (A keeps the publisher), A refuses new sessions with 503 + Retry-After,
 * a new listener is placed on B, and once the broadcaster leaves A exits 0.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreateStationResponse } from '@radiobroadcaster/contracts';
import {
  createTestDatabase,
  signUp,
  spawnApiProcess,
  TEST_REDIS_URL,
} from '../../apps/api/testing/test-app.js';
import { ApiClient } from '../../apps/cli/src/api.js';
import { ReconnectingWhepListener } from '../../apps/cli/src/reconnecting-listener.js';
import { SFU_SECRET_HEADER } from '../../apps/sfu/src/protocol/schemas.js';
import {
  checkTestPayload,
  createTestPublisher,
  type TestPublisher,
} from '../../apps/sfu/testing/test-peers.js';
import {
  buildApps,
  sfuNodeInfo,
  spawnSfuNode,
  waitUntil,
  whipThroughApi,
  type SfuProcess,
} from '../support/cluster.js';

const LISTENERS = 4;
const T0 = Date.now();
/** What happened when (printed with CLUSTER_TEST_LOGS; the last ones go into a failure's message). */
const steps: string[] = [];
const step = (what: string) => {
  const line = `[drain ${Date.now() - T0} ms] ${what}`;
  steps.push(line);
  if (process.env.CLUSTER_TEST_LOGS) process.stderr.write(`${line}\n`);
};

describe('cluster: draining an SFU node on SIGTERM', () => {
  const prefix = `rbdrain-${randomBytes(4).toString('hex')}`;
  const secret = randomBytes(16).toString('hex');
  const sfuEnv = {
    REDIS_URL: TEST_REDIS_URL,
    EVENT_PREFIX: prefix,
    SFU_SECRET: secret,
    SFU_SHARDS: '1',
    SFU_DRAIN_TIMEOUT_SECONDS: '20',
    LOG_LEVEL: 'warn',
  };
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let api: Awaited<ReturnType<typeof spawnApiProcess>> | undefined;
  const sfus: SfuProcess[] = [];
  let publisher: TestPublisher | undefined;
  let pacer: NodeJS.Timeout | undefined;
  const listeners: ReconnectingWhepListener[] = [];

  beforeAll(async () => {
    buildApps();
    db = await createTestDatabase();
    const [a, apiProcess] = await Promise.all([
      spawnSfuNode(`${prefix}-a`, sfuEnv),
      spawnApiProcess({
        REDIS_URL: TEST_REDIS_URL,
        EVENT_PREFIX: prefix,
        SFU_SECRET: secret,
        DATABASE_URL: db.url,
        SFU_MODE: 'remote',
        AUTH_SECRET: randomBytes(32).toString('hex'),
        DATA_DIR: `/tmp/rb-drain-${randomBytes(4).toString('hex')}`,
        RATE_LIMIT_JOIN_PER_MINUTE: '10000',
      }),
    ]);
    sfus.push(a);
    api = apiProcess;
  }, 90_000);

  afterAll(async () => {
    if (process.env.CLUSTER_TEST_LOGS)
      for (const n of sfus) console.log(`--- SFU node ${n.id}\n${n.output().slice(-4000)}`);
    if (pacer) clearInterval(pacer);
    await Promise.allSettled(listeners.map((l) => l.stop()));
    await publisher?.close().catch(() => undefined);
    await api?.stop();
    await Promise.allSettled(sfus.map((n) => n.stop()));
    await db?.drop();
  }, 30_000);

  const info = (node: SfuProcess) => sfuNodeInfo(node, secret);
  const sfuNodesSeen = async (n: number) =>
    new RegExp(`rb_sfu_nodes ${n}`).test(await (await fetch(`${api!.url}/metrics`)).text());

  it("moves a draining node's listeners to another node within 5 s, keeps its publisher, refuses new sessions, then exits 0", async () => {
    const apiUrl = api!.url;
    const nodeA = sfus[0]!;
    await waitUntil(() => sfuNodesSeen(1), 10_000, 'node A registered');

    // ---- a station live on node A (the only node), 4 listeners there
    const owner = await signUp(apiUrl);
    const created = await fetch(`${apiUrl}/api/stations`, {
      method: 'POST',
      headers: { ...owner.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Drain' }),
    });
    expect(created.status).toBe(201);
    const { station, streamToken } = (await created.json()) as CreateStationResponse;
    const whip = whipThroughApi(apiUrl, streamToken.token);
    publisher = await createTestPublisher(whip, station.id);
    await publisher.connected;
    step('publisher connected');
    let sent = 0;
    const t0 = Date.now();
    pacer = setInterval(() => {
      const due = Math.floor((Date.now() - t0) / 20);
      while (sent < due) publisher!.send(sent++);
    }, 5);
    await waitUntil(
      async () =>
        /"status":"live"/.test(await (await fetch(`${apiUrl}/api/stations/${station.id}`)).text()),
      10_000,
      'station live',
    );
    let corrupt = 0;
    const client = new ApiClient(apiUrl);
    const join = async () => {
      const l = new ReconnectingWhepListener({
        api: client,
        stationId: station.id,
        stallMs: 2000,
        connectTimeoutMs: 5000,
        reconnectTimeoutMs: 3000,
        onReconnect: (attempt, reason) => step(`listener reconnect #${attempt}: ${reason}`),
        record: (p) => {
          if (checkTestPayload(p.payload) === null) corrupt++;
        },
      });
      listeners.push(l);
      await l.start(3);
      return l;
    };
    for (let i = 0; i < LISTENERS; i++) await join();
    step('listeners joined');
    const moving = [...listeners];
    await waitUntil(() => moving.every((l) => l.packetsReceived > 0), 10_000, 'audio on A');
    await waitUntil(async () => (await info(nodeA)).listeners === LISTENERS, 3000, 'A counts 4');

    // ---- node B joins the cluster
    const nodeB = await spawnSfuNode(`${prefix}-b`, sfuEnv);
    sfus.push(nodeB);
    await waitUntil(() => sfuNodesSeen(2), 10_000, 'both nodes registered');

    // the station already has listeners on B (relayed from A), as a busy station would
    const onB = await join();
    await waitUntil(() => onB.packetsReceived > 0, 5000, 'audio on B');
    expect(await info(nodeB)).toMatchObject({ listeners: 1, relays: 1 });
    step('node B up, one listener there');
    // ---- SIGTERM to node A
    const termAt = Date.now();

    process.kill(nodeA.pid, 'SIGTERM');
    const progress = setInterval(
      () =>
        step(
          moving
            .map((l) => `${l.state}/${l.reconnects}/${l.lastResumeAt ? 'audio' : '-'}`)
            .join(' '),
        ),
      250,
    );
    const moved = await waitUntil(
      () => moving.every((l) => l.reconnects >= 1 && l.lastResumeAt !== undefined),
      5000,
      "node A's listeners hear audio again",
      20,
    )
      .catch((err: Error) => {
        // where each listener stood (state/reconnects/audio since), every 250 ms
        throw new Error(`${err.message}\n${steps.slice(-30).join('\n')}`);
      })
      .finally(() => clearInterval(progress));
    console.log(`drain: all ${LISTENERS} listeners hear audio again ${moved} ms after SIGTERM`);
    await waitUntil(
      async () => (await info(nodeB)).listeners === LISTENERS + 1,
      3000,
      'B counts the 5 listeners',
    );
    const [afterA, afterB] = await Promise.all([info(nodeA), info(nodeB)]);
    expect(afterA).toMatchObject({ draining: true, listeners: 0, publishers: 1, relayLegs: 1 });
    expect(afterB).toMatchObject({ listeners: LISTENERS + 1, relays: 1 });

    // audio flows on B, byte for byte
    const before = moving.map((l) => l.packetsReceived);
    await waitUntil(
      () => moving.every((l, i) => l.packetsReceived - before[i]! > 40),
      10_000,
      'more than 40 packets at every moved listener',
    );
    expect(corrupt).toBe(0);

    step('listeners moved, audio checked');
    // ---- node A refuses new sessions while draining
    for (const route of ['/v1/listeners', '/v1/publish']) {
      const res = await fetch(`${nodeA.url}${route}`, {
        method: 'POST',
        headers: { [SFU_SECRET_HEADER]: secret, 'Content-Type': 'application/json' },
        body: JSON.stringify({ stationId: station.id, offer: 'v=0' }),
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(((await res.json()) as { error: string }).error).toBe('Draining');
    }

    // ---- the API places a new listener on B
    const late = await join();
    await waitUntil(() => late.packetsReceived > 0, 5000, 'audio on the new listener');
    await waitUntil(
      async () => (await info(nodeB)).listeners === LISTENERS + 2,
      3000,
      'B counts the new listener',
    );
    expect((await info(nodeA)).listeners).toBe(0);
    expect(nodeA.exitCode()).toBeNull(); // still serving its publisher

    step('late listener on B');
    // ---- the broadcaster leaves: node A has nothing left and exits 0
    clearInterval(pacer);
    pacer = undefined;
    const bye = await fetch(`${apiUrl}${whip.locations[0]!}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${streamToken.token}` },
    });
    expect(bye.ok).toBe(true);
    await waitUntil(() => nodeA.exitCode() !== null, 5000, 'node A to exit');
    expect(nodeA.exitCode()).toBe(0);
    console.log(`drain: node A exited 0, ${Date.now() - termAt} ms after SIGTERM`);
    await waitUntil(() => sfuNodesSeen(1), 5000, 'node A gone from the API');
  }, 120_000);
});
