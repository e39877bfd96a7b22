import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  CapacityError,
  SdpError,
  createWeriftEngine,
  type EngineEvent,
  type MediaEngine,
} from '../index.js';
import { createPeer } from './werift-config.js';
import {
  checkTestPayload,
  connectListeners,
  connectPublisher,
  testPayload,
  createTestListener,
  createTestPublisher,
  waitFor,
  type TestListener,
} from '../../testing/test-peers.js';

/** Listeners in the engine's own thread (shards: 0); the sharded path has its own spec. */
describe('werift media engine (in-thread shard)', () => {
  let engine: MediaEngine;
  const events: EngineEvent[] = [];
  const eventsOf = <T extends EngineEvent['type']>(type: T, stationId: string) =>
    events.filter(
      (e): e is Extract<EngineEvent, { type: T }> =>
        e.type === type && 'stationId' in e && e.stationId === stationId,
    );

  beforeAll(async () => {
    engine = await createWeriftEngine({ shards: 0, publisherTimeoutMs: 30000 });
    engine.on((e) => events.push(e));
  });
  afterAll(async () => {
    await engine.close();
  });

  test('bad SDP is an SdpError and the engine keeps working', async () => {
    const bad = [
      '',
      'garbage',
      'v=0\r\n' + 'a=x\r\n'.repeat(20000),
      'v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=rtpmap:96 VP8/90000\r\n',
    ];
    for (const sdp of bad) {
      await expect(engine.publish('bad', sdp)).rejects.toBeInstanceOf(SdpError);
      await expect(engine.addListener('bad', sdp)).rejects.toBeInstanceOf(SdpError);
    }
    // passes our checks but werift cannot use it (broken candidate and fingerprint lines)
    const pc = createPeer({ iceServers: [] });
    pc.addTransceiver('audio', { direction: 'sendonly' });
    await pc.setLocalDescription(await pc.createOffer());
    const offer = pc.localDescription!.sdp;
    await pc.close();
    const broken = offer
      .replace(/a=fingerprint:.*/g, 'a=fingerprint:sha-256 ZZ')
      .replace(/a=candidate:.*/g, 'a=candidate:1 1 udp x y z');
    await expect(engine.publish('bad', broken)).rejects.toBeInstanceOf(SdpError);
    expect(await engine.hasSession('bad', 'nope')).toBeNull();
    expect(await engine.unpublish('bad', 'nope')).toBe(false);
    expect(await engine.removeListener('bad', 'nope')).toBe(false);
  });

  test('forwards byte-identical payloads, counts, replacement, vanished listener, unpublish', async () => {
    const station = 'st-main';
    const pub1 = await createTestPublisher(engine, station);
    await pub1.connected;
    expect(await engine.hasSession(station, pub1.sessionId)).toBe('publisher');
    const N = 6;
    const listeners: TestListener[] = await connectListeners(engine, station, N, (i) =>
      i % 2 ? 'cm' : 'gcm',
    );
    await Promise.all(listeners.map((l) => l.connected));
    for (const l of listeners)
      expect(await engine.hasSession(station, l.sessionId)).toBe('listener');
    await waitFor(() => engine.listenerCount(station) === N, 3000, 'N listeners counted');
    await waitFor(
      () => eventsOf('listeners', station).at(-1)?.count === N,
      1000,
      'listeners event N',
    );
    expect(engine.stats().perShard[0].srtp).toEqual({ gcm: N / 2, cm: N / 2 });

    await pub1.stream(0, 150);
    await waitFor(
      () => listeners.every((l) => l.received.size >= 149),
      5000,
      '149 packets at every listener',
    );
    expect(eventsOf('publisher-media', station).map((e) => e.sessionId)).toEqual([pub1.sessionId]);
    for (const l of listeners) {
      expect(l.received.size).toBeGreaterThanOrEqual(149);
      expect(l.corrupt).toBe(0);
      expect(l.extensions).toBe(0);
    }

    // replacement: a new publisher with unrelated seq/timestamp bases; listeners keep their sessions.
    // It takes over with its first packet, not before (connected but silent changes nothing).
    const pub2 = await createTestPublisher(engine, station, {
      seqStart: 40000,
      tsStart: 123456789,
    });
    await pub2.connected;
    expect(await engine.hasSession(station, pub1.sessionId)).toBe('publisher');
    expect(await engine.hasSession(station, pub2.sessionId)).toBe('publisher');
    expect(eventsOf('publisher-gone', station)).toEqual([]);
    expect(engine.stats().publishers).toBe(1);
    await pub2.stream(150, 100);
    expect(eventsOf('publisher-gone', station)).toEqual([
      expect.objectContaining({ sessionId: pub1.sessionId, reason: 'replaced' }),
    ]);
    expect(eventsOf('publisher-media', station).map((e) => e.sessionId)).toEqual([
      pub1.sessionId,
      pub2.sessionId,
    ]);
    await waitFor(
      () => listeners.every((l) => [...l.received.keys()].filter((i) => i >= 150).length >= 99),
      5000,
      "99 of the new publisher's packets at every listener",
    );
    for (const l of listeners) {
      const got = [...l.received.keys()].filter((i) => i >= 150).length;
      expect(got).toBeGreaterThanOrEqual(99);
      expect(l.corrupt).toBe(0);
      const a = l.received.get(149);
      const b = l.received.get(150);
      if (a && b) {
        expect((b.seq - a.seq) & 0xffff).toBe(1); // sequence continues across publishers
        const dts = (b.ts - a.ts) >>> 0;
        expect(dts).toBeGreaterThan(0);
        expect(dts).toBeLessThan(48000 * 5);
      }
    }
    expect(engine.listenerCount(station)).toBe(N);
    await pub1.close();

    // a listener that vanishes (no DELETE, no DTLS alert) is removed within 10 s
    const vanished = listeners[0];
    const t0 = Date.now();
    await vanished.close();
    const keepSending = pub2.stream(250, 600);
    await waitFor(
      () => eventsOf('listener-gone', station).some((e) => e.sessionId === vanished.sessionId),
      10000,
      'vanished listener removed',
    );
    expect(Date.now() - t0).toBeLessThanOrEqual(10000);
    expect(await engine.hasSession(station, vanished.sessionId)).toBeNull();
    await waitFor(() => eventsOf('listeners', station).at(-1)?.count === N - 1, 1000, 'count N-1');
    // the others are still alive and receiving
    for (const l of listeners.slice(1)) expect(l.received.has(300)).toBe(true);

    // the rest leave with removeListener; count goes to 0 within 1 s
    for (const l of listeners.slice(1))
      expect(await engine.removeListener(station, l.sessionId)).toBe(true);
    expect(await engine.removeListener(station, listeners[1].sessionId)).toBe(false);
    await waitFor(() => eventsOf('listeners', station).at(-1)?.count === 0, 1000, 'count 0');
    expect(engine.listenerCount(station)).toBe(0);
    await Promise.all(listeners.map((l) => l.close()));

    expect(await engine.unpublish(station, pub2.sessionId)).toBe(true);
    expect(await engine.unpublish(station, pub2.sessionId)).toBe(false);
    expect(eventsOf('publisher-gone', station).at(-1)).toMatchObject({
      sessionId: pub2.sessionId,
      reason: 'deleted',
    });
    await pub2.close();
    await keepSending.catch(() => undefined);
  }, 30000);

  test('a packet publisher goes live, reaches listeners and taps, and is replaced by WHIP', async () => {
    const station = 'st-packets';
    const tapped: number[] = [];
    const offTap = engine.tap(station, (p) => tapped.push(checkTestPayload(p) ?? -1));
    const [l] = await connectListeners(engine, station, 1);
    await l.connected;
    const pub = await engine.publishPackets(station);
    expect(await engine.hasSession(station, pub.sessionId)).toBe('publisher');
    for (let i = 0; i < 100; i++) {
      pub.push(testPayload(i), 960);
      await new Promise((r) => setTimeout(r, 5));
    }
    await waitFor(() => l.received.size >= 99, 3000, 'packets at the listener');
    expect(l.corrupt).toBe(0);
    const a = l.received.get(10)!;
    const b = l.received.get(11)!;
    expect((b.seq - a.seq) & 0xffff).toBe(1);
    expect((b.ts - a.ts) >>> 0).toBe(960);
    expect(eventsOf('publisher-media', station).map((e) => e.sessionId)).toEqual([pub.sessionId]);
    expect(tapped).toEqual([...Array(100).keys()]);

    // a WHIP publisher takes over at its first packet: until then the packet publisher goes on;
    // then it hears why, and the tap hears the new one
    const whip = await createTestPublisher(engine, station);
    await whip.connected;
    pub.push(testPayload(100), 960);
    await whip.stream(101, 20);
    expect(await pub.gone).toBe('replaced');
    pub.push(testPayload(999), 960); // ignored: no longer the station's publisher
    await waitFor(() => tapped.length >= 120, 2000, 'WHIP packets at the tap');
    expect(tapped.slice(100, 120)).toEqual([...Array(20).keys()].map((i) => 100 + i));
    expect(tapped).not.toContain(999);
    offTap();
    await whip.stream(121, 5);
    // they reach the listener, not the tap any more
    await waitFor(() => l.received.has(125), 3000, 'the last packets at the listener');
    expect(tapped.length).toBeLessThan(122);
    await whip.close();
    await l.close();

    // closing it is an unpublish
    const again = await engine.publishPackets(station);
    again.push(testPayload(1), 960);
    await again.close();
    expect(await again.gone).toBe('deleted');
    expect(eventsOf('publisher-gone', station).at(-1)).toMatchObject({
      sessionId: again.sessionId,
      reason: 'deleted',
    });
  }, 20000);

  test('publisher-gone on timeout (stops sending, or never sends)', async () => {
    const station = 'st-timeout';
    const fast = await createWeriftEngine({ shards: 0, publisherTimeoutMs: 1500 });
    const evs: EngineEvent[] = [];
    fast.on((e) => evs.push(e));
    const eventsOf = (type: 'publisher-gone', stationId: string) =>
      evs.filter(
        (e): e is Extract<EngineEvent, { type: 'publisher-gone' }> =>
          e.type === type && e.stationId === stationId,
      );
    const pub = await createTestPublisher(fast, station);
    await pub.connected;
    await pub.stream(0, 10);
    const stopped = Date.now();
    await waitFor(() => eventsOf('publisher-gone', station).length === 1, 4000, 'timeout');
    expect(eventsOf('publisher-gone', station)[0]).toMatchObject({
      sessionId: pub.sessionId,
      reason: 'timeout',
    });
    expect(Date.now() - stopped).toBeGreaterThanOrEqual(1400);
    expect(await fast.hasSession(station, pub.sessionId)).toBeNull();
    await pub.close();

    const packets = await fast.publishPackets('st-packet-stall');
    packets.push(testPayload(0), 960);
    const stalled = Date.now();
    expect(await packets.gone).toBe('timeout');
    expect(Date.now() - stalled).toBeGreaterThanOrEqual(1400);

    const silent = await createTestPublisher(fast, 'st-silent');
    await waitFor(
      () => eventsOf('publisher-gone', 'st-silent').length === 1,
      4000,
      'silent timeout',
    );
    expect(eventsOf('publisher-gone', 'st-silent')[0].reason).toBe('timeout');
    await silent.close();
    await fast.close();
  });

  test('a publisher that never sends changes nothing: the live one keeps going until it times out', async () => {
    const station = 'st-takeover';
    const fast = await createWeriftEngine({ shards: 0, publisherTimeoutMs: 1500 });
    const evs: EngineEvent[] = [];
    fast.on((e) => evs.push(e));
    const tapped: number[] = [];
    fast.tap(station, (p) => tapped.push(checkTestPayload(p) ?? -1));
    const live = await fast.publishPackets(station);
    let i = 0;
    const feed = setInterval(() => live.push(testPayload(i++), 960), 20);
    try {
      await waitFor(() => tapped.length > 5, 2000, 'live packets');
      // a WHIP offer whose peer never connects, and a packet publisher that never pushes
      const pc = createPeer({ iceServers: [] });
      pc.addTransceiver('audio', { direction: 'sendonly' });
      await pc.setLocalDescription(await pc.createOffer());
      const stray = await fast.publish(station, pc.localDescription!.sdp);
      const idle = await fast.publishPackets(station);
      expect(await fast.hasSession(station, stray.sessionId)).toBe('publisher');
      const gone = () =>
        evs.filter(
          (e): e is Extract<EngineEvent, { type: 'publisher-gone' }> => e.type === 'publisher-gone',
        );
      await waitFor(() => gone().length === 2, 5000, 'the stray publishers time out');
      expect(gone().map((e) => [e.sessionId, e.reason])).toEqual(
        expect.arrayContaining([
          [stray.sessionId, 'timeout'],
          [idle.sessionId, 'timeout'],
        ]),
      );
      expect(await idle.gone).toBe('timeout');
      // the live one never stopped: every packet reached the tap, in order
      const heard = tapped.length;
      await waitFor(() => tapped.length > heard + 10, 2000, 'still live');
      expect(tapped).toEqual([...Array(tapped.length).keys()]);
      expect(await fast.hasSession(station, live.sessionId)).toBe('publisher');
      expect(
        evs.filter((e) => e.type === 'publisher-media').map((e) => 'sessionId' in e && e.sessionId),
      ).toEqual([live.sessionId]);
      await pc.close();
    } finally {
      clearInterval(feed);
      await fast.close();
    }
  });

  test('closeStation disconnects publisher and listeners', async () => {
    const station = 'st-close';
    const pub = await connectPublisher(engine, station);
    const [l] = await connectListeners(engine, station, 1);
    await waitFor(() => eventsOf('listeners', station).at(-1)?.count === 1, 2000, 'one listener');
    await engine.closeStation(station);
    expect(await engine.hasSession(station, pub.sessionId)).toBeNull();
    expect(await engine.hasSession(station, l.sessionId)).toBeNull();
    await waitFor(() => eventsOf('listeners', station).at(-1)?.count === 0, 1000, 'count 0');
    expect(eventsOf('publisher-gone', station)[0].reason).toBe('closed');
    await Promise.all([pub.close(), l.close()]);
  });

  test('admission control refuses listeners above maxListeners', async () => {
    const small = await createWeriftEngine({ shards: 0, maxListeners: 1 });
    try {
      const a = await createTestListener(small, 'cap');
      await expect(createTestListener(small, 'cap')).rejects.toBeInstanceOf(CapacityError);
      expect(await small.removeListener('cap', a.sessionId)).toBe(true);
      const b = await createTestListener(small, 'cap');
      await Promise.all([a.close(), b.close()]);
    } finally {
      await small.close();
    }
  });

  test('admits what each shard is measured to hold, at most as many as asked, or any number with 0', async () => {
    const engines = await Promise.all([
      createWeriftEngine({ shards: 0 }),
      createWeriftEngine({ shards: 0, maxListeners: 0 }),
      createWeriftEngine({ shards: 0, maxListeners: 250 }),
      // a machine where one listener would fill the shard
      createWeriftEngine({ shards: 0, capacity: { prior: { perSend: 0.01, perHandshake: 1e-3 } } }),
    ]);
    const [fresh, , , slow] = engines;
    try {
      // before its first measurement a shard holds what a conservative prior allows
      expect(fresh!.stats().maxListeners).toBeGreaterThan(500);
      expect(engines.slice(1).map((e) => e.stats().maxListeners)).toEqual([null, 250, 1]);
      const a = await createTestListener(slow!, 'measured');
      await expect(createTestListener(slow!, 'measured')).rejects.toThrow(
        'listener capacity reached (1)',
      );
      await a.close();
    } finally {
      await Promise.all(engines.map((e) => e.close()));
    }
  });
});
