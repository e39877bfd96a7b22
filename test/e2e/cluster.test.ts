/**
 * Cluster mode end to end: 2 API processes (SFU_MODE=remote) and 2 SFU node processes on loopback,
 * the real PostgreSQL and Redis. A publisher on SFU node A (through API 1), 10 listeners placed on
 * SFU node B (through API 2) hear it through B's relay from A, byte for byte; with 2 more listeners
 * on node A, viewerCount is the sum over the nodes (12) on both API nodes; SIGKILL of node B moves
 * its listeners to A by themselves and the count is 12 again within 15 s.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreateStationResponse, Station } from '@radiobroadcaster/contracts';
import {
  createTestDatabase,
  signUp,
  spawnApiProcess,
  TEST_REDIS_URL,
} from '../../apps/api/testing/test-app.js';
import { ApiClient } from '../../apps/cli/src/api.js';
import { ReconnectingWhepListener } from '../../apps/cli/src/reconnecting-listener.js';
import { SfuNodeClient } from '../../apps/sfu/src/protocol/client.js';
import {
  checkTestPayload,
  createTestListener,
  createTestPublisher,
  type TestListener,
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

const LISTENERS = 10;
const T0 = Date.now();
const step = (what: string) =>
  process.env.CLUSTER_TEST_LOGS &&
  process.stderr.write(`[cluster ${Date.now() - T0} ms] ${what}\n`);

describe('cluster: 2 API nodes, 2 SFU nodes, origin→edge relay, failover', () => {
  const prefix = `rbcluster-${randomBytes(4).toString('hex')}`;
  const secret = randomBytes(16).toString('hex');
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let apis: Awaited<ReturnType<typeof spawnApiProcess>>[] = [];
  const sfus = new Map<string, SfuProcess>();
  let publisher: TestPublisher | undefined;
  let pacer: NodeJS.Timeout | undefined;
  const listeners: ReconnectingWhepListener[] = [];
  const directListeners: TestListener[] = [];

  beforeAll(async () => {
    buildApps();
    db = await createTestDatabase();
    const common = { REDIS_URL: TEST_REDIS_URL, EVENT_PREFIX: prefix, SFU_SECRET: secret };
    const sfuEnv = { ...common, SFU_SHARDS: '1', SFU_PUBLISHER_WEIGHT: '50', LOG_LEVEL: 'warn' };
    const apiEnv = {
      ...common,
      DATABASE_URL: db.url,
      SFU_MODE: 'remote',
      AUTH_SECRET: randomBytes(32).toString('hex'),
      DATA_DIR: `/tmp/rb-cluster-${randomBytes(4).toString('hex')}`,
      RATE_LIMIT_JOIN_PER_MINUTE: '10000',
      PUBLISHER_GRACE_MS: '2000',
      // Every listener of this test comes from 127.0.0.1: count them all (VIEWER_COUNT_PER_ADDRESS).
      VIEWER_COUNT_PER_ADDRESS: '0',
    };
    const [a, b, api1] = await Promise.all([
      spawnSfuNode(`${prefix}-a`, sfuEnv),
      spawnSfuNode(`${prefix}-b`, sfuEnv),
      spawnApiProcess(apiEnv),
    ]);
    sfus.set('a', a);
    sfus.set('b', b);
    apis.push(api1);
    // After the first: it ran the migrations.
    apis.push(await spawnApiProcess(apiEnv));
  }, 90_000);

  afterAll(async () => {
    if (process.env.CLUSTER_TEST_LOGS)
      for (const [k, n] of sfus) console.log(`--- SFU node ${k}\n${n.output().slice(-4000)}`);
    if (pacer) clearInterval(pacer);
    await Promise.allSettled(listeners.map((l) => l.stop()));
    await Promise.allSettled(directListeners.map((l) => l.close()));
    await publisher?.close().catch(() => undefined);
    await Promise.allSettled(apis.map((n) => n.stop()));
    await Promise.allSettled([...sfus.values()].map((n) => n.stop()));
    apis = [];
    await db?.drop();
  }, 30_000);

  const info = (node: SfuProcess) => sfuNodeInfo(node, secret);
  const viewerCount = async (apiUrl: string, stationId: string): Promise<number> => {
    const res = await fetch(`${apiUrl}/api/stations/${stationId}`);
    const body = (await res.json()) as Station | { station: Station };
    return 'station' in body ? body.station.viewerCount : body.viewerCount;
  };

  it('relays a station from its origin to listeners on another node, and fails over', async () => {
    const [api1, api2] = apis as [(typeof apis)[0], (typeof apis)[0]];
    const nodeA = sfus.get('a')!;
    const nodeB = sfus.get('b')!;
    // Both API nodes see both SFU nodes.
    for (const api of apis) {
      await waitUntil(
        async () => /rb_sfu_nodes 2/.test(await (await fetch(`${api.url}/metrics`)).text()),
        10_000,
        'both SFU nodes registered',
      );
    }
    const health = (await (await fetch(`${api2.url}/health`)).json()) as {
      checks: { sfu?: { status: string; nodes: number } };
    };
    expect(health.checks.sfu).toMatchObject({ status: 'up', nodes: 2 });

    step('nodes registered');
    // ---- publisher on node A through API 1
    const owner = await signUp(api1.url);
    const created = await fetch(`${api1.url}/api/stations`, {
      method: 'POST',
      headers: { ...owner.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Cluster' }),
    });
    expect(created.status).toBe(201);
    const { station, streamToken } = (await created.json()) as CreateStationResponse;
    publisher = await createTestPublisher(whipThroughApi(api1.url, streamToken.token), station.id);
    await publisher.connected;
    let sent = 0;
    const t0 = Date.now();
    pacer = setInterval(() => {
      const due = Math.floor((Date.now() - t0) / 20);
      while (sent < due) publisher!.send(sent++);
    }, 5);
    await waitUntil(
      async () => {
        const res = await fetch(`${api2.url}/api/stations/${station.id}`);
        return /"status":"live"/.test(await res.text());
      },
      10_000,
      'station live',
    );
    expect((await info(nodeA)).publishers).toBe(1);
    // Placement reads the nodes' registry records (renewed every ~1.2 s): wait until API 2 sees
    // the publisher's weight on node A.
    await waitUntil(
      async () => /rb_live_stations 1/.test(await (await fetch(`${api2.url}/metrics`)).text()),
      5000,
      'API 2 sees the publisher on node A',
    );

    step('publisher up, live');
    // ---- 10 listeners through API 2: placed on node B (the origin counts its publisher as load)
    const got = Array.from({ length: LISTENERS }, () => new Map<number, number>());
    let corrupt = 0;
    const api = new ApiClient(api2.url);
    // Two at a time, as a crowd arrives (many simultaneous DTLS set-ups straggle on 2 cores).
    let next = 0;
    const joinOne = async (k: number) => {
      const map = got[k]!;
      {
        const l = new ReconnectingWhepListener({
          api,
          stationId: station.id,
          stallMs: 2000,
          reconnectTimeoutMs: 3000,
          connectTimeoutMs: 5000,
          onReconnect: (attempt, reason) => step(`listener ${k} reconnect #${attempt}: ${reason}`),
          record: (p) => {
            const idx = checkTestPayload(p.payload);
            if (idx === null) corrupt++;
            else map.set(idx, (map.get(idx) ?? 0) + 1);
          },
        });
        listeners.push(l);
        const t = Date.now();
        await l.start(3);
        step(`listener ${k} connected in ${Date.now() - t} ms`);
      }
    };
    await Promise.all(
      [0, 1].map(async () => {
        while (next < LISTENERS) await joinOne(next++);
      }),
    );
    step('listeners started');
    await waitUntil(
      () => listeners.every((l) => l.packetsReceived > 0),
      10_000,
      'audio on every listener',
    );
    // Engine counts settle a moment after the first packets (coalesced count events).
    await waitUntil(
      async () => (await info(nodeB)).listeners === LISTENERS,
      3000,
      'node B counts the 10 listeners',
    ).catch(() => undefined);
    const [infoA, infoB] = await Promise.all([info(nodeA), info(nodeB)]);
    expect(infoB.listeners).toBe(LISTENERS);
    expect(infoB.relays).toBe(1);
    expect(infoA.listeners).toBe(0);
    expect(infoA.relayLegs).toBe(1);

    step('placement checked');
    // ---- ≥ 99 % of the packets, byte-identical, over a window of 200 packets (4 s of audio)
    const from = sent + 5;
    await waitUntil(() => sent >= from + 210, 20_000, '200 more packets sent');
    const to = sent - 10;
    for (const map of got) {
      let n = 0;
      for (let i = from; i < to; i++) if (map.has(i)) n++;
      expect(n / (to - from)).toBeGreaterThanOrEqual(0.99);
    }
    expect(corrupt).toBe(0);

    step('packets checked');
    // ---- viewerCount = sum over the nodes, on both API nodes: add 2 listeners on node A itself
    // (straight on its internal API, as the API would place them if B were fuller).
    const nodeAClient = new SfuNodeClient(nodeA.url, secret);
    const onA = await Promise.all(
      [0, 1].map(() =>
        createTestListener(
          { addListener: (s: string, o: string) => nodeAClient.addListener(s, o) },
          station.id,
        ),
      ),
    );
    directListeners.push(...onA);
    await Promise.all(onA.map((l) => l.connected));
    for (const a of apis) {
      await waitUntil(
        async () => (await viewerCount(a.url, station.id)) === LISTENERS + 2,
        5000,
        'viewerCount = 10 on B + 2 on A',
      );
    }
    expect((await info(nodeA)).listeners).toBe(2);
    const metrics = await (await fetch(`${api1.url}/metrics`)).text();
    expect(metrics).toMatch(/rb_relay_legs 1/);
    expect(metrics).toMatch(
      new RegExp(`rb_sfu_node_listeners\\{node="${prefix}-b"\\} ${LISTENERS}`),
    );

    step('counts checked');
    // ---- node B dies: every listener is back on node A within 10 s, the count is right
    const killedAt = Date.now();
    nodeB.kill();
    const progress = setInterval(
      () =>
        step(
          `after kill: ${listeners.map((l) => `${l.state}/${l.reconnects}/${l.lastResumeAt ? 'audio' : '-'}`).join(' ')}`,
        ),
      1000,
    );
    const moved = await waitUntil(
      () => listeners.every((l) => l.reconnects >= 1 && l.lastResumeAt !== undefined),
      10_000,
      'listeners hear audio again after node B died',
    );
    clearInterval(progress);
    console.log(`failover: all ${LISTENERS} listeners hear audio again ${moved} ms after SIGKILL`);
    await waitUntil(
      async () => (await info(nodeA)).listeners === LISTENERS + 2,
      3000,
      'node A counts the 12 listeners',
    ).catch(() => undefined);
    expect((await info(nodeA)).listeners).toBe(LISTENERS + 2);
    for (const a of apis) {
      await waitUntil(
        async () => (await viewerCount(a.url, station.id)) === LISTENERS + 2,
        15_000 - (Date.now() - killedAt),
        'viewerCount after failover',
      );
    }
    console.log(
      `failover: viewerCount ${LISTENERS + 2} on both API nodes ${Date.now() - killedAt} ms after SIGKILL`,
    );
    step('failover counts checked');
    // Still byte-identical and flowing on node A.
    const after = sent + 5;
    await waitUntil(() => sent >= after + 110, 20_000, '100 more packets sent');
    const end = sent - 10;
    for (const map of got) {
      let n = 0;
      for (let i = after; i < end; i++) if (map.has(i)) n++;
      expect(n / (end - after)).toBeGreaterThanOrEqual(0.99);
    }
    expect(corrupt).toBe(0);
    const metricsAfter = await (await fetch(`${api2.url}/metrics`)).text();
    expect(metricsAfter).toMatch(/rb_sfu_nodes 1/);
    expect(metricsAfter).toMatch(/rb_relay_legs 0/);

    // ---- the API node that took the WHIP session dies too; then the broadcaster leaves: the other
    // API node (now the leader) runs the station's lifecycle: offline after the grace period.
    api1.kill();
    await waitUntil(
      async () => /rb_cluster_leader 1/.test(await (await fetch(`${api2.url}/metrics`)).text()),
      10_000,
      'API 2 leads',
    );
    clearInterval(pacer);
    pacer = undefined;
    await publisher.close();
    const offline = await waitUntil(
      async () =>
        /"status":"offline"/.test(
          await (await fetch(`${api2.url}/api/stations/${station.id}`)).text(),
        ),
      12_000,
      'station offline through API 2',
    );
    console.log(`orphaned station went offline ${offline} ms after its publisher left`);

    // ---- the SFU node holding a publisher dies: nothing reports the publisher gone, yet the
    // station goes offline once the node's registration expires and the grace period has passed.
    const second = await fetch(`${api2.url}/api/stations`, {
      method: 'POST',
      headers: { ...owner.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'On node A' }),
    });
    const secondStation = (await second.json()) as CreateStationResponse;
    const publisherA = await createTestPublisher(
      whipThroughApi(api2.url, secondStation.streamToken.token),
      secondStation.station.id,
    );
    await publisherA.connected;
    let sentA = 0;
    pacer = setInterval(() => publisherA.send(sentA++), 20);
    const statisecondStation = async () =>
      await (await fetch(`${api2.url}/api/stations/${secondStation.station.id}`)).text();
    await waitUntil(
      async () => /"status":"live"/.test(await statisecondStation()),
      10_000,
      'second station live',
    );
    nodeA.kill();
    const gone = await waitUntil(
      async () => /"status":"offline"/.test(await statisecondStation()),
      20_000,
      'station offline after its SFU node died',
    );
    clearInterval(pacer);
    pacer = undefined;
    await publisherA.close();
    console.log(`station went offline ${gone} ms after its SFU node was killed`);
  }, 90_000);
});
