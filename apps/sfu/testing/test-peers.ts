/**
 * werift peers for tests and the benchmark: a publisher that sends crafted Opus-like RTP whose payload
 * encodes its packet index, and listeners that verify every payload byte.
 */
import {
  GenericNack,
  MediaStreamTrack,
  RtcpTransportLayerFeedback,
  RtpHeader,
  RtpPacket,
  type RTCPeerConnection,
} from '../src/boundary/werift.js';
import { iceConnectionOf, offerSrtpProfiles } from '../src/boundary/internals.js';
import type { MediaEngine } from '../src/media-engine.js';
import { NackRequester } from '../src/nack.js';
import { createPeer } from '../src/werift/werift-config.js';

export const TEST_PAYLOAD_BYTES = 160;

/** Payload of packet `index`: 4-byte index then a pattern derived from it. */
export function testPayload(index: number, size = TEST_PAYLOAD_BYTES): Buffer {
  const b = Buffer.alloc(size);
  b.writeUInt32BE(index >>> 0, 0);
  for (let i = 4; i < size; i++) b[i] = (index * 7 + i * 13) & 0xff;
  return b;
}

export function checkTestPayload(p: Buffer): number | null {
  if (p.length < 8) return null;
  const index = p.readUInt32BE(0);
  for (let i = 4; i < p.length; i++) if (p[i] !== ((index * 7 + i * 13) & 0xff)) return null;
  return index;
}

export function waitFor(cond: () => boolean, timeoutMs: number, what = 'condition'): Promise<void> {
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (cond()) return resolve();
      if (Date.now() - start > timeoutMs) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 20);
    };
    tick();
  });
}

interface IceConnectionInternals {
  send(data: Buffer): Promise<void>;
  onData: { execute(data: Buffer): void };
}

/**
 * A lossy network on one side of a peer: the RTP packets whose sequence number `drop` picks are lost,
 * the first time each is sent ('out') or arrives ('in'); a retransmission of the same packet passes.
 * The drop happens on the wire side of werift (encrypted SRTP; the RTP header is in the clear).
 */
export function loseRtp(
  pc: RTCPeerConnection,
  direction: 'in' | 'out',
  drop: (seq: number) => boolean,
): { lost: number[] } {
  const t = pc.getTransceivers()[0]!;
  const conn = iceConnectionOf<IceConnectionInternals>(t.dtlsTransport);
  const out = { lost: [] as number[] };
  const seen = new Set<number>();
  const pick = (buf: Buffer) => {
    // RTP version 2 with our payload type 111 (RTCP's packet types 200-206 never match)
    if (buf.length < 12 || buf[0]! >> 6 !== 2 || (buf[1]! & 0x7f) !== 111) return false;
    const seq = buf.readUInt16BE(2);
    if (seen.has(seq) || !drop(seq)) return false;
    seen.add(seq);
    out.lost.push(seq);
    return true;
  };
  if (direction === 'out') {
    const send = conn.send.bind(conn);
    conn.send = (data: Buffer) => (pick(data) ? Promise.resolve() : send(data));
  } else {
    const execute = conn.onData.execute.bind(conn.onData);
    conn.onData.execute = (data: Buffer) => {
      if (!pick(data)) execute(data);
    };
  }
  return out;
}

/**
 * Offers, hands the offer to the engine and applies its answer; when the engine refuses (capacity,
 * bad SDP) the peer is closed before the error goes on, so its UDP sockets do not outlive the test.
 */
async function negotiate(
  pc: RTCPeerConnection,
  answer: (offer: string) => Promise<{ sessionId: string; answerSdp: string }>,
): Promise<{ sessionId: string }> {
  try {
    await pc.setLocalDescription(await pc.createOffer());
    const { sessionId, answerSdp } = await answer(pc.localDescription!.sdp);
    await pc.setRemoteDescription({ type: 'answer', sdp: answerSdp });
    return { sessionId };
  } catch (err) {
    await pc.close().catch(() => undefined);
    throw err;
  }
}

export interface TestPublisher {
  pc: RTCPeerConnection;
  sessionId: string;
  connected: Promise<void>;
  /** Send packet `index` (payload testPayload(index)); seq/timestamp derived from index + offsets. */
  send(index: number): void;
  /** Send `count` packets starting at `from`, one every `intervalMs`. */
  stream(from: number, count: number, intervalMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function createTestPublisher(
  engine: Pick<MediaEngine, 'publish'>,
  stationId: string,
  opts: { seqStart?: number; tsStart?: number } = {},
): Promise<TestPublisher> {
  const pc = createPeer({ iceServers: [] });
  const track = new MediaStreamTrack({ kind: 'audio' });
  pc.addTransceiver(track, { direction: 'sendonly' });
  const connected = new Promise<void>((resolve) => {
    pc.connectionStateChange.subscribe((s) => s === 'connected' && resolve());
  });
  const { sessionId } = await negotiate(pc, (offer) => engine.publish(stationId, offer));
  const seqStart = opts.seqStart ?? 1000;
  const tsStart = opts.tsStart ?? 5000;
  const send = (index: number) => {
    const header = new RtpHeader({
      payloadType: 111,
      sequenceNumber: (seqStart + index) & 0xffff,
      timestamp: (tsStart + index * 960) >>> 0,
      marker: index === 0,
      ssrc: 1234,
    });
    track.writeRtp(new RtpPacket(header, testPayload(index)));
  };
  return {
    pc,
    sessionId,
    connected,
    send,
    async stream(from, count, intervalMs = 20) {
      const t0 = Date.now();
      for (let i = 0; i < count; i++) {
        send(from + i);
        const due = t0 + (i + 1) * intervalMs;
        await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
      }
    },
    close: () => pc.close(),
  };
}

export interface TestListener {
  pc: RTCPeerConnection;
  sessionId: string;
  connected: Promise<void>;
  /** packet index -> arrival time and RTP header fields, for payloads that verified byte for byte */
  received: Map<number, { at: number; seq: number; ts: number }>;
  corrupt: number;
  extensions: number;
  payloadTypes: Set<number>;
  close(): Promise<void>;
}

export async function createTestListener(
  engine: Pick<MediaEngine, 'addListener'>,
  stationId: string,
  opts: { srtp?: 'gcm' | 'cm'; nack?: boolean } = {},
): Promise<TestListener> {
  const pc = createPeer({ iceServers: [] });
  const t = pc.addTransceiver('audio', { direction: 'recvonly' });
  if (opts.srtp === 'cm') {
    // offer only AES_CM_128_HMAC_SHA1_80, as Chromium and GStreamer end up negotiating
    offerSrtpProfiles(t.dtlsTransport, [0x0001]);
  }
  const l: TestListener = {
    pc,
    sessionId: '',
    connected: new Promise<void>((resolve) => {
      pc.connectionStateChange.subscribe((s) => s === 'connected' && resolve());
    }),
    received: new Map(),
    corrupt: 0,
    extensions: 0,
    payloadTypes: new Set(),
    close: () => pc.close(),
  };
  // RFC 4585 NACKs for what did not arrive, as the CLI's WHEP listener sends them
  const nack = opts.nack
    ? new NackRequester((lost) => {
        const feedback = new GenericNack({
          senderSsrc: t.receiver.rtcpSsrc,
          mediaSourceSsrc: nackSsrc,
          lost,
        });
        void t.receiver.dtlsTransport
          .sendRtcp([new RtcpTransportLayerFeedback({ feedback })])
          .catch(() => undefined);
      })
    : null;
  let nackSsrc = 0;
  pc.connectionStateChange.subscribe((s) => (s === 'closed' ? nack?.close() : undefined));
  t.onTrack.subscribe((track) => {
    track.onReceiveRtp.subscribe((rtp) => {
      nackSsrc = rtp.header.ssrc;
      nack?.push(rtp.header.sequenceNumber);
      const idx = checkTestPayload(rtp.payload);
      if (idx === null) l.corrupt++;
      else {
        l.received.set(idx, {
          at: Date.now(),
          seq: rtp.header.sequenceNumber,
          ts: rtp.header.timestamp,
        });
      }
      if (rtp.header.extensions.length > 0) l.extensions++;
      l.payloadTypes.add(rtp.header.payloadType);
    });
  });
  l.sessionId = (await negotiate(pc, (offer) => engine.addListener(stationId, offer))).sessionId;
  return l;
}

/** Connects `count` listeners one after the other (werift's DTLS stalls when many start at once). */
export async function connectListeners(
  engine: Pick<MediaEngine, 'addListener'>,
  stationId: string,
  count: number,
  srtp: (i: number) => 'gcm' | 'cm' = () => 'gcm',
  timeoutMs = 10000,
): Promise<TestListener[]> {
  const out: TestListener[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const l = await createTestListener(engine, stationId, { srtp: srtp(i) });
      out.push(l);
      let up = false;
      void l.connected.then(() => (up = true));
      await waitFor(() => up, timeoutMs, `listener ${i} connected (${l.pc.connectionState})`);
    }
  } catch (err) {
    // the test gets no listeners to close: close the ones opened here (their UDP sockets and timers)
    await Promise.all(out.map((l) => l.close().catch(() => undefined)));
    throw err;
  }
  return out;
}

/**
 * Creates a publisher and waits until it is connected. Known gap: werift ↔ werift DTLS handshakes
 * occasionally stall on a loaded machine; a stalled attempt is closed and retried (as a WHIP client would).
 */
export async function connectPublisher(
  engine: Pick<MediaEngine, 'publish'>,
  stationId: string,
  attempts = 3,
  timeoutMs = 8000,
): Promise<TestPublisher> {
  for (let i = 1; ; i++) {
    const pub = await createTestPublisher(engine, stationId);
    let up = false;
    void pub.connected.then(() => (up = true));
    try {
      await waitFor(() => up, timeoutMs, `publisher connected (${pub.pc.connectionState})`);
      return pub;
    } catch (err) {
      await pub.close();
      if (i >= attempts) throw err;
    }
  }
}
