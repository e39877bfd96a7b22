import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  CapacityError,
  createWeriftEngine,
  resolveShardWorker,
  type EngineEvent,
} from '../index.js';
import {
  connectListeners,
  connectPublisher,
  createTestListener,
  waitFor,
} from '../../testing/test-peers.js';

/**
 * Worker-thread shards. A worker does not get Jest's TypeScript transform, so the engine (running here from
 * the TypeScript sources) starts the compiled `apps/sfu/dist/werift/shard-worker.js`: build it first.
 */
describe('werift media engine with worker-thread shards', () => {
  const repo = fileURLToPath(new URL('../../../../', import.meta.url));
  beforeAll(() => {
    execFileSync(process.execPath, [`${repo}node_modules/typescript/bin/tsc`, '-b', 'apps/sfu'], {
      cwd: repo,
      stdio: 'inherit',
    });
  }, 60000);

  let engine: Awaited<ReturnType<typeof createWeriftEngine>>;
  const events: EngineEvent[] = [];
  afterAll(async () => {
    await engine?.close();
  });

  test('listeners spread over 2 shards receive every packet byte for byte; counts exact', async () => {
    expect(resolveShardWorker()?.pathname).toMatch(/dist\/werift\/shard-worker\.js$/);
    engine = await createWeriftEngine({ shards: 2, publisherTimeoutMs: 30000 });
    engine.on((e) => events.push(e));
    expect(engine.shardMode).toBe('worker');
    const station = 'sharded';
    const pub = await connectPublisher(engine, station);
    const N = 8;
    const listeners = await connectListeners(engine, station, N, (i) => (i % 2 ? 'cm' : 'gcm'));
    let up = 0;
    for (const p of [pub.connected, ...listeners.map((l) => l.connected)]) void p.then(() => up++);
    await waitFor(() => up === N + 1, 25000, 'publisher and listeners connected').catch(
      (e: Error) => {
        const states = [pub, ...listeners].map(
          (p) => `${p.pc.iceConnectionState}/${p.pc.connectionState}`,
        );
        throw new Error(`${e.message}: ${states.join(' ')} ${JSON.stringify(engine.stats())}`);
      },
    );
    await waitFor(() => engine.listenerCount(station) === N, 3000, 'N listeners');
    await waitFor(
      () =>
        events.filter((e) => e.type === 'listeners').at(-1)?.type === 'listeners' &&
        engine.listenerCount(station) === N,
      1000,
      'listeners event',
    );
    await pub.stream(0, 150);
    await waitFor(
      () => listeners.every((l) => l.received.size >= 149),
      5000,
      '149 packets at every listener',
    );
    for (const l of listeners) {
      expect(l.received.size).toBeGreaterThanOrEqual(149);
      expect(l.corrupt).toBe(0);
    }
    await waitFor(
      () =>
        engine.stats().perShard.every((s) => s.listeners === N / 2) &&
        engine.stats().packetsOut >= 150 * N - N,
      3000,
      'stats from shards',
    );
    const st = engine.stats();
    expect(st.shards).toBe(2);
    expect(st.packetsIn).toBe(150);
    expect(st.packetsOut).toBeGreaterThanOrEqual(150 * N - N);

    // churn: remove half, add some, remove all; the final count must be exact (0)
    await Promise.all(
      listeners.slice(0, N / 2).map((l) => engine.removeListener(station, l.sessionId)),
    );
    const more = await connectListeners(engine, station, 4);
    let upMore = 0;
    for (const p of more.map((l) => l.connected)) void p.then(() => upMore++);
    await waitFor(() => upMore === more.length, 15000, 'new listeners connected');
    await waitFor(() => engine.listenerCount(station) === N, 3000, 'after churn');
    await Promise.all(
      [...listeners.slice(N / 2), ...more].map((l) => engine.removeListener(station, l.sessionId)),
    );
    await waitFor(
      () =>
        (events.filter((e) => e.type === 'listeners').at(-1) as { count: number } | undefined)
          ?.count === 0,
      1000,
      'count 0',
    );
    expect(engine.listenerCount(station)).toBe(0);
    await Promise.all([...listeners, ...more].map((l) => l.close()));
    expect(await engine.unpublish(station, pub.sessionId)).toBe(true);
    await pub.close();
  }, 60000);

  test('admission: a burst of joins is admitted up to the capacity, the next refused, a freed seat reused', async () => {
    const small = await createWeriftEngine({ shards: 2, maxListeners: 6 });
    const pub = await connectPublisher(small, 'cap');
    try {
      // 6 offers at once: all admitted (no early "busy" refusal while 6 handshakes run)
      const burst = await Promise.all(
        Array.from({ length: 6 }, () => createTestListener(small, 'cap')),
      );
      expect(burst.every((l) => l.sessionId)).toBe(true);
      await expect(createTestListener(small, 'cap')).rejects.toBeInstanceOf(CapacityError);
      // freeing one seat admits exactly one more
      expect(await small.removeListener('cap', burst[0]!.sessionId)).toBe(true);
      const again = await createTestListener(small, 'cap');
      await expect(createTestListener(small, 'cap')).rejects.toBeInstanceOf(CapacityError);
      await Promise.all([...burst, again].map((l) => l.close()));
    } finally {
      await pub.close();
      await small.close();
    }
  }, 60000);
});
