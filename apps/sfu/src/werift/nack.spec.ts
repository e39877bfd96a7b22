/**
 * Loss recovery through the SFU: a listener that NACKs a packet it lost gets it again from the
 * station's packet cache; a packet the publisher lost on its way to us is asked of the publisher.
 * Real werift peers; the loss happens on the wire side of werift (see loseRtp).
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { createWeriftEngine, type MediaEngine } from '../index.js';
import { NackRequester, PacketCache } from '../nack.js';
import {
  connectPublisher,
  createTestListener,
  loseRtp,
  waitFor,
  type TestListener,
} from '../../testing/test-peers.js';
import { createPeer } from './werift-config.js';

describe('NackRequester', () => {
  test('asks at once for every gap, again after ~1.25 RTT, and stops when the packet arrives', () => {
    jest.useFakeTimers({ now: 0 });
    try {
      const sent: number[][] = [];
      const n = new NackRequester((lost) => sent.push(lost), { initialRttMs: 40 });
      n.push(100);
      jest.advanceTimersByTime(20);
      n.push(101);
      jest.advanceTimersByTime(60);
      n.push(104); // 102, 103 lost
      expect(sent).toEqual([[102, 103]]);
      jest.advanceTimersByTime(40);
      expect(sent).toHaveLength(1);
      jest.advanceTimersByTime(20); // 50 ms = 1.25 × 40 ms later: asked again
      expect(sent).toEqual([
        [102, 103],
        [102, 103],
      ]);
      n.push(102);
      jest.advanceTimersByTime(60);
      expect(sent.at(-1)).toEqual([103]);
      expect(n.pending).toEqual([103]);
      expect([n.requested, n.recovered]).toEqual([2, 1]);
      n.close();
    } finally {
      jest.useRealTimers();
    }
  });

  test('handles the sequence wrap, ignores duplicates, treats a big jump as a new stream, gives up', () => {
    jest.useFakeTimers({ now: 0 });
    try {
      const sent: number[][] = [];
      const n = new NackRequester((lost) => sent.push(lost), {
        initialRttMs: 20,
        maxTries: 2,
      });
      n.push(65534, 0);
      n.push(1, 10);
      expect(sent).toEqual([[65535, 0]]);
      n.push(1, 11);
      n.push(65534, 12); // an old duplicate
      expect(sent).toHaveLength(1);
      n.push(5000, 13); // a restart, not 5,000 losses
      expect(sent).toHaveLength(1);
      expect(n.pending).toEqual([]);
      n.push(5002, 14);
      jest.advanceTimersByTime(2000);
      // asked twice (maxTries), then abandoned
      expect(sent.filter((l) => l.includes(5001))).toHaveLength(2);
      expect(n.abandoned).toBe(1);
      n.close();
    } finally {
      jest.useRealTimers();
    }
  });

  test('the packet cache holds the last packets by sequence number', () => {
    const cache = new PacketCache(4);
    for (let seq = 65533; seq < 65533 + 6; seq++) {
      cache.put({ seq: seq & 0xffff, timestamp: seq, marker: false, payload: Buffer.from([seq]) });
    }
    expect(cache.get(65534)).toBeUndefined(); // overwritten
    expect(cache.get(0)?.timestamp).toBe(65536);
    expect(cache.get(2)?.timestamp).toBe(65538);
  });
});

describe('NACK through the werift engine', () => {
  let engine: MediaEngine;
  beforeAll(async () => {
    engine = await createWeriftEngine({ shards: 0, publisherTimeoutMs: 30000 });
  });
  afterAll(async () => {
    await engine.close();
  });

  const connected = async (l: TestListener) => {
    let up = false;
    void l.connected.then(() => (up = true));
    await waitFor(() => up, 10000, `listener connected (${l.pc.connectionState})`);
  };

  test('answers with NACK feedback and Opus in-band FEC', async () => {
    const pc = createPeer({ iceServers: [] });
    pc.addTransceiver('audio', { direction: 'recvonly' });
    await pc.setLocalDescription(await pc.createOffer());
    const offer = pc.localDescription!.sdp;
    await pc.close();
    expect(offer).toMatch(/^a=rtcp-fb:111 nack\r?$/m);
    const { sessionId, answerSdp } = await engine.addListener('st-sdp', offer);
    expect(answerSdp).toMatch(/^a=rtcp-fb:111 nack\r?$/m);
    expect(answerSdp).toMatch(/^a=fmtp:111 .*useinbandfec=1/m);
    await engine.removeListener('st-sdp', sessionId);
  });

  test('a packet lost on the way to a listener is sent again when that listener NACKs it', async () => {
    const station = 'st-nack-listener';
    const pub = await connectPublisher(engine, station);
    const nacking = await createTestListener(engine, station, { nack: true });
    const plain = await createTestListener(engine, station);
    await connected(nacking);
    await connected(plain);
    await waitFor(() => engine.listenerCount(station) === 2, 5000, 'both listeners counted');
    const before = engine.stats().recovery!.retransmittedToListeners;
    // Both lose the same three packets on the wire (the SFU rewrites sequence numbers: pick them by
    // their position in what each listener has seen so far).
    let firstSeq: number | undefined;
    const picks = (seq: number) => {
      firstSeq ??= seq;
      const i = (seq - firstSeq) & 0xffff;
      return i === 20 || i === 21 || i === 40;
    };
    let plainFirst: number | undefined;
    const plainPicks = (seq: number) => {
      plainFirst ??= seq;
      const i = (seq - plainFirst) & 0xffff;
      return i === 20 || i === 21 || i === 40;
    };
    const lostByNacking = loseRtp(nacking.pc, 'in', picks);
    const lostByPlain = loseRtp(plain.pc, 'in', plainPicks);
    await pub.stream(0, 60, 20);
    await waitFor(
      () => nacking.received.size === 60,
      10000,
      'every packet at the NACKing listener',
    );
    expect(lostByNacking.lost).toHaveLength(3);
    expect(lostByPlain.lost).toHaveLength(3);
    // the NACKing listener has all 60, each lost one arriving after a later packet (a resend)
    const lostIdx = [...nacking.received.entries()]
      .filter(([, r]) => lostByNacking.lost.includes(r.seq))
      .map(([i, r]) => ({ i, r }));
    expect(lostIdx.map((x) => x.i).sort((a, b) => a - b)).toEqual([20, 21, 40]);
    // (compared with the next packet that was not lost: 20 and 21 are resent together, 21 after 20)
    const lostSet = new Set(lostIdx.map((x) => x.i));
    for (const { i, r } of lostIdx) {
      let next = i + 1;
      while (lostSet.has(next)) next++;
      expect(r.at).toBeGreaterThanOrEqual(nacking.received.get(next)!.at);
    }
    expect(nacking.corrupt).toBe(0);
    // the listener that never NACKs stays without them: nothing is resent unasked
    expect(plain.received.size).toBe(57);
    expect([20, 21, 40].filter((i) => plain.received.has(i))).toEqual([]);
    expect(engine.stats().recovery!.retransmittedToListeners - before).toBeGreaterThanOrEqual(3);
    await Promise.all([nacking.close(), plain.close(), pub.close()]);
  });

  test('a packet the publisher lost on its way to the SFU is asked of the publisher and reaches listeners', async () => {
    const station = 'st-nack-publisher';
    const pub = await connectPublisher(engine, station);
    const listener = await createTestListener(engine, station);
    await connected(listener);
    await waitFor(() => engine.listenerCount(station) === 1, 5000, 'listener counted');
    const before = engine.stats().recovery!.nackedFromPublishers;
    // the test publisher numbers packet i as seq 1000 + i
    const lost = loseRtp(pub.pc, 'out', (seq) => seq === 1000 + 30 || seq === 1000 + 31);
    await pub.stream(0, 60, 20);
    await waitFor(() => listener.received.size === 60, 5000, 'every packet at the listener');
    expect(lost.lost).toEqual([1030, 1031]);
    expect(listener.corrupt).toBe(0);
    // werift's sender resent them from its own history, because the SFU asked
    const sender = pub.pc.getTransceivers()[0]!.sender as unknown as {
      retransmittedPacketsSent: number;
    };
    expect(sender.retransmittedPacketsSent).toBeGreaterThanOrEqual(2);
    expect(engine.stats().recovery!.nackedFromPublishers - before).toBeGreaterThanOrEqual(2);
    expect(listener.received.get(30)!.at).toBeGreaterThanOrEqual(listener.received.get(32)!.at);
    await Promise.all([listener.close(), pub.close()]);
  });
});
