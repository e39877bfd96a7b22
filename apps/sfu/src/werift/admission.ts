/**
 * Which shard takes the next listener, if any: the operator's cap shared out among the shards, and
 * what each shard's thread is measured to hold on this machine (ShardCapacity).
 */
import { CapacityError, type MediaEngineOptions } from '../media-engine.js';
import { ShardCapacity, ShardLoad } from './capacity.js';
import type { ShardStats } from './listener-shard.js';
import type { ShardHandle } from './shard-handles.js';
import type { ShardPool } from './shard-pool.js';

export class Admission {
  /** Engine-wide cap set by the operator (Infinity: none). */
  readonly maxListeners: number;
  /** Admission by what each shard's thread is measured to hold; off with `maxListeners: 0`. */
  private readonly measured: boolean;
  /** Per shard index: its load reports and the capacity they show. */
  private readonly loads: ShardLoad[] = [];
  private readonly capacityOpts: MediaEngineOptions['capacity'];

  constructor(
    opts: Pick<MediaEngineOptions, 'maxListeners' | 'capacity'>,
    private readonly pool: ShardPool,
  ) {
    const max = opts.maxListeners;
    this.maxListeners = max !== undefined && max > 0 ? max : Infinity;
    this.measured = max !== 0;
    this.capacityOpts = opts.capacity;
  }

  /** A shard's periodic stats: what its thread spent on how many listeners. */
  report(index: number, stats: ShardStats): void {
    const shard = this.pool.shards[index];
    // an in-thread shard shares its thread with the rest of the process (the API, publishers):
    // its CPU says nothing about what its listeners cost, and the prior stands
    if (!shard || this.pool.mode !== 'worker') return;
    this.load(index).report({
      at: Date.now(),
      // where the OS gives no thread CPU time, the time the worker's event loop was busy
      cpuSeconds: stats.cpuSeconds ?? shard.elu().active / 1000,
      sends: stats.packetsOut,
      handshakes: stats.handshakes,
      listeners: stats.listeners,
    });
  }

  /**
   * The shard for one more listener (the least loaded with room), when `placed` sessions are
   * open engine-wide; a CapacityError when none may take it.
   */
  pick(placed: number): ShardHandle {
    if (placed >= this.maxListeners) {
      throw new CapacityError(`listener capacity reached (${this.maxListeners})`);
    }
    const alive = this.pool.shards.filter((s) => s.alive && s.sessions < this.shardLimit(s.index));
    if (alive.length === 0) {
      throw new CapacityError(`listener capacity reached (${this.capacity() ?? 'no limit'})`);
    }
    return alive.reduce((a, b) => (b.sessions < a.sessions ? b : a));
  }

  /**
   * Listeners one shard may hold: its share of the operator's cap, and what its thread is measured
   * to hold on this machine (ShardCapacity). A burst of joins is not read as a full shard.
   */
  shardLimit(index: number): number {
    const share = Math.ceil(this.maxListeners / this.pool.length);
    if (!this.measured) return share;
    return Math.min(share, this.shardCapacity(index));
  }

  shardCapacity(index: number): number {
    return this.load(index).capacity.listeners();
  }

  /** What admission lets in engine-wide now; null when unlimited. */
  capacity(): number | null {
    const measured = this.measured
      ? this.pool.shards.reduce((n, s) => n + (s.alive ? this.shardCapacity(s.index) : 0), 0)
      : Infinity;
    const cap = Math.min(this.maxListeners, measured);
    return Number.isFinite(cap) ? cap : null;
  }

  private load(index: number): ShardLoad {
    return (this.loads[index] ??= new ShardLoad(new ShardCapacity(this.capacityOpts)));
  }
}
