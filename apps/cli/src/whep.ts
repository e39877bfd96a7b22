/** WHEP listener on werift: joins a station, receives its Opus RTP, measures it. */
import type { RtpPacket, RTCPeerConnection } from 'werift';
import { ApiClient, deleteSession, postSdpOffer } from './api.js';
import { nowMs } from './clock.js';
import { createCompleteOffer, createPeer, waitConnected, type PeerOptions } from './peer.js';

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
  error?: string;
}

export class WhepListener {
  state: ListenerState = 'new';
  packetsReceived = 0;
  bytesReceived = 0;
  joinMs?: number;
  connectMs?: number;
  firstPacketMs?: number;
  error?: string;
  location?: string;
  private token?: string;
  private pc?: RTCPeerConnection;
  private startedAt = 0;
  private baseSeq?: number;
  private highestExt = 0; // extended highest sequence number
  private transit?: number;
  private jitter = 0; // in 48 kHz samples
  private firstPacketWaiters: (() => void)[] = [];
  private stopping?: Promise<void>;
  private stopRequested = false;

  constructor(private readonly opts: WhepListenerOptions) {
    if (!opts.whepUrl && !(opts.api && opts.stationId)) {
      throw new RangeError('WhepListener needs either whepUrl or api + stationId');
    }
  }

  private setState(state: ListenerState, detail?: string): void {
    if (this.state === state) return;
    this.state = state;
    this.opts.onState?.(state, detail);
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
      pc.addTransceiver('audio', { direction: 'recvonly' });
      pc.onTrack.subscribe((track) => {
        track.onReceiveRtp.subscribe((rtp) => this.onRtp(rtp));
      });
      const offer = await createCompleteOffer(pc);
      const { answer, location } = await postSdpOffer(whepUrl, offer, this.token);
      this.location = location;
      this.joinMs ??= nowMs() - this.startedAt;
      await pc.setRemoteDescription({ type: 'answer', sdp: answer });
      await waitConnected(pc, this.opts.connectTimeoutMs ?? 15000);
      this.connectMs = nowMs() - this.startedAt;
      pc.connectionStateChange.subscribe((s) => {
        if (
          (s === 'failed' || s === 'closed') &&
          this.state === 'connected' &&
          !this.stopRequested
        ) {
          this.error = `connection ${s}`;
          this.setState('failed', this.error);
        }
      });
      this.setState('connected');
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
      this.setState('failed', this.error);
      await this.teardown();
      throw e;
    }
  }

  private onRtp(rtp: RtpPacket): void {
    const receivedAt = nowMs();
    const { sequenceNumber: seq, timestamp } = rtp.header;
    if (this.baseSeq === undefined) {
      this.baseSeq = seq;
      this.highestExt = seq;
      this.firstPacketMs = receivedAt - this.startedAt;
      for (const w of this.firstPacketWaiters.splice(0)) w();
    } else {
      // Extend to 32 bits: pick the candidate closest to the highest seen.
      const cycle = this.highestExt & ~0xffff;
      let ext = cycle | seq;
      if (ext - this.highestExt > 0x8000) ext -= 0x10000;
      else if (this.highestExt - ext > 0x8000) ext += 0x10000;
      if (ext > this.highestExt) this.highestExt = ext;
    }
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
      error: this.error,
    };
  }

  /** Leaves: DELETE the WHEP session and close the connection. */
  stop(): Promise<void> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    const failed = this.state === 'failed';
    this.stopRequested = true;
    try {
      if (this.location) await deleteSession(this.location, this.token);
    } catch (e) {
      this.error ??= `DELETE ${this.location}: ${e instanceof Error ? e.message : String(e)}`;
    } finally {
      this.location = undefined;
      await this.teardown();
      if (!failed) this.setState('stopped');
    }
  }

  private async teardown(): Promise<void> {
    const pc = this.pc;
    this.pc = undefined;
    if (pc) await pc.close().catch(() => undefined);
  }
}
