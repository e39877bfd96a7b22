/**
 * werift peers for tests and the benchmark: a publisher that sends crafted Opus-like RTP whose payload
 * encodes its packet index, and listeners that verify every payload byte.
 */
import { MediaStreamTrack, RtpHeader, RtpPacket, type RTCPeerConnection } from 'werift';
import type { MediaEngine } from './media-engine.js';
import { createPeer } from './werift-config.js';

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
  await pc.setLocalDescription(await pc.createOffer());
  const { sessionId, answerSdp } = await engine.publish(stationId, pc.localDescription!.sdp);
  await pc.setRemoteDescription({ type: 'answer', sdp: answerSdp });
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
  opts: { srtp?: 'gcm' | 'cm' } = {},
): Promise<TestListener> {
  const pc = createPeer({ iceServers: [] });
  const t = pc.addTransceiver('audio', { direction: 'recvonly' });
  if (opts.srtp === 'cm') {
    // offer only AES_CM_128_HMAC_SHA1_80, as Chromium and GStreamer end up negotiating
    (t.dtlsTransport as unknown as { srtpProfiles: number[] }).srtpProfiles = [0x0001];
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
  t.onTrack.subscribe((track) => {
    track.onReceiveRtp.subscribe((rtp) => {
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
  await pc.setLocalDescription(await pc.createOffer());
  const { sessionId, answerSdp } = await engine.addListener(stationId, pc.localDescription!.sdp);
  l.sessionId = sessionId;
  await pc.setRemoteDescription({ type: 'answer', sdp: answerSdp });
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
  for (let i = 0; i < count; i++) {
    const l = await createTestListener(engine, stationId, { srtp: srtp(i) });
    out.push(l);
    let up = false;
    void l.connected.then(() => (up = true));
    await waitFor(() => up, timeoutMs, `listener ${i} connected (${l.pc.connectionState})`);
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
