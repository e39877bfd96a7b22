import { readFileSync } from 'node:fs';

/** What a shard did over one stats window. */
export interface LoadWindow {
  /** Wall time the window covers. */
  seconds: number;
  /** CPU time the shard's thread used in it. */
  cpuSeconds: number;
  /** Packets sent to listeners in it (first sends and resends). */
  sends: number;
  /** Listener handshakes started in it. */
  handshakes: number;
  /** Connected listeners at its end. */
  listeners: number;
}

export interface CapacityOptions {
  /** Share of one core the shard may fill (forwarding, timers, handshakes); the rest is headroom. */
  target?: number;
  /** Joins per second the shard keeps room for while it is full. */
  joinsPerSecond?: number;
  /** Before the first measurement: CPU per packet per listener, and per handshake (seconds). */
  prior?: { perSend: number; perHandshake: number };
}

/** Packets per second a listener of a 20 ms Opus stream receives, until one is measured. */
const DEFAULT_PACKET_RATE = 50;
/** Weight of the past: each window counts this much less per window since (≈ 20 s memory). */
const DECAY = 0.95;
/** The prior weighs like one second of a shard with 100 listeners and 5 joins: the first real windows outweigh it. */
const PRIOR_LISTENERS = 100;
const PRIOR_JOINS = 5;
/** Listeners below which a window says too little about the packet rate. */
const MIN_LISTENERS = 20;
/**
 * What a fit may conclude: a few noisy windows (a busy machine, a burst of joins) must not make a
 * shard refuse everyone. Beyond these bounds a packet or a handshake is not what the shard measured.
 */
const PER_SEND = { min: 0.5e-6, max: 200e-6 };
const PER_HANDSHAKE = { min: 0.1e-3, max: 20e-3 };
/** At most this share of the target is kept for joins. */
const MAX_JOIN_SHARE = 0.25;

/**
 * How many listeners a shard can hold, from what its own thread's CPU time shows on this machine:
 * the CPU of a window is fitted as idle + perSend × sends + perHandshake × handshakes (least squares,
 * recent windows weighted most, anchored by a conservative prior until there is data), and the
 * shard admits listeners while forwarding to them stays within `target` of a core with room left for
 * `joinsPerSecond` handshakes. A faster machine holds more, a slower one fewer; a burst of joins
 * does not read as a full shard, because handshakes are a term of their own.
 */
export class ShardCapacity {
  private readonly target: number;
  private readonly joinsPerSecond: number;
  private readonly prior: { perSend: number; perHandshake: number };
  // decayed sums of the normal equations for y = cpu − idle·seconds over x = (sends, handshakes)
  private ss = 0;
  private sh = 0;
  private hh = 0;
  private sy = 0;
  private hy = 0;
  private idle = 0.005;
  private packetRate = DEFAULT_PACKET_RATE;
  private fitted: { perSend: number; perHandshake: number };

  constructor(opts: CapacityOptions = {}) {
    this.target = opts.target ?? 0.8;
    this.joinsPerSecond = opts.joinsPerSecond ?? 25;
    this.prior = opts.prior ?? { perSend: 20e-6, perHandshake: 3e-3 };
    this.fitted = { ...this.prior };
  }

  observe(w: LoadWindow): void {
    if (!(w.seconds > 0) || !(w.cpuSeconds >= 0)) return;
    if (w.sends === 0 && w.handshakes === 0) {
      // an idle shard: what its timers cost with nothing to forward
      this.idle = 0.8 * this.idle + 0.2 * Math.min(0.2, w.cpuSeconds / w.seconds);
      return;
    }
    if (w.listeners >= MIN_LISTENERS && w.sends > 0) {
      const rate = w.sends / w.seconds / w.listeners;
      this.packetRate = 0.8 * this.packetRate + 0.2 * Math.min(200, Math.max(10, rate));
    }
    const y = w.cpuSeconds - this.idle * w.seconds;
    this.ss = DECAY * this.ss + w.sends * w.sends;
    this.sh = DECAY * this.sh + w.sends * w.handshakes;
    this.hh = DECAY * this.hh + w.handshakes * w.handshakes;
    this.sy = DECAY * this.sy + w.sends * y;
    this.hy = DECAY * this.hy + w.handshakes * y;
    this.fit();
  }

  private fit(): void {
    // ridge towards the prior, weighted like one window of PRIOR_LISTENERS and PRIOR_JOINS
    const ps = PRIOR_LISTENERS * DEFAULT_PACKET_RATE;
    const ph = PRIOR_JOINS;
    const a = this.ss + ps * ps;
    const b = this.sh;
    const d = this.hh + ph * ph;
    const e = this.sy + ps * ps * this.prior.perSend;
    const f = this.hy + ph * ph * this.prior.perHandshake;
    const det = a * d - b * b;
    if (!(det > 0)) return;
    this.fitted = {
      perSend: clamp((e * d - b * f) / det, PER_SEND),
      perHandshake: clamp((a * f - b * e) / det, PER_HANDSHAKE),
    };
  }

  /** CPU per packet per listener and per handshake, as measured (seconds). */
  costs(): { perSend: number; perHandshake: number; idle: number; packetRate: number } {
    return { ...this.fitted, idle: this.idle, packetRate: this.packetRate };
  }

  /** Listeners the shard can hold. */
  listeners(): number {
    const { perSend, perHandshake } = this.fitted;
    const joins = Math.min(perHandshake * this.joinsPerSecond, MAX_JOIN_SHARE * this.target);
    const forwarding = this.target - this.idle - joins;
    return Math.max(1, Math.floor(forwarding / (perSend * this.packetRate)));
  }
}

const clamp = (v: number, r: { min: number; max: number }) => Math.min(r.max, Math.max(r.min, v));

/** Cumulative figures a shard reports every second (see ShardStats). */
export interface LoadTotals {
  /** When they were read (ms). */
  at: number;
  cpuSeconds: number;
  /** Packets sent to listeners so far. */
  sends: number;
  handshakes: number;
  listeners: number;
}

/** Turns a shard's cumulative reports into windows for its ShardCapacity. */
export class ShardLoad {
  private last: LoadTotals | null = null;
  constructor(readonly capacity: ShardCapacity) {}

  report(t: LoadTotals): void {
    const last = this.last;
    this.last = t;
    // a restarted shard starts its totals again
    if (!last || t.sends < last.sends || t.handshakes < last.handshakes) return;
    if (t.cpuSeconds < last.cpuSeconds) return;
    this.capacity.observe({
      seconds: (t.at - last.at) / 1000,
      cpuSeconds: t.cpuSeconds - last.cpuSeconds,
      sends: t.sends - last.sends,
      handshakes: t.handshakes - last.handshakes,
      listeners: t.listeners,
    });
  }
}

/**
 * CPU seconds the calling thread has used (Linux: /proc/thread-self; a synchronous read runs on the
 * calling thread). Null where that is not available.
 */
export function threadCpuSeconds(): number | null {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'latin1');
    // fields after the command name, which may hold spaces: state is field 3, utime 14, stime 15
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/** USER_HZ: Linux reports thread times in 1/100 s on every architecture Node runs on. */
const CLOCK_TICKS = 100;
