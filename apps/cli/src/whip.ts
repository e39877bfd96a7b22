/** WHIP (RFC 9725) publisher on werift: one sendonly Opus track paced in real time. */
import { randomInt } from 'node:crypto';
import { RtpHeader, RtpPacket, type RTCRtpSender } from '@radiobroadcaster/sfu/client';
import { ApiError, deleteSession } from './api.js';
import { nowMs } from './clock.js';
import { HttpSession } from './http-session.js';
import { createPeer, negotiateOverHttp, onConnectionLost, type PeerOptions } from './peer.js';
import { paceSource, type OpusSource } from './sources.js';

export type PublisherState = 'new' | 'connecting' | 'connected' | 'stopping' | 'stopped' | 'failed';

export interface SentPacket {
  /** 0-based frame index. */
  index: number;
  /** RTP sequence number as sent. */
  seq: number;
  /** RTP timestamp as sent. */
  timestamp: number;
  /** Send time on the `nowMs()` clock (performance.timeOrigin + performance.now()). */
  sentAt: number;
  payload: Buffer;
}

export interface WhipPublisherOptions extends PeerOptions {
  /** The WHIP endpoint, e.g. http://127.0.0.1:3000/whip/{stationId}. */
  whipUrl: string;
  /** Bearer token (station token). */
  token?: string;
  /** Called to get a fresh token when DELETE answers 401 (the token expired while live). */
  refreshToken?: () => Promise<string>;
  source: OpusSource;
  /** Stop after this much audio (default: until the source ends or stop()). */
  durationMs?: number;
  /** Called for every packet handed to the sender. */
  record?: (packet: SentPacket) => void;
  onState?: (state: PublisherState, detail?: string) => void;
  /** Default 15000. */
  connectTimeoutMs?: number;
  /** Initial RTP sequence number and timestamp (random by default). */
  initialSequenceNumber?: number;
  initialTimestamp?: number;
}

export interface PublisherStats {
  state: PublisherState;
  packetsSent: number;
  bytesSent: number;
  /** ms from start() to connectionState "connected". */
  connectMs?: number;
  location?: string;
  /** Last failure, if any. */
  error?: string;
}

export class WhipPublisher extends HttpSession<PublisherState> {
  packetsSent = 0;
  bytesSent = 0;
  private sender?: RTCRtpSender;
  private readonly abort = new AbortController();
  private pacing?: Promise<number>;
  private seq: number;
  private readonly ts0: number;

  constructor(private readonly opts: WhipPublisherOptions) {
    super(opts.onState);
    this.token = opts.token;
    this.seq = opts.initialSequenceNumber ?? randomInt(0, 0x8000);
    this.ts0 = opts.initialTimestamp ?? randomInt(0, 0x7fffffff);
  }

  get stats(): PublisherStats {
    return {
      state: this.state,
      packetsSent: this.packetsSent,
      bytesSent: this.bytesSent,
      connectMs: this.connectMs,
      location: this.location,
      error: this.error,
    };
  }

  /** Negotiates over WHIP, waits for the connection, and starts sending. Resolves once connected. */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`publisher already ${this.state}`);
    const t0 = nowMs();
    this.setState('connecting');
    try {
      const pc = createPeer(this.opts);
      this.pc = pc;
      const transceiver = pc.addTransceiver('audio', { direction: 'sendonly' });
      this.sender = transceiver.sender;
      await negotiateOverHttp(
        pc,
        this.opts.whipUrl,
        this.token,
        this.opts.connectTimeoutMs ?? 15000,
        (l) => (this.location = l),
      );
      this.connectMs = nowMs() - t0;
      onConnectionLost(pc, (s) => this.state === 'connected' && this.fail(`connection ${s}`));
      this.setState('connected');
    } catch (e) {
      await this.failedStart(e);
    }
    this.pacing = paceSource(
      this.opts.source,
      (frame) => this.send(frame.payload, frame.timestamp, frame.index),
      {
        signal: this.abort.signal,
        durationMs: this.opts.durationMs,
      },
    );
  }

  /** Resolves when the source ends or the duration has passed (or stop() was called). */
  async finished(): Promise<PublisherStats> {
    if (this.pacing) await this.pacing.catch(() => undefined);
    return this.stats;
  }

  /** start(), then send until the source ends / the duration passes, then stop(). */
  async run(): Promise<PublisherStats> {
    await this.start();
    await this.finished();
    await this.stop();
    return this.stats;
  }

  private send(payload: Buffer, tsOffset: number, index: number): void {
    const sender = this.sender;
    if (!sender || this.state !== 'connected') return;
    const seq = this.seq;
    this.seq = (this.seq + 1) & 0xffff;
    const timestamp = (this.ts0 + tsOffset) >>> 0;
    const header = new RtpHeader({
      payloadType: 111,
      sequenceNumber: seq,
      timestamp,
      marker: index === 0,
    });
    // sendRtp rewrites ssrc and payload type in place and keeps the packet: a new one per send.
    const packet = new RtpPacket(header, payload);
    const sentAt = nowMs();
    sender.sendRtp(packet).catch((e: unknown) => {
      this.error = `sendRtp: ${e instanceof Error ? e.message : String(e)}`;
    });
    this.packetsSent++;
    this.bytesSent += payload.length;
    this.opts.record?.({ index, seq, timestamp, sentAt, payload });
  }

  private fail(why: string): void {
    this.error = why;
    this.abort.abort();
    this.setState('failed', why);
  }

  /** Stops sending, DELETEs the WHIP session (refreshing the token once on 401), closes the connection. */
  protected async doStop(): Promise<void> {
    const failed = this.state === 'failed';
    if (!failed) this.setState('stopping');
    this.abort.abort();
    if (this.pacing) await this.pacing.catch(() => undefined);
    await this.endSession(async (location) => {
      try {
        await deleteSession(location, this.token);
      } catch (e) {
        if (!(e instanceof ApiError && e.status === 401 && this.opts.refreshToken)) throw e;
        this.token = await this.opts.refreshToken();
        await deleteSession(location, this.token);
      }
    }, failed);
  }

  protected override async teardown(): Promise<void> {
    this.opts.source.close();
    await super.teardown();
  }
}
