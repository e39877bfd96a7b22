import { performance } from 'node:perf_hooks';

/** A packet arriving later than this after its slot starts a new timeline instead of a burst. */
const MAX_LATE_MS = 200;
/**
 * Every this long, audio that stayed queued the whole time (a start-up delay, a burst after a
 * hiccup) is released early: the delay the pacer adds never outlives the burst that caused it.
 */
const DRAIN_WINDOW_MS = 2000;
/** What stays queued after a drain, to smooth the next burst. */
const KEEP_MS = 40;

/**
 * Releases Opus packets at the pace they play (their durations), whatever pace they arrive at:
 * Icecast sources send Ogg pages of up to a second at once, MP3 decoding yields frames in bursts,
 * and a source that sends faster than real time is held back (the caller pauses its input while
 * {@link aheadMs} is high, so TCP slows the source down).
 */
export class PacketPacer {
  private readonly queue: { payload: Buffer; samples: number }[] = [];
  private queuedSamples = 0;
  /** Wall time (ms) of the timeline's sample 0, and samples released on it so far. */
  private origin = 0;
  private released = 0;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Least audio queued (ms) since `windowStart`. */
  private minAhead = Infinity;
  private windowStart = 0;

  constructor(private readonly send: (payload: Buffer, samples: number) => void) {}

  push(payload: Buffer, samples: number): void {
    if (this.closed) return;
    if (this.queue.length === 0) {
      const now = performance.now();
      // first packet, or the source fell behind while nothing was queued: it plays now
      if (this.released === 0 || now - (this.origin + this.released / 48) > MAX_LATE_MS) {
        this.origin = now;
        this.released = 0;
      }
    }
    this.queue.push({ payload, samples });
    this.queuedSamples += samples;
    if (!this.timer) this.pump();
  }

  /** Milliseconds of audio waiting to be released. */
  get aheadMs(): number {
    return this.queuedSamples / 48;
  }

  private pump(): void {
    this.timer = null;
    if (this.closed) return;
    const now = performance.now();
    if (now - this.windowStart >= DRAIN_WINDOW_MS) {
      if (this.minAhead !== Infinity && this.minAhead > KEEP_MS * 2 && this.released > 0)
        this.origin -= this.minAhead - KEEP_MS;
      this.minAhead = Infinity;
      this.windowStart = now;
    }
    while (this.queue.length > 0) {
      const due = this.origin + this.released / 48;
      if (due > now + 1) {
        this.minAhead = Math.min(this.minAhead, this.aheadMs);
        this.timer = setTimeout(() => this.pump(), due - now);
        return;
      }
      const p = this.queue.shift()!;
      this.queuedSamples -= p.samples;
      this.released += p.samples;
      this.send(p.payload, p.samples);
    }
    this.minAhead = 0;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.queue.length = 0;
    this.queuedSamples = 0;
  }
}
