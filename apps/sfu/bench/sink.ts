/**
 * Benchmark listener process: real werift listeners (ICE + DTLS-SRTP handshake), but once connected the
 * RTP datagrams are only counted (SRTP headers are clear text: sequence numbers give loss) so a 2-core
 * machine can hold thousands of them. STUN/DTLS/RTCP still go to werift (consent keeps working).
 * One listener in `verifyEvery` keeps full decryption and checks payload bytes.
 *
 * `--count kernel` (on the listeners' host, bench/listener-host.ts): once a listener has its first
 * packet, its RTP is counted and dropped by the host's nftables set instead of reaching this
 * process; its loss over a window is then the packets the publisher sent in it less those counted.
 */
import { execFile, execFileSync } from 'node:child_process';
import type { Socket } from 'node:dgram';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  RTCRtpReceiver,
  RtcpReceiverInfo,
  RtcpRrPacket,
  timestampSeconds,
  type RTCPeerConnection,
} from '../src/boundary/werift.js';
import { checkTestPayload } from '../testing/test-peers.js';
import { createPeer } from '../src/werift/werift-config.js';
import { RTP_TABLE } from './listener-host.js';

const kernelCount = process.argv.includes('--count') && process.argv.includes('kernel');

/**
 * Receiver reports at a browser's pace. werift's receivers report every 0.5–1.5 s; Chromium and
 * Firefox (libwebrtc) report on an audio stream every 5 s, randomised to 2.5–7.5 s (RFC 3550 6.3.1).
 * The SFU serves browsers, so its listeners here report as browsers do. The report is werift's own.
 */
const BROWSER_AUDIO_REPORT_MS = 5000;
function reportLikeBrowsers(): void {
  const proto = RTCRtpReceiver.prototype as unknown as { runRtcp?: () => Promise<void> };
  if (typeof proto.runRtcp !== 'function') throw new Error('werift changed: no runRtcp');
  proto.runRtcp = async function (this: ReceiverInternals) {
    if (this.rtcpRunning || this.stopped) return;
    this.rtcpRunning = true;
    try {
      while (this.rtcpRunning) {
        await sleep(BROWSER_AUDIO_REPORT_MS * (0.5 + Math.random()), undefined, {
          signal: this.rtcpCancel.signal,
        });
        const reports = Object.entries(this.remoteStreams).map(([ssrc, stream]) => {
          const sr = this.lastSRtimestamp[ssrc];
          const delay = sr ? timestampSeconds() - this.receiveLastSRTimestamp[ssrc]! : 0;
          return new RtcpReceiverInfo({
            ssrc: Number(ssrc),
            fractionLost: stream.fraction_lost,
            packetsLost: stream.packets_lost,
            highestSequence: stream.max_seq,
            jitter: stream.jitter,
            lsr: sr ?? 0,
            dlsr: delay > 0 && delay < 65536 ? Math.floor(delay * 65536) : 0,
          });
        });
        await this.dtlsTransport
          .sendRtcp([new RtcpRrPacket({ ssrc: this.rtcpSsrc, reports })])
          .catch(() => undefined);
      }
    } catch {
      // cancelled: the receiver stopped
    }
  };
}

/** The fields of werift's RTCRtpReceiver its report loop reads (werift/lib/index.mjs, runRtcp). */
interface ReceiverInternals {
  rtcpRunning: boolean;
  stopped: boolean;
  rtcpCancel: AbortController;
  rtcpSsrc: number;
  remoteStreams: Record<
    string,
    { fraction_lost: number; packets_lost: number; max_seq: number; jitter: number }
  >;
  lastSRtimestamp: Record<string, number>;
  receiveLastSRTimestamp: Record<string, number>;
  dtlsTransport: { sendRtcp(packets: unknown[]): Promise<unknown> };
}
reportLikeBrowsers();

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
  /** Local ports of its sockets: counted by the kernel once `kernelCounted`. */
  ports: number[];
  /** Handed to the kernel's counters (its RTP stops reaching this process soon after). */
  handedOver: boolean;
  kernelCounted: boolean;
  /** Kernel count at the window's start (-1: not counted then). */
  kernelMark: number;
}

/** Ports to hand to the kernel's counters, added in batches (one `nft` call every 200 ms). */
let toCount: SinkListener[] = [];
if (kernelCount) {
  setInterval(() => {
    if (toCount.length === 0) return;
    const batch = toCount;
    toCount = [];
    const elements = (set: string, list: SinkListener[]) => {
      const ports = list.flatMap((l) => l.ports);
      return ports.length
        ? `add element ${RTP_TABLE.join(' ')} ${set} { ${ports.join(', ')} }\n`
        : '';
    };
    const script =
      elements(
        'rtp',
        batch.filter((l) => !l.verify),
      ) +
      elements(
        'ref',
        batch.filter((l) => l.verify),
      );
    const nft = execFile('nft', ['-f', '-'], (err) => {
      if (err) console.error('sink: nft add element failed', err.message);
      else for (const l of batch) l.kernelCounted = true;
    });
    nft.stdin?.end(script);
  }, 200).unref();
}

/**
 * RTP packets the kernel counted per local port (both sets, read in one dump), and where the stream
 * stands: the mean count of the listeners that read every packet (set `ref`). A window's expected
 * packets are the stream's progress between two reads, on the same clock as the counts.
 */
function kernelCounts(): Map<number, number> {
  const counts = new Map<number, number>();
  const json = JSON.parse(
    execFileSync('nft', ['-j', 'list', 'table', ...RTP_TABLE]).toString(),
  ) as {
    nftables: { set?: { elem?: { elem: { val: number; counter: { packets: number } } }[] } }[];
  };
  for (const item of json.nftables) {
    for (const e of item.set?.elem ?? []) counts.set(e.elem.val, e.elem.counter.packets);
  }
  return counts;
}
const countOf = (l: SinkListener, counts: Map<number, number>) =>
  l.ports.reduce((a, p) => a + (counts.get(p) ?? 0), 0);
/** The reference listeners' kernel counts at the window's start. */
let refMarks = new Map<SinkListener, number>();

const listeners = new Map<number, SinkListener>();
let nextId = 1;
const pendingAnswers = new Map<number, (sdp: string) => void>();
const send = (m: unknown) => process.send?.(m);
// the benchmark is gone (stopped, or killed): so are its listeners
process.on('disconnect', () => process.exit(0));
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
      if (!l.firstAt) {
        l.firstAt = Date.now();
        if (kernelCount) {
          // a verifying listener is counted too (the reference), but its packets still come here
          l.handedOver = !l.verify;
          toCount.push(l);
        }
      }
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
    ports: [],
    handedOver: false,
    kernelCounted: false,
    kernelMark: -1,
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
        if (!socket) continue;
        intercept(l, socket);
        l.ports.push(socket.address().port);
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
    case 'window-start': {
      const counts = kernelCount ? kernelCounts() : new Map<number, number>();
      refMarks = new Map();
      for (const l of listeners.values()) {
        l.mark = { count: l.count, highest: l.highest };
        l.kernelMark = l.kernelCounted && !l.verify ? countOf(l, counts) : -1;
        if (l.kernelCounted && l.verify) refMarks.set(l, countOf(l, counts));
      }
      windowCpu = { cpu: process.cpuUsage(), at: performance.now() };
      windowStartAt = Date.now();
      break;
    }
    case 'window-end': {
      const counts = kernelCount ? kernelCounts() : new Map<number, number>();
      // the stream's progress over the window: what the reference listeners were delivered
      const progress = [...refMarks]
        .filter(([l]) => l.connected)
        .map(([l, n]) => countOf(l, counts) - n);
      const stream = progress.length ? progress.reduce((a, b) => a + b, 0) / progress.length : 0;
      let expected = 0;
      let received = 0;
      let verified = 0;
      let corrupt = 0;
      const joins: number[] = [];
      for (const l of listeners.values()) {
        verified += l.verified;
        corrupt += l.corrupt;
        if (l.firstAt && l.joinAt >= windowStartAt) joins.push(l.firstAt - l.joinAt);
        if (!l.connected) continue;
        if (l.kernelMark >= 0) {
          // counted by the kernel for the whole window: every packet the stream carried in it
          expected += stream;
          received += countOf(l, counts) - l.kernelMark;
          continue;
        }
        if (l.mark.highest < 0 || l.handedOver) continue; // handed to the kernel mid-window
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
