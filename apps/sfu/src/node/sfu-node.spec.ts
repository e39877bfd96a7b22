import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { createWeriftEngine } from '../werift-engine.js';
import { createTestListener, createTestPublisher, waitFor } from '../test-peers.js';
import type { MediaEngine } from '../media-engine.js';
import { SfuNodeClient } from './client.js';
import { loadSfuNodeConfig } from './config.js';
import { SFU_SECRET_HEADER, sfuKeys, type NodeEvent, type NodeInfo } from './protocol.js';
import { SfuNode } from './sfu-node.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Two SFU nodes in this process (listeners in-thread): registry, auth, relay set-up and teardown. */
describe('SFU node: registry, internal API, origin→edge relay', () => {
  const prefix = `rbnode-${randomBytes(4).toString('hex')}`;
  const secret = 'test-secret';
  const keys = sfuKeys(prefix);
  const redis = new Redis(REDIS_URL);
  const sub = new Redis(REDIS_URL);
  const events: NodeEvent[] = [];
  const engines: MediaEngine[] = [];
  const nodes: SfuNode[] = [];

  const startNode = async (id: string) => {
    const engine = await createWeriftEngine({ shards: 0 });
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
    );
    await node.start();
    nodes.push(node);
    return { node, engine, client: new SfuNodeClient(node.url, secret) };
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
});
