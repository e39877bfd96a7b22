import { performance } from 'node:perf_hooks';

/** A packet arriving later than this after its slot starts a new timeline instead of a burst. */
const MAX_LATE_MS = 200;

/**
 * Releases Opus packets at the pace they play (their durations), whatever pace they arrive at:
 * Icecast sources send Ogg pages of up to a second at once, MP3 decoding yields frames in bursts,
 * and a source that sends faster than real time is held back (the caller pauses its input while
 * {@link aheadMs} is high, so TCP slows the source down). Nothing is ever released ahead of its
 * time: over any window, what leaves is at most the window's length plus one late slot's catch-up.
 */
export class PacketPacer {
  private readonly queue: { payload: Buffer; samples: number }[] = [];
  private queuedSamples = 0;
  /** Wall time (ms) of the timeline's sample 0, and samples released on it so far. */
  private origin = 0;
  private released = 0;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

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
    while (this.queue.length > 0) {
      const due = this.origin + this.released / 48;
      if (due > now + 1) {
        this.timer = setTimeout(() => this.pump(), due - now);
        return;
      }
      const p = this.queue.shift()!;
      this.queuedSamples -= p.samples;
      this.released += p.samples;
      this.send(p.payload, p.samples);
    }
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.queue.length = 0;
    this.queuedSamples = 0;
  }
}
