/** A reading of the input: loudness (RMS) and peak in dBFS, and whether it clipped lately. */
export interface Level {
  rmsDb: number;
  peakDb: number;
  /** The highest peak of the last second and a half, as meters hold it. */
  holdDb: number;
  clipping: boolean;
}

export const SILENT: Level = {
  rmsDb: -Infinity,
  peakDb: -Infinity,
  holdDb: -Infinity,
  clipping: false,
};

/** Samples at or above this (about -0.1 dBFS) count as clipped: the signal hit the ceiling. */
const CLIP_SAMPLE = 0.989;
/** The warning stays this long after the last clipped sample, so people can read it. */
const CLIP_HOLD_MS = 2000;
const PEAK_HOLD_MS = 1500;
const READ_EVERY_MS = 50;

const toDb = (v: number) => (v > 0 ? 20 * Math.log10(v) : -Infinity);

/**
 * Measures a MediaStream through a WebAudio analyser (nothing is played back), 20 readings a second,
 * and tells its subscribers. Framework-free so the broadcast keeps measuring across page changes.
 */
export class LevelMeter {
  private ctx: AudioContext | null = null;
  private timer: ReturnType<typeof setInterval> | undefined;
  private level: Level = SILENT;
  private readonly subscribers = new Set<(level: Level) => void>();

  start(stream: MediaStream): void {
    this.stop();
    try {
      const ctx = new AudioContext();
      const analyser = ctx.createAnalyser();
      analyser.fftSize = 2048;
      ctx.createMediaStreamSource(stream).connect(analyser);
      this.ctx = ctx;
      const buf = new Float32Array(analyser.fftSize);
      let clipAt = -Infinity;
      let hold = { db: -Infinity, at: 0 };
      // Timers, not animation frames: a broadcast in a background tab is still measured.
      this.timer = setInterval(() => {
        analyser.getFloatTimeDomainData(buf);
        let sum = 0;
        let peak = 0;
        for (const v of buf) {
          sum += v * v;
          const a = Math.abs(v);
          if (a > peak) peak = a;
        }
        const now = performance.now();
        if (peak >= CLIP_SAMPLE) clipAt = now;
        const peakDb = toDb(peak);
        if (peakDb >= hold.db || now - hold.at > PEAK_HOLD_MS) hold = { db: peakDb, at: now };
        this.emit({
          rmsDb: toDb(Math.sqrt(sum / buf.length)),
          peakDb,
          holdDb: hold.db,
          clipping: now - clipAt < CLIP_HOLD_MS,
        });
      }, READ_EVERY_MS);
    } catch {
      // No WebAudio: broadcasting works without a meter.
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    void this.ctx?.close();
    this.ctx = null;
    this.emit(SILENT);
  }

  current(): Level {
    return this.level;
  }

  subscribe(fn: (level: Level) => void): () => void {
    this.subscribers.add(fn);
    return () => void this.subscribers.delete(fn);
  }

  private emit(level: Level): void {
    this.level = level;
    for (const fn of this.subscribers) fn(level);
  }
}
