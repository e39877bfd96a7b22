/** Pushes of a station's changes: status and now playing at once, counts at most once a second. */
export interface PushTiming {
  /** Least time between two pushes of one station (bursts of edits become one push). */
  minIntervalMs: number;
  /** Least time between two pushes caused by viewer counts alone. */
  countIntervalMs: number;
}

interface StationState {
  other: boolean;
  count: boolean;
  lastPush: number;
  lastCountPush: number;
  timer: NodeJS.Timeout | undefined;
  due: number;
}

/**
 * Decides when each station's next push goes out; `push(stationId)` sends the station's state
 * as it is then, so changes that arrive while one is pending ride along.
 */
export class PushScheduler {
  private readonly states = new Map<string, StationState>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly timing: PushTiming,
    private readonly push: (stationId: string) => void,
  ) {
    // Forget idle stations; their spacing constraints have long expired.
    this.sweeper = setInterval(() => this.sweep(), 30_000).unref();
  }

  /** `kind`: 'count' for viewer counts, 'change' for everything else. */
  changed(stationId: string, kind: 'count' | 'change', now = Date.now()): void {
    let s = this.states.get(stationId);
    if (!s) {
      s = {
        other: false,
        count: false,
        lastPush: -Infinity,
        lastCountPush: -Infinity,
        timer: undefined,
        due: Infinity,
      };
      this.states.set(stationId, s);
    }
    if (kind === 'count') s.count = true;
    else s.other = true;
    const spaced = s.lastPush + this.timing.minIntervalMs;
    const due = s.other
      ? Math.max(now, spaced)
      : Math.max(now, spaced, s.lastCountPush + this.timing.countIntervalMs);
    if (s.timer && s.due <= due) return;
    if (s.timer) clearTimeout(s.timer);
    s.due = due;
    s.timer = setTimeout(() => this.fire(stationId), due - now);
  }

  private fire(stationId: string): void {
    const s = this.states.get(stationId);
    if (!s) return;
    const now = Date.now();
    s.timer = undefined;
    s.due = Infinity;
    s.lastPush = now;
    // Every push carries the current count, so it restarts the count interval too.
    s.lastCountPush = now;
    s.other = false;
    s.count = false;
    this.push(stationId);
  }

  private sweep(): void {
    const horizon = Date.now() - Math.max(this.timing.minIntervalMs, this.timing.countIntervalMs);
    for (const [id, s] of this.states) if (!s.timer && s.lastPush < horizon) this.states.delete(id);
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const s of this.states.values()) if (s.timer) clearTimeout(s.timer);
    this.states.clear();
  }
}
