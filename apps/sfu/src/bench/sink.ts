/**
 * Benchmark listener process: real werift listeners (ICE + DTLS-SRTP handshake), but once connected the
 * RTP datagrams are only counted (SRTP headers are clear text: sequence numbers give loss) so a 2-core
 * machine can hold thousands of them. STUN/DTLS/RTCP still go to werift (consent keeps working).
 * One listener in `verifyEvery` keeps full decryption and checks payload bytes.
 */
import type { Socket } from 'node:dgram';
import type { RTCPeerConnection } from 'werift';
import { checkTestPayload } from '../test-peers.js';
import { createPeer } from '../werift/werift-config.js';

type FromParent =
  | { op: 'add'; count: number; srtp?: 'gcm' | 'cm' }
  | { op: 'answer'; id: number; sdp: string }
  | { op: 'window-start' }
  | { op: 'window-end' }
  | { op: 'exit' };

interface SinkListener {
  id: number;
  pc: RTCPeerConnection;
  connected: boolean;
  count: number;
  highest: number; // extended seq
  mark: { count: number; highest: number };
  verify: boolean;
  verified: number;
  corrupt: number;
  joinAt: number;
  firstAt: number;
}

const listeners = new Map<number, SinkListener>();
let nextId = 1;
const pendingAnswers = new Map<number, (sdp: string) => void>();
const send = (m: unknown) => process.send?.(m);
const verifyEvery = Number(process.env.SINK_VERIFY_EVERY ?? 200);
/** CPU of this process over the measurement window: shows when the load generator is the limit. */
let windowCpu = { cpu: process.cpuUsage(), at: performance.now() };
/** Listeners that joined after this instant count in the window's join figures. */
let windowStartAt = 0;

function extend(l: SinkListener, seq: number): void {
  if (l.highest < 0) {
    l.highest = seq;
    return;
  }
  const cur = l.highest & 0xffff;
  const diff = (seq - cur) & 0xffff;
  if (diff !== 0 && diff < 0x8000) l.highest += diff;
}

/** RTP on this socket is only counted (but for verifying listeners); the rest goes to werift. */
function intercept(l: SinkListener, socket: Socket): void {
  const orig = socket.listeners('message') as ((d: Buffer, r: unknown) => void)[];
  socket.removeAllListeners('message');
  socket.on('message', (data: Buffer, rinfo: unknown) => {
    const b1 = data[1] & 0x7f;
    if (data.length > 12 && data[0] >= 128 && data[0] < 192 && !(b1 >= 64 && b1 <= 95)) {
      l.count++;
      if (!l.firstAt) l.firstAt = Date.now();
      extend(l, (data[2] << 8) | data[3]);
      if (!l.verify) return;
    }
    for (const fn of orig) fn(data, rinfo);
  });
}

async function addOne(srtp?: 'gcm' | 'cm'): Promise<void> {
  const id = nextId++;
  const pc = createPeer({ iceServers: [] });
  const t = pc.addTransceiver('audio', { direction: 'recvonly' });
  if (srtp === 'cm') (t.dtlsTransport as unknown as { srtpProfiles: number[] }).srtpProfiles = [1];
  const l: SinkListener = {
    id,
    pc,
    connected: false,
    count: 0,
    highest: -1,
    mark: { count: 0, highest: -1 },
    verify: id % verifyEvery === 1,
    verified: 0,
    corrupt: 0,
    joinAt: Date.now(),
    firstAt: 0,
  };
  listeners.set(id, l);
  if (l.verify) {
    t.onTrack.subscribe((track) =>
      track.onReceiveRtp.subscribe((rtp) => {
        if (checkTestPayload(rtp.payload) === null) l.corrupt++;
        else l.verified++;
      }),
    );
  }
  pc.connectionStateChange.subscribe((s) => {
    if (s === 'connected' && !l.connected) {
      l.connected = true;
      // Every local candidate's socket: the SFU sends on the pair it holds as nominated, which need
      // not be the one this side nominated.
      const conn = (
        t.dtlsTransport.iceTransport as unknown as {
          connection: { protocols?: { transport?: { socket?: Socket } }[] };
        }
      ).connection;
      for (const protocol of conn.protocols ?? []) {
        const socket = protocol.transport?.socket;
        if (socket) intercept(l, socket);
      }
    }
  });
  await pc.setLocalDescription(await pc.createOffer());
  const answer = await new Promise<string>((resolve) => {
    pendingAnswers.set(id, resolve);
    send({ op: 'offer', id, sdp: pc.localDescription!.sdp });
  });
  if (!answer) {
    listeners.delete(id);
    await pc.close();
    return;
  }
  await pc.setRemoteDescription({ type: 'answer', sdp: answer });
}

setInterval(() => {
  let connected = 0;
  for (const l of listeners.values()) if (l.connected) connected++;
  send({ op: 'status', connected, total: listeners.size });
}, 500).unref();

process.on('message', async (m: FromParent) => {
  switch (m.op) {
    case 'add': {
      const batch = 10;
      for (let i = 0; i < m.count; i += batch) {
        await Promise.all(
          Array.from({ length: Math.min(batch, m.count - i) }, () => addOne(m.srtp)),
        );
      }
      send({ op: 'added' });
      break;
    }
    case 'answer':
      pendingAnswers.get(m.id)?.(m.sdp);
      pendingAnswers.delete(m.id);
      break;
    case 'window-start':
      for (const l of listeners.values()) l.mark = { count: l.count, highest: l.highest };
      windowCpu = { cpu: process.cpuUsage(), at: performance.now() };
      windowStartAt = Date.now();
      break;
    case 'window-end': {
      let expected = 0;
      let received = 0;
      let verified = 0;
      let corrupt = 0;
      const joins: number[] = [];
      for (const l of listeners.values()) {
        verified += l.verified;
        corrupt += l.corrupt;
        if (l.firstAt && l.joinAt >= windowStartAt) joins.push(l.firstAt - l.joinAt);
        if (!l.connected || l.mark.highest < 0) continue;
        expected += l.highest - l.mark.highest;
        received += l.count - l.mark.count;
      }
      const cpu = process.cpuUsage(windowCpu.cpu);
      const cpuPercent = (cpu.user + cpu.system) / 10 / (performance.now() - windowCpu.at);
      send({ op: 'window', expected, received, verified, corrupt, joins, cpuPercent });
      break;
    }
    case 'exit':
      await Promise.all([...listeners.values()].map((l) => l.pc.close().catch(() => undefined)));
      process.exit(0);
  }
});
send({ op: 'ready' });
