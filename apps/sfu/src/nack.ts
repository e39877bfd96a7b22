/**
 * RTP loss recovery (RFC 4585 generic NACK) for one incoming audio stream, and the short packet cache
 * a sender answers NACKs from. No werift imports: the SFU (toward publishers, and its listener shards)
 * and the CLI's WHEP listener use the same logic with their own way of sending RTCP.
 */

export interface NackOptions {
  /** Give up on a packet this long after its loss was detected (default 1000 ms). */
  maxAgeMs?: number;
  /** NACKs per lost packet at most (default 5). */
  maxTries?: number;
  /** Round-trip estimate before the first retransmission is measured (default 100 ms). */
  initialRttMs?: number;
  /** A jump this large is a new stream, not a loss (default 500 packets = 10 s of 20 ms frames). */
  maxGap?: number;
  /** A packet recovered later than this after its loss was noticed counts as late (default 250 ms). */
  lateMs?: number;
}

interface Missing {
  detectedAt: number;
  firstNackAt: number;
  lastNackAt: number;
  tries: number;
}

/**
 * Watches the sequence numbers of a stream as packets arrive; asks for each missing one at once and
 * again every ~1.25 round trips (measured from NACK to retransmission) until it arrives or is too old.
 */
export class NackRequester {
  private highest = -1;
  private readonly missing = new Map<number, Missing>();
  private timer?: NodeJS.Timeout;
  private rttMs: number;
  private closed = false;
  /** Packets asked for (each counted once), recovered (arrived after a NACK), given up. */
  requested = 0;
  recovered = 0;
  abandoned = 0;
  /** Recovered, but later than `lateMs` after the loss was noticed (too late for most playout). */
  recoveredLate = 0;
  private readonly lateMs: number;
  private readonly maxAgeMs: number;
  private readonly maxTries: number;
  private readonly maxGap: number;

  constructor(
    private readonly send: (lost: number[]) => void,
    opts: NackOptions = {},
  ) {
    this.maxAgeMs = opts.maxAgeMs ?? 1000;
    this.maxTries = opts.maxTries ?? 5;
    this.rttMs = opts.initialRttMs ?? 100;
    this.maxGap = opts.maxGap ?? 500;
    this.lateMs = opts.lateMs ?? 250;
  }

  /** Current round-trip estimate (ms). */
  get rtt(): number {
    return this.rttMs;
  }

  /** Sequence numbers still being asked for. */
  get pending(): number[] {
    return [...this.missing.keys()];
  }

  /** Call for every packet that arrives (in any order). */
  push(seq: number, now = Date.now()): void {
    if (this.closed) return;
    seq &= 0xffff;
    if (this.highest < 0) {
      this.highest = seq;
      return;
    }
    const ahead = (seq - this.highest) & 0xffff;
    if (ahead === 0) return;
    if (ahead < 0x8000) {
      if (ahead > this.maxGap) {
        // a new stream (publisher restart, seek): nothing to recover
        this.missing.clear();
        this.highest = seq;
        return;
      }
      const lost: number[] = [];
      for (let s = (this.highest + 1) & 0xffff; s !== seq; s = (s + 1) & 0xffff) {
        this.missing.set(s, { detectedAt: now, firstNackAt: now, lastNackAt: now, tries: 1 });
        lost.push(s);
      }
      this.highest = seq;
      if (lost.length > 0) {
        this.requested += lost.length;
        this.send(lost);
        this.arm();
      }
      return;
    }
    // late: a retransmission or a reordered packet
    const m = this.missing.get(seq);
    if (!m) return;
    this.missing.delete(seq);
    this.recovered++;
    if (now - m.detectedAt > this.lateMs) this.recoveredLate++;
    if (m.tries === 1) {
      const sample = now - m.firstNackAt;
      if (sample > 0) this.rttMs = Math.min(1000, Math.max(5, this.rttMs * 0.75 + sample * 0.25));
    }
  }

  private arm(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => this.tick(), 10);
    this.timer.unref?.();
  }

  private tick(now = Date.now()): void {
    const again: number[] = [];
    const wait = Math.max(20, this.rttMs * 1.25);
    for (const [seq, m] of this.missing) {
      if (now - m.detectedAt > this.maxAgeMs || m.tries >= this.maxTries) {
        if (now - m.lastNackAt >= wait) {
          this.missing.delete(seq);
          this.abandoned++;
        }
        continue;
      }
      if (now - m.lastNackAt >= wait) {
        m.lastNackAt = now;
        m.tries++;
        again.push(seq);
      }
    }
    if (again.length > 0) this.send(again);
    if (this.missing.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.missing.clear();
  }
}

export interface CachedPacket {
  seq: number;
  timestamp: number;
  marker: boolean;
  payload: Uint8Array;
}

/** The last `size` packets of a stream by sequence number (a ring: 256 = 5 s of 20 ms frames). */
export class PacketCache<P extends CachedPacket = CachedPacket> {
  private readonly ring: (P | undefined)[];
  private readonly mask: number;
  constructor(size = 256) {
    if (size & (size - 1)) throw new RangeError('cache size must be a power of two');
    this.ring = new Array<P | undefined>(size);
    this.mask = size - 1;
  }
  put(p: P): void {
    this.ring[p.seq & this.mask] = p;
  }
  get(seq: number): P | undefined {
    const p = this.ring[seq & this.mask];
    return p && p.seq === (seq & 0xffff) ? p : undefined;
  }
}
