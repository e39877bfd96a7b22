import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { createWeriftEngine } from '../werift/werift-engine.js';
import { MediasoupEngine } from '../mediasoup/mediasoup-engine.js';
import { findMediasoupWorker } from '../mediasoup/worker-bin.js';
import {
  checkTestPayload,
  createTestListener,
  createTestPublisher,
  testPayload,
  waitFor,
} from '../../testing/test-peers.js';
import { ClusterEngine } from '../remote/cluster-engine.js';
import type { MediaEngine } from '../media-engine.js';
import { SfuNodeClient } from '../protocol/client.js';
import { loadSfuNodeConfig } from './config.js';
import { redisKeys } from '../protocol/keys.js';
import { SFU_SECRET_HEADER, type NodeEvent, type NodeInfo } from '../protocol/schemas.js';
import { SfuNode } from './sfu-node.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Two SFU nodes in this process (listeners in-thread): registry, auth, relay set-up and teardown. */
describe('SFU node: registry, internal API, origin→edge relay', () => {
  const prefix = `rbnode-${randomBytes(4).toString('hex')}`;
  const secret = 'test-secret';
  const keys = redisKeys(prefix);
  const redis = new Redis(REDIS_URL);
  const sub = new Redis(REDIS_URL);
  const events: NodeEvent[] = [];
  const engines: MediaEngine[] = [];
  const nodes: SfuNode[] = [];

  const startNode = async (id: string, engineName: 'werift' | 'mediasoup' = 'werift') => {
    const engine =
      engineName === 'mediasoup'
        ? await MediasoupEngine.create({ workers: 1 })
        : await createWeriftEngine({ shards: 0 });
    engines.push(engine);
    const node = new SfuNode(
      engine,
      loadSfuNodeConfig({
        REDIS_URL,
        EVENT_PREFIX: prefix,
        SFU_SECRET: secret,
        SFU_NODE_ID: id,
        SFU_HTTP_HOST: '127.0.0.1',
        SFU_HTTP_PORT: '0',
        SFU_NODE_TTL_MS: '2000',
        SFU_RELAY_LINGER_MS: '200',
      }),
      engineName,
    );
    await node.start();
    nodes.push(node);
    return { node, engine, client: new SfuNodeClient(node.url, secret) };
  };

  /** Only these two nodes take part, and an API node's cluster engine over them. */
  const twoNodeCluster = async (tag: string) => {
    for (const n of nodes) await n.close();
    const a = await startNode(`${prefix}-${tag}a`);
    const b = await startNode(`${prefix}-${tag}b`);
    const cluster = await new ClusterEngine({
      redis: redis.duplicate(),
      prefix,
      secret,
      refreshMs: 200,
      warn: () => undefined,
    }).start();
    return { a, b, cluster };
  };

  beforeAll(async () => {
    await sub.subscribe(keys.events);
    sub.on('message', (_c: string, m: string) => events.push(JSON.parse(m) as NodeEvent));
  });

  afterAll(async () => {
    for (const n of nodes) await n.close();
    for (const e of engines) await e.close();
    redis.disconnect();
    sub.disconnect();
  });

  it('registers with a TTL and refuses calls without the secret', async () => {
    const { node } = await startNode(`${prefix}-x`);
    const raw = await redis.get(keys.node(node.id));
    expect(JSON.parse(raw!) as NodeInfo).toMatchObject({ id: node.id, url: node.url, load: 0 });
    const ttl = await redis.pttl(keys.node(node.id));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2000);
    expect(await redis.sismember(keys.nodes, node.id)).toBe(1);
    expect((await fetch(`${node.url}/v1/info`)).status).toBe(401);
    const bad = await fetch(`${node.url}/v1/info`, { headers: { [SFU_SECRET_HEADER]: 'nope' } });
    expect(bad.status).toBe(401);
    expect((await fetch(`${node.url}/health`)).status).toBe(200);
    // Prometheus text without the secret: which fast paths into werift/Node internals are active
    const metrics = await fetch(`${node.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('rb_sfu_fast_path{path="udp_handle_send"} 1');
    const sdp = await fetch(`${node.url}/v1/publish`, {
      method: 'POST',
      headers: { [SFU_SECRET_HEADER]: secret, 'Content-Type': 'application/json' },
      body: JSON.stringify({ stationId: 's', offer: 'garbage' }),
    });
    expect(sdp.status).toBe(400);
    expect(((await sdp.json()) as { error: string }).error).toBe('SdpError');
    await node.close();
    expect(await redis.exists(keys.node(node.id))).toBe(0);
  });

  it('an edge pulls a station from its origin once, fans it out, and drops the relay after its last listener', async () => {
    const origin = await startNode(`${prefix}-a`);
    const edge = await startNode(`${prefix}-b`);
    const station = 'st-1';
    const pub = await createTestPublisher(origin.client, station);
    await pub.connected;
    let sent = 0;
    const pacer = setInterval(() => pub.send(sent++), 20);
    try {
      const via = { origin: { nodeId: origin.node.id, url: origin.node.url } };
      const edgeApi = { addListener: (s: string, o: string) => edge.client.addListener(s, o, via) };
      const ls = await Promise.all([1, 2, 3].map(() => createTestListener(edgeApi, station)));
      await Promise.all(ls.map((l) => l.connected));
      await waitFor(() => ls.every((l) => l.received.size > 20), 5000, 'audio via the relay');
      expect(ls.every((l) => l.corrupt === 0)).toBe(true);
      await waitFor(() => edge.node.info().listeners === 3, 2000, 'edge count');
      expect(edge.node.info()).toMatchObject({ listeners: 3, relays: 1 });
      expect(origin.node.info()).toMatchObject({ listeners: 0, relayLegs: 1, publishers: 1 });
      await waitFor(
        () =>
          events.some((e) => e.type === 'listeners' && e.node === edge.node.id && e.count === 3),
        2000,
        'listeners event from the edge',
      );
      expect(
        events.some(
          (e) => e.type === 'publisher-media' && e.node === edge.node.id, // relay publisher: not an event
        ),
      ).toBe(false);
      for (const l of ls) {
        await edge.client.removeListener(station, l.sessionId);
        await l.close();
      }
      await waitFor(() => edge.node.info().relays === 0, 3000, 'relay torn down');
      await waitFor(() => origin.node.info().relayLegs === 0, 3000, 'leg gone on the origin');
      expect(origin.node.info().publishers).toBe(1);
    } finally {
      clearInterval(pacer);
      await pub.close();
    }
  }, 30_000);

  it('draining: the node leaves placement, lets its listeners go, refuses new sessions with 503 and keeps its publisher until it leaves', async () => {
    const { a, b, cluster } = await twoNodeCluster('d');
    const station = 'st-drain';
    // the freest node by id: node A becomes the origin
    const pub = await createTestPublisher(cluster, station);
    let pacer: NodeJS.Timeout | undefined;
    const peers: { close(): Promise<void> }[] = [pub];
    try {
      await pub.connected;
      expect(await redis.get(keys.origin(station))).toBe(a.node.id);
      let sent = 0;
      pacer = setInterval(() => pub.send(sent++), 20);
      const onA = await createTestListener(a.client, station);
      peers.push(onA);
      await onA.connected;
      await waitFor(() => a.node.info().listeners === 1, 3000, 'listener counted on A');

      const drained = a.node.drain(20_000);
      let drainedAt = 0;
      void drained.then(() => (drainedAt = Date.now()));
      await waitFor(
        () =>
          events.some(
            (e) =>
              e.type === 'listener-gone' &&
              e.sessionId === onA.sessionId &&
              e.reason === 'node-draining',
          ),
        3000,
        'the listener on A is let go',
      );
      expect(events.some((e) => e.type === 'node-draining' && e.node === a.node.id)).toBe(true);
      const record = JSON.parse((await redis.get(keys.node(a.node.id)))!) as NodeInfo;
      expect(record).toMatchObject({ draining: true, publishers: 1 });
      await waitFor(() => a.node.info().listeners === 0, 2000, 'no listener left on A');

      for (const route of ['/v1/listeners', '/v1/publish']) {
        const res = await fetch(`${a.node.url}${route}`, {
          method: 'POST',
          headers: { [SFU_SECRET_HEADER]: secret, 'Content-Type': 'application/json' },
          body: JSON.stringify({ stationId: station, offer: 'v=0' }),
        });
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('1');
        expect(((await res.json()) as { error: string }).error).toBe('Draining');
      }

      // a new listener goes to B, which pulls the station from A (still its origin)
      const onB = await createTestListener(cluster, station);
      peers.push(onB);
      await onB.connected;
      await waitFor(() => onB.received.size > 20, 5000, 'audio on B through the relay from A');
      expect(onB.corrupt).toBe(0);
      await waitFor(() => b.node.info().listeners === 1, 3000, 'listener counted on B');
      expect(b.node.info().relays).toBe(1);
      expect(a.node.info()).toMatchObject({ listeners: 0, relayLegs: 1 });

      // the drain ends when the publisher leaves (its WHIP DELETE)
      clearInterval(pacer);
      pacer = undefined;
      const left = Date.now();
      expect(await cluster.unpublish(station, pub.sessionId)).toBe(true);
      await pub.close();
      await waitFor(() => drainedAt > 0, 3000, 'drain over once the publisher left');
      expect(drainedAt - left).toBeLessThan(3000);
    } finally {
      if (pacer) clearInterval(pacer);
      for (const p of peers) await p.close().catch(() => undefined);
      await cluster.close();
    }
  }, 30_000);

  it('draining: a publisher that stays is kept only until the drain timeout', async () => {
    for (const n of nodes) await n.close();
    const a = await startNode(`${prefix}-ta`);
    const pub = await createTestPublisher(a.client, 'st-drain-timeout');
    try {
      await pub.connected;
      const t0 = Date.now();
      await a.node.drain(800);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(750);
      expect(a.node.info()).toMatchObject({ draining: true, publishers: 1 });
    } finally {
      await pub.close();
    }
  }, 15_000);

  it('cluster engine: a packet publisher on a node, heard by a listener on another node and by a tap', async () => {
    const { a, b, cluster } = await twoNodeCluster('p');
    const station = 'st-packets';
    const tapped: number[] = [];
    const offTap = cluster.tap(station, (p) => tapped.push(checkTestPayload(p) ?? -1));
    const pub = await cluster.publishPackets(station);
    try {
      expect(await cluster.hasSession(station, pub.sessionId)).toBe('publisher');
      const originId = await redis.get(keys.origin(station));
      const originNode = [a, b].find((n) => n.node.id === originId)!;
      const edge = originNode === a ? b : a;
      expect(originNode.node.info().publishers).toBe(1);
      let sent = 0;
      const pacer = setInterval(() => pub.push(testPayload(sent++), 960), 20);
      try {
        await waitFor(
          () => events.some((e) => e.type === 'publisher-media' && e.stationId === station),
          3000,
          'publisher-media from the node',
        );
        // a listener placed on the other node pulls the station through a relay
        const via = { origin: { nodeId: originNode.node.id, url: originNode.node.url } };
        const l = await createTestListener(
          { addListener: (s: string, o: string) => edge.client.addListener(s, o, via) },
          station,
        );
        await l.connected;
        await waitFor(() => l.received.size > 20, 5000, 'packets at the edge listener');
        expect(l.corrupt).toBe(0);
        await waitFor(() => tapped.length > 20, 5000, 'packets at the tap');
        expect(tapped.every((v, i) => i === 0 || v === tapped[i - 1] + 1)).toBe(true);
        await edge.client.removeListener(station, l.sessionId);
        await l.close();
      } finally {
        clearInterval(pacer);
      }
      await pub.close();
      expect(await pub.gone).toBe('deleted');
      await waitFor(
        () =>
          events.some(
            (e) =>
              e.type === 'publisher-gone' &&
              e.sessionId === pub.sessionId &&
              e.reason === 'deleted',
          ),
        3000,
        'publisher-gone from the node',
      );
      expect(originNode.node.info().publishers).toBe(0);
    } finally {
      offTap();
      await pub.close();
      await cluster.close();
    }
  }, 30_000);
  const mediasoup = findMediasoupWorker();
  (mediasoup.available ? it : it.skip)(
    "one engine per cluster: a node on another engine than the cluster's is ignored (logged on both sides) until the cluster's nodes have left",
    async () => {
      for (const n of nodes) await n.close();
      const a = await startNode(`${prefix}-ea`); // werift: the cluster's oldest node
      const errors: string[] = [];
      const consoleError = console.error;
      console.error = (...args: unknown[]) => void errors.push(args.join(' '));
      const b = await startNode(`${prefix}-eb`, 'mediasoup').finally(
        () => (console.error = consoleError),
      );
      // the node registers its engine, and says at start that the cluster will not use it
      const record = JSON.parse((await redis.get(keys.node(b.node.id)))!) as NodeInfo;
      expect(record.engine).toBe('mediasoup');
      expect(JSON.parse((await redis.get(keys.node(a.node.id)))!)).toMatchObject({
        engine: 'werift',
      });
      expect(errors).toContainEqual(
        expect.stringContaining(
          `${b.node.id} runs the mediasoup engine but the cluster's nodes run werift (oldest: ${a.node.id})`,
        ),
      );
      const warnings: string[] = [];
      const cluster = await new ClusterEngine({
        redis: redis.duplicate(),
        prefix,
        secret,
        refreshMs: 200,
        warn: (m) => warnings.push(m),
      }).start();
      const station = 'st-engines';
      const peers: { close(): Promise<void> }[] = [];
      try {
        expect(cluster.clusterInfo().nodes.map((n) => n.id)).toEqual([a.node.id]);
        expect(warnings).toContain(
          `SFU node ${b.node.id} ignored: it runs the mediasoup engine, the cluster runs werift (its oldest node ${a.node.id}); every SFU node of a cluster runs one engine (MEDIA_ENGINE)`,
        );
        // sessions go to the werift node only
        const pub = await createTestPublisher(cluster, station);
        peers.push(pub);
        await pub.connected;
        const listeners: Awaited<ReturnType<typeof createTestListener>>[] = [];
        for (let i = 0; i < 3; i++) listeners.push(await createTestListener(cluster, station));
        peers.push(...listeners);
        await Promise.all(listeners.map((l) => l.connected));
        await waitFor(() => a.node.info().listeners === 3, 3000, 'three listeners on A');
        expect(b.node.info()).toMatchObject({ listeners: 0, publishers: 0, relays: 0 });
        expect(await redis.get(keys.origin(station))).toBe(a.node.id);
        for (const p of peers.splice(0)) await p.close();

        // the werift node leaves: the mediasoup node is the cluster now, and takes sessions
        await a.node.close();
        await waitFor(
          () =>
            cluster
              .clusterInfo()
              .nodes.map((n) => n.id)
              .join() === b.node.id,
          3000,
          'the mediasoup node in the cluster',
        );
        expect(warnings).toContain(
          `SFU node ${b.node.id} (mediasoup) joins: the cluster now runs mediasoup`,
        );
        const l = await createTestListener(cluster, 'st-engines-2');
        peers.push(l);
        await l.connected;
        await waitFor(() => b.node.info().listeners === 1, 3000, 'a listener on B');
      } finally {
        for (const p of peers) await p.close().catch(() => undefined);
        await cluster.close();
      }
    },
    30_000,
  );
});
