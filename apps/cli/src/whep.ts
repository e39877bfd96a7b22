/** WHEP listener on werift: joins a station, receives its Opus RTP, measures it. */
import {
  GenericNack,
  NackRequester,
  RtcpTransportLayerFeedback,
  type RtpPacket,
} from '@radiobroadcaster/sfu/client';

import { ApiClient, deleteSession } from './api.js';
import { nowMs } from './clock.js';
import { HttpSession } from './http-session.js';
import { createPeer, negotiateOverHttp, onConnectionLost, type PeerOptions } from './peer.js';

export type ListenerState = 'new' | 'joining' | 'connecting' | 'connected' | 'stopped' | 'failed';

export interface ReceivedPacket {
  seq: number;
  timestamp: number;
  /** Receive time on the `nowMs()` clock (performance.timeOrigin + performance.now()). */
  receivedAt: number;
  payloadType: number;
  marker: boolean;
  payload: Buffer;
}

export interface WhepListenerOptions extends PeerOptions {
  /** Join through the API: `POST {server}/api/joinStationAsReceiver {stationId}`. */
  api?: ApiClient;
  stationId?: string;
  /** Or POST the offer straight to a WHEP URL (e.g. {server}/whep/{stationId}). */
  whepUrl?: string;
  token?: string;
  /** Called for every RTP packet received. */
  record?: (packet: ReceivedPacket) => void;
  onState?: (state: ListenerState, detail?: string) => void;
  /** Default 15000. */
  connectTimeoutMs?: number;
  /** Use the ICE servers from the join answer (default false: loopback/host only, `iceServers` option). */
  useJoinIceServers?: boolean;
  /** Ask the SFU for lost packets (RFC 4585 generic NACK). Default true. */
  nack?: boolean;
}

export interface ListenerStats {
  state: ListenerState;
  packetsReceived: number;
  bytesReceived: number;
  /** From the first to the highest sequence number seen. */
  packetsExpected: number;
  packetsLost: number;
  /** 0..100 */
  lossPercent: number;
  /** RFC 3550 interarrival jitter, ms. */
  jitterMs: number;
  /** ms from the start of the join (API call) to the join answer. */
  joinMs?: number;
  /** ms from the start of the join to connectionState "connected". */
  connectMs?: number;
  /** ms from the start of the join to the first audio packet. */
  firstPacketMs?: number;
  /** Packets asked for again (NACK), those that came, and those that came > 250 ms after the gap. */
  nacked: number;
  recovered: number;
  recoveredLate: number;
  /** Packets that arrived twice (a resend crossing the original); not counted as received again. */
  duplicates: number;
  error?: string;
}

export class WhepListener extends HttpSession<ListenerState> {
  packetsReceived = 0;
  bytesReceived = 0;
  joinMs?: number;
  firstPacketMs?: number;
  private startedAt = 0;
  private baseSeq?: number;
  private highestExt = 0; // extended highest sequence number
  private transit?: number;
  private jitter = 0; // in 48 kHz samples
  private firstPacketWaiters: (() => void)[] = [];
  private stopRequested = false;
  private nack: NackRequester | null = null;
  /** The last 1,024 extended sequence numbers received, by seq mod 1,024 (duplicate detection). */
  private readonly seen = new Float64Array(1024).fill(-1);
  private duplicates = 0;

  constructor(private readonly opts: WhepListenerOptions) {
    super(opts.onState);
    if (!opts.whepUrl && !(opts.api && opts.stationId)) {
      throw new RangeError('WhepListener needs either whepUrl or api + stationId');
    }
  }

  /** Joins and connects; resolves once the connection is up (audio may follow a moment later). */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`listener already ${this.state}`);
    this.startedAt = nowMs();
    this.setState('joining');
    try {
      let whepUrl = this.opts.whepUrl;
      this.token = this.opts.token;
      let iceServers = this.opts.iceServers;
      if (!whepUrl) {
        const api = this.opts.api!;
        const join = await api.joinStationAsReceiver(this.opts.stationId!);
        this.joinMs = nowMs() - this.startedAt;
        whepUrl = api.resolve(join.whepUrl);
        this.token = join.token;
        if (this.opts.useJoinIceServers) iceServers = join.iceServers;
      }
      this.setState('connecting');
      const pc = createPeer({ ...this.opts, iceServers });
      this.pc = pc;
      const t = pc.addTransceiver('audio', { direction: 'recvonly' });
      if (this.opts.nack ?? true) {
        let ssrc = 0;
        this.nack = new NackRequester((lost) => {
          if (!ssrc) return;
          const feedback = new GenericNack({
            senderSsrc: t.receiver.rtcpSsrc,
            mediaSourceSsrc: ssrc,
            lost,
          });
          t.receiver.dtlsTransport
            .sendRtcp([new RtcpTransportLayerFeedback({ feedback })])
            .catch(() => undefined);
        });
        pc.onTrack.subscribe((track) => {
          track.onReceiveRtp.subscribe((rtp) => {
            ssrc = rtp.header.ssrc;
            this.nack?.push(rtp.header.sequenceNumber);
          });
        });
      }
      pc.onTrack.subscribe((track) => {
        track.onReceiveRtp.subscribe((rtp) => this.onRtp(rtp));
      });
      await negotiateOverHttp(pc, whepUrl, this.token, this.opts.connectTimeoutMs ?? 15000, (l) => {
        this.location = l;
        this.joinMs ??= nowMs() - this.startedAt;
      });
      this.connectMs = nowMs() - this.startedAt;
      onConnectionLost(pc, (s) => {
        if (this.state !== 'connected' || this.stopRequested) return;
        this.error = `connection ${s}`;
        this.setState('failed', this.error);
      });
      this.setState('connected');
    } catch (e) {
      await this.failedStart(e);
    }
  }

  private onRtp(rtp: RtpPacket): void {
    const receivedAt = nowMs();
    const { sequenceNumber: seq, timestamp } = rtp.header;
    let ext = seq;
    if (this.baseSeq === undefined) {
      this.baseSeq = seq;
      this.highestExt = seq;
      this.firstPacketMs = receivedAt - this.startedAt;
      for (const w of this.firstPacketWaiters.splice(0)) w();
    } else {
      // Extend to 32 bits: pick the candidate closest to the highest seen.
      const cycle = this.highestExt & ~0xffff;
      ext = cycle | seq;
      if (ext - this.highestExt > 0x8000) ext -= 0x10000;
      else if (this.highestExt - ext > 0x8000) ext += 0x10000;
      if (ext > this.highestExt) this.highestExt = ext;
    }
    if (this.seen[ext & 1023] === ext) {
      // a resend that crossed the original (or a network duplicate): nothing new
      this.duplicates++;
      return;
    }
    this.seen[ext & 1023] = ext;
    this.packetsReceived++;
    this.bytesReceived += rtp.payload.length;
    // RFC 3550 §6.4.1 interarrival jitter, in timestamp units (48 kHz).
    const transit = receivedAt * 48 - timestamp;
    if (this.transit !== undefined) {
      let d = Math.abs(transit - this.transit);
      // Timestamp wrap-around: ignore that one sample.
      if (d > 0x7fffffff) d = 0;
      this.jitter += (d - this.jitter) / 16;
    }
    this.transit = transit;
    this.opts.record?.({
      seq,
      timestamp,
      receivedAt,
      payloadType: rtp.header.payloadType,
      marker: rtp.header.marker,
      payload: rtp.payload,
    });
  }

  /** Resolves on the first audio packet (rejects after timeoutMs). */
  firstPacket(timeoutMs = 10000): Promise<number> {
    if (this.firstPacketMs !== undefined) return Promise.resolve(this.firstPacketMs);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no audio within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.firstPacketWaiters.push(() => {
        clearTimeout(timer);
        resolve(this.firstPacketMs!);
      });
    });
  }

  get stats(): ListenerStats {
    const expected = this.baseSeq === undefined ? 0 : this.highestExt - this.baseSeq + 1;
    const lost = Math.max(0, expected - this.packetsReceived);
    return {
      state: this.state,
      packetsReceived: this.packetsReceived,
      bytesReceived: this.bytesReceived,
      packetsExpected: expected,
      packetsLost: lost,
      lossPercent: expected > 0 ? (100 * lost) / expected : 0,
      jitterMs: this.jitter / 48,
      joinMs: this.joinMs,
      connectMs: this.connectMs,
      firstPacketMs: this.firstPacketMs,
      nacked: this.nack?.requested ?? 0,
      recovered: this.nack?.recovered ?? 0,
      recoveredLate: this.nack?.recoveredLate ?? 0,
      duplicates: this.duplicates,
      error: this.error,
    };
  }

  protected async doStop(): Promise<void> {
    this.stopRequested = true;
    this.nack?.close();
    await this.endSession(
      (location) => deleteSession(location, this.token),
      this.state === 'failed',
    );
  }
}
