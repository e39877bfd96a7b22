/**
 * A WHEP listener that reconnects by itself, as the browser player does: when its connection fails,
 * or when audio stops for `stallMs` (an SFU node killed outright sends nothing, and werift's ICE
 * consent check would only notice after ~30 s), it leaves the old session and joins again through
 * the API, which places it on a live node.
 */
import { nowMs } from './clock.js';
import { WhepListener, type ListenerState, type WhepListenerOptions } from './whep.js';

export interface ReconnectingListenerOptions extends WhepListenerOptions {
  /** Audio silent this long after it flowed → reconnect (default 2500 ms). */
  stallMs?: number;
  /** Connected but no audio at all for this long → reconnect (default 8000 ms). */
  noAudioMs?: number;
  /** First retry delay; doubles per failed attempt up to 4 s (default 250 ms). */
  retryDelayMs?: number;
  /** A random wait up to this before the first rejoin, so a node's listeners don't rejoin in step (default 1000 ms). */
  jitterMs?: number;
  /** Connection timeout of a rejoin (default 5000 ms: a straggling DTLS set-up is retried sooner). */
  reconnectTimeoutMs?: number;
  onReconnect?: (attempt: number, reason: string) => void;
}

export class ReconnectingWhepListener {
  current?: WhepListener;
  /** Completed reconnects. */
  reconnects = 0;
  /** Packets received over every session. */
  packetsReceived = 0;
  lastPacketAt = 0;
  /** Time (nowMs) of the last reconnect decision and when audio resumed after it. */
  lastDropAt?: number;
  lastResumeAt?: number;
  private stopped = false;
  private watchdog?: NodeJS.Timeout;
  private reconnecting?: Promise<void>;
  private connectedAt = 0;

  constructor(private readonly opts: ReconnectingListenerOptions) {}

  get state(): ListenerState {
    return this.current?.state ?? 'new';
  }

  /**
   * Joins the first time (up to `attempts` tries: werift's DTLS set-up occasionally stalls until its
   * retransmit timer; a fresh session is quicker), then keeps the listener connected until stop().
   */
  async start(attempts = 1): Promise<void> {
    for (let i = 1; ; i++) {
      try {
        await this.connect();
        break;
      } catch (err) {
        if (i >= attempts || this.stopped) throw err;
        await this.current?.stop().catch(() => undefined);
      }
    }
    this.watchdog = setInterval(() => this.check(), 200);
  }

  private async connect(rejoin = false): Promise<void> {
    let up = false;
    const l = new WhepListener({
      ...this.opts,
      ...(rejoin ? { connectTimeoutMs: this.opts.reconnectTimeoutMs ?? 5000 } : {}),
      record: (p) => {
        this.packetsReceived++;
        if (this.lastDropAt !== undefined && this.lastResumeAt === undefined)
          this.lastResumeAt = nowMs();
        this.lastPacketAt = nowMs();
        this.opts.record?.(p);
      },
      onState: (s, detail) => {
        this.opts.onState?.(s, detail);
        if (s === 'failed' && up && this.current === l) this.reconnect(`connection ${detail ?? s}`);
      },
    });
    this.current = l;
    await l.start();
    up = true;
    this.connectedAt = nowMs();
  }

  private check(): void {
    const l = this.current;
    if (this.stopped || this.reconnecting || !l || l.state !== 'connected') return;
    const now = nowMs();
    if (
      this.lastPacketAt > this.connectedAt &&
      now - this.lastPacketAt > (this.opts.stallMs ?? 2500)
    )
      this.reconnect('audio stalled');
    else if (
      this.lastPacketAt <= this.connectedAt &&
      now - this.connectedAt > (this.opts.noAudioMs ?? 8000)
    )
      this.reconnect('no audio');
  }

  private reconnect(reason: string): void {
    if (this.stopped || this.reconnecting) return;
    this.lastDropAt = nowMs();
    this.lastResumeAt = undefined;
    this.reconnecting = (async () => {
      const old = this.current;
      // Leave without waiting: the node holding the old session may be dead.
      void old?.stop().catch(() => undefined);
      let delay = this.opts.retryDelayMs ?? 250;
      await new Promise((r) => setTimeout(r, Math.random() * (this.opts.jitterMs ?? 1000)));
      for (let attempt = 1; !this.stopped; attempt++) {
        this.opts.onReconnect?.(attempt, reason);
        try {
          await this.connect(true);
          this.reconnects++;
          return;
        } catch {
          await new Promise((r) => setTimeout(r, delay));
          delay = Math.min(4000, delay * 2);
        }
      }
    })().finally(() => (this.reconnecting = undefined));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.watchdog) clearInterval(this.watchdog);
    await this.reconnecting?.catch(() => undefined);
    await this.current?.stop();
  }
}
