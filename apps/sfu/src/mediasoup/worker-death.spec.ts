/**
 * A mediasoup worker that dies (its C++ process killed): its listeners are told ('listener-gone',
 * reason 'worker-died') and, when their players reconnect, placed again on a live worker and hear
 * the station; the engine starts a new worker in its place on the same ports, which takes listeners
 * again. A dead home worker takes the station's feed with it: the publisher goes ('closed') and,
 * reconnecting, opens the station on a live worker. Runs where the worker is built
 * (scripts/build-mediasoup-worker.sh), and says why when skipped.
 */
import { createSocket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { EngineEvent } from '../media-engine.js';
import {
  connectListeners,
  connectPublisher,
  waitFor,
  type TestListener,
  type TestPublisher,
} from '../../testing/test-peers.js';
import { MediasoupEngine } from './mediasoup-engine.js';
import { findMediasoupWorker } from './worker-bin.js';

const mediasoup = findMediasoupWorker();
if (!mediasoup.available) console.warn(`worker death: skipped (${mediasoup.reason})`);
const run = mediasoup.available ? test : test.skip;

/** Two consecutive UDP ports free now (the workers' RTC_UDP_PORT range). */
async function freeUdpPair(): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const a = createSocket('udp4');
    await new Promise<void>((r) => a.bind(0, '127.0.0.1', r));
    const port = a.address().port;
    const b = createSocket('udp4');
    const ok = await new Promise<boolean>((r) => {
      b.once('error', () => r(false));
      b.bind(port + 1, '127.0.0.1', () => r(true));
    });
    a.close();
    if (ok) b.close();
    if (ok && port < 65535) return port;
  }
  throw new Error('no two consecutive free UDP ports');
}

describe('mediasoup engine: a worker that dies', () => {
  let engine: MediasoupEngine;
  const events: EngineEvent[] = [];
  let udpPort = 0;
  const peers: { close(): Promise<void> }[] = [];
  let pacer: NodeJS.Timeout | undefined;

  beforeAll(async () => {
    if (!mediasoup.available) return;
    udpPort = await freeUdpPair();
    engine = await MediasoupEngine.create({ workers: 2, udpPort, publisherTimeoutMs: 30000 });
    engine.on((e) => events.push(e));
  });
  afterAll(async () => {
    if (pacer) clearInterval(pacer);
    for (const p of peers) await p.close().catch(() => undefined);
    await engine?.close();
  });

  /** Listeners gone for a dead worker since `from` (an index into `events`). */
  const diedSince = (from: number) =>
    events
      .slice(from)
      .filter(
        (e): e is Extract<EngineEvent, { type: 'listener-gone' }> =>
          e.type === 'listener-gone' && e.reason === 'worker-died',
      )
      .map((e) => e.sessionId);
  const hears = (ls: TestListener[], what: string) => {
    const start = ls.map((l) => l.received.size);
    return waitFor(() => ls.every((l, i) => l.received.size > start[i]! + 20), 8000, what);
  };
  let sent = 0;
  const startSending = (pub: TestPublisher) => {
    if (pacer) clearInterval(pacer);
    pacer = setInterval(() => pub.send(sent++), 20);
  };

  run(
    'its listeners are placed again on a live worker; it is restarted on its port and takes listeners',
    async () => {
      const station = 'wd-listeners';
      const pub = await connectPublisher(engine, station);
      peers.push(pub);
      startSending(pub);
      // the fewest listeners first: two on each worker
      const listeners = await connectListeners(engine, station, 4);
      peers.push(...listeners);
      await waitFor(() => engine.listenerCount(station) === 4, 5000, 'four listeners');
      expect(engine.stats().perShard.map((s) => s.listeners)).toEqual([2, 2]);
      await hears(listeners, 'audio on both workers');

      // the station's home is worker 0 (the first station): kill worker 1
      const pids = engine.workerPids();
      const from = events.length;
      process.kill(pids[1]!, 'SIGKILL');
      await waitFor(() => diedSince(from).length === 2, 5000, "worker 1's listeners told");
      const dropped = listeners.filter((l) => diedSince(from).includes(l.sessionId));
      const kept = listeners.filter((l) => !dropped.includes(l));
      expect(dropped).toHaveLength(2);
      for (const l of dropped) expect(await engine.hasSession(station, l.sessionId)).toBeNull();
      expect(engine.listenerCount(station)).toBe(2);
      // the listeners on the live worker go on hearing the station
      await hears(kept, 'audio on the live worker');

      // their players reconnect: placed again, and they hear the station
      const again = await connectListeners(engine, station, 2);
      peers.push(...again);
      await hears(again, 'audio at the reconnected listeners');
      await waitFor(() => engine.listenerCount(station) === 4, 3000, 'four again');

      // the engine started a new worker in its place, on the same port
      await waitFor(
        () => engine.workerPids()[1] !== pids[1] && engine.stats().perShard.length === 2,
        10000,
        'worker 1 restarted',
      );
      expect(engine.workerPids()[0]).toBe(pids[0]);
      const probe = createSocket('udp4');
      const portErr = await new Promise<NodeJS.ErrnoException | null>((r) => {
        probe.once('error', (e) => r(e));
        probe.bind(udpPort + 1, '127.0.0.1', () => r(null));
      });
      probe.close();
      expect(portErr?.code).toBe('EADDRINUSE');
      // it takes listeners again (the fewest go first) and is fed the station (piped again)
      const onNew = await connectListeners(engine, station, 1);
      peers.push(...onNew);
      await hears(onNew, 'audio on the restarted worker');
      const perWorker = engine.stats().perShard.map((s) => s.listeners);
      expect(perWorker[1]).toBeGreaterThanOrEqual(1);
      expect(perWorker.reduce((a, b) => a + b, 0)).toBe(5);
      await engine.closeStation(station);
    },
    60000,
  );

  run(
    "the station's home worker: the publisher goes ('closed'), and reconnecting opens the station on a live worker",
    async () => {
      const station = 'wd-home';
      const pub = await connectPublisher(engine, station);
      peers.push(pub);
      startSending(pub);
      const listeners = await connectListeners(engine, station, 2);
      peers.push(...listeners);
      await hears(listeners, 'audio');
      // the home of a station opened alone is the worker with the fewest homes: worker 0
      const from = events.length;
      const pids = engine.workerPids();
      process.kill(pids[0]!, 'SIGKILL');
      await waitFor(
        () =>
          events
            .slice(from)
            .some(
              (e) =>
                e.type === 'publisher-gone' &&
                e.sessionId === pub.sessionId &&
                e.reason === 'closed',
            ),
        5000,
        'the publisher told',
      );
      await waitFor(() => diedSince(from).length === 2, 5000, 'every listener of the station told');
      expect(engine.listenerCount(station)).toBe(0);

      // the broadcaster and the players reconnect
      const pub2 = await connectPublisher(engine, station);
      peers.push(pub2);
      startSending(pub2);
      const again = await connectListeners(engine, station, 2);
      peers.push(...again);
      await hears(again, 'audio after the home worker died');
      await waitFor(() => engine.workerPids()[0] !== pids[0], 10000, 'worker 0 restarted');
      await engine.closeStation(station);
    },
    60000,
  );
});
