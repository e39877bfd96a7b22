import type { Socket } from 'node:net';
import { OggOpusWriter, OpusToMp3, opusPacketSamples } from '@radiobroadcaster/audio';
import type { Relay, RelayState } from '@radiobroadcaster/contracts';
import { OutboundRefused, type OutboundPolicy } from '../common/outbound/outbound-policy.js';
import { connectRelay, type RelayTarget, sendRelayTitle } from './relay-connection.js';

export interface RelayPusherOptions {
  /** First retry delay; doubles per failure up to `maxBackoffMs` (defaults 1 s and 30 s). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** A connection that stayed up this long resets the backoff (default 30 s). */
  stableMs?: number;
  /** Bytes queued for a slow target before the connection is dropped and retried (default 1 MiB). */
  maxQueuedBytes?: number;
  connectTimeoutMs?: number;
}

export type RelayStatus = Relay['status'];

/** Subscribes to a station's Opus packets until the returned function is called. */
export type PacketSubscribe = (onPacket: (payload: Buffer) => void) => () => void;

/**
 * Pushes one live station to one relay target: connects, writes Ogg/Opus pages as the packets
 * arrive (or MP3 encoded from them), and on any failure reconnects with exponential backoff until
 * stopped. The station's audio keeps flowing to everyone else whatever the target does.
 */
export class RelayPusher {
  private state: RelayState = 'connecting';
  private lastError: string | null = null;
  private retryAt: Date | null = null;
  private since: Date | null = null;
  private bytesSent = 0;
  private failures = 0;
  private socket: Socket | null = null;
  private encode: ((payload: Buffer) => Buffer) | null = null;
  private finish: (() => Buffer) | null = null;
  private unsubscribe: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** The station's now playing as a title ("Artist - Track"), sent to MP3 targets. */
  private title: string | null = null;
  private readonly opts: Required<RelayPusherOptions>;

  constructor(
    private readonly target: RelayTarget,
    private readonly policy: OutboundPolicy,
    private readonly subscribe: PacketSubscribe,
    private readonly log: (message: string) => void,
    opts: RelayPusherOptions = {},
    /** The outbound policy refused the target's address (after DNS): retrying would not help. */
    private readonly onRefused: (reason: string) => void = () => undefined,
  ) {
    this.opts = {
      minBackoffMs: opts.minBackoffMs ?? 1000,
      maxBackoffMs: opts.maxBackoffMs ?? 30_000,
      stableMs: opts.stableMs ?? 30_000,
      maxQueuedBytes: opts.maxQueuedBytes ?? 1024 * 1024,
      connectTimeoutMs: opts.connectTimeoutMs ?? 10_000,
    };
  }

  start(): void {
    this.unsubscribe = this.subscribe((payload) => this.onPacket(payload));
    void this.connect();
  }

  /** Never connects: shows why (a password that can no longer be decrypted). */
  unusable(why: string): void {
    this.stopped = true;
    this.state = 'retrying';
    this.lastError = why;
  }

  status(): RelayStatus {
    return {
      state: this.state,
      lastError: this.lastError,
      retryAt: this.state === 'retrying' ? (this.retryAt?.toISOString() ?? null) : null,
      since: this.state === 'live' ? (this.since?.toISOString() ?? null) : null,
      bytesSent: this.bytesSent,
    };
  }

  /** The station's now playing changed: an MP3 target shows it to its listeners (when live). */
  setTitle(title: string | null): void {
    if (title === this.title) return;
    this.title = title;
    if (this.state === 'live') this.sendTitle();
  }

  private sendTitle(): void {
    if (this.target.format !== 'mp3' || !this.title) return;
    // A target that refuses titles keeps the audio: this is logged, never a failure of the relay.
    sendRelayTitle(this.target, this.title, this.policy).catch((err: Error) =>
      this.log(`relay ${this.where()}: title not updated: ${err.message}`),
    );
  }

  /** Ends the stream cleanly (Ogg end-of-stream page, MP3 tail) and stops retrying. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    const socket = this.socket;
    this.socket = null;
    if (socket && this.finish && !socket.destroyed) {
      try {
        socket.end(this.finish());
      } catch {
        socket.destroy();
      }
      setTimeout(() => socket.destroy(), 2000).unref();
    } else {
      socket?.destroy();
    }
    this.encode = null;
    this.finish = null;
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    this.state = 'connecting';
    this.retryAt = null;
    let socket: Socket;
    try {
      await this.prepareEncoder();
      socket = await connectRelay(this.target, this.policy, this.opts.connectTimeoutMs);
    } catch (err) {
      if (err instanceof OutboundRefused) {
        this.refused(err.message);
        return;
      }
      this.fail(err instanceof Error ? err.message : String(err));
      return;
    }
    if (this.stopped) {
      socket.destroy();
      this.finish?.();
      return;
    }
    this.socket = socket;
    this.state = 'live';
    this.since = new Date();
    this.lastError = null;
    this.log(`relay live: ${this.where()}`);
    // Whatever the server says from now on (a 200 after the 100, nothing else) is not needed.
    socket.on('data', () => undefined);
    socket.setKeepAlive(true, 10_000);
    const lost = (why: string) => {
      if (this.socket !== socket) return;
      this.socket = null;
      socket.destroy();
      if (this.since && Date.now() - this.since.getTime() >= this.opts.stableMs) this.failures = 0;
      this.fail(why);
    };
    socket.once('error', (err) => lost(`connection lost: ${err.message}`));
    socket.once('close', () => lost('the server closed the connection'));
    if (this.target.format === 'ogg') this.write(this.oggHeaders!);
    this.sendTitle();
  }

  private oggHeaders: Buffer | null = null;

  private async prepareEncoder(): Promise<void> {
    if (this.target.format === 'ogg') {
      const writer = new OggOpusWriter({ vendor: 'radio-broadcaster relay' });
      writer.setComments({ title: this.target.name });
      this.oggHeaders = writer.headers();
      this.encode = (payload) => writer.page(payload, opusPacketSamples(payload)).bytes;
      this.finish = () => writer.end();
    } else {
      const mp3 = await OpusToMp3.create({ bitrate: 128 });
      this.encode = (payload) => mp3.push(payload);
      this.finish = () => mp3.close();
    }
  }

  private onPacket(payload: Buffer): void {
    if (!this.socket || !this.encode || payload.length === 0) return;
    if (this.target.format === 'ogg' && opusPacketSamples(payload) === 0) return;
    let bytes: Buffer;
    try {
      bytes = this.encode(payload);
    } catch (err) {
      this.log(`relay ${this.where()}: a packet could not be encoded: ${(err as Error).message}`);
      return;
    }
    this.write(bytes);
  }

  private write(bytes: Buffer): void {
    const socket = this.socket;
    if (!socket || bytes.length === 0) return;
    if (socket.writableLength > this.opts.maxQueuedBytes) {
      this.socket = null;
      socket.destroy();
      this.fail('the server does not take the stream fast enough');
      return;
    }
    socket.write(bytes);
    this.bytesSent += bytes.length;
  }

  /** Stops for good and shows why; the owner sees the relay paused with this reason. */
  private refused(why: string): void {
    this.release();
    if (this.stopped) return;
    this.unusable(why);
    this.unsubscribe?.();
    this.log(`relay ${this.where()}: ${why}; paused`);
    this.onRefused(why);
  }

  private release(): void {
    try {
      this.finish?.(); // frees the MP3 encoder's memory
    } catch {
      // nothing left to free
    }
    this.encode = null;
    this.finish = null;
  }

  private fail(why: string): void {
    this.release();
    if (this.stopped) return;
    const delay = Math.min(
      this.opts.maxBackoffMs,
      this.opts.minBackoffMs * 2 ** Math.min(this.failures, 16),
    );
    this.failures++;
    this.state = 'retrying';
    this.lastError = why;
    this.retryAt = new Date(Date.now() + delay);
    this.log(`relay ${this.where()}: ${why}; retrying in ${Math.round(delay / 1000)} s`);
    this.timer = setTimeout(() => void this.connect(), delay);
  }

  private where(): string {
    return `${this.target.kind} ${new URL(this.target.url).host}${this.target.mount}`;
  }
}
