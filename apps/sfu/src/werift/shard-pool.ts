/** The listener shards of an engine: worker threads (or one in-thread shard), restarted when one dies. */
import type { EventLoopUtilization } from 'node:perf_hooks';
import { MUX_TAG_LENGTH, type IceMux } from '../boundary/ice-mux.js';
import type { IceMuxRouter } from '../net/ice-mux-router.js';
import type { ShardConfig, ShardEvent } from './listener-shard.js';
import {
  InThreadShard,
  resolveShardWorker,
  WorkerShard,
  type ShardHandle,
} from './shard-handles.js';

/** ufrag prefix of the engine's own thread (publishers, the in-thread shard) on the node's one port. */
export const MAIN_TAG = 'm00';
/** ufrag prefix of worker shard `i` (one port per node, see net/ice-mux.ts). */
export function shardTag(i: number): string {
  return `s${i.toString(36).padStart(MUX_TAG_LENGTH - 1, '0')}`;
}

export class ShardPool {
  readonly shards: ShardHandle[] = [];
  private spawnShard?: (index: number) => ShardHandle;
  /** Where shards run: 'worker' threads or 'in-thread'. */
  mode: 'worker' | 'in-thread' = 'in-thread';

  constructor(
    private readonly onEvent: (index: number, e: ShardEvent) => void,
    private readonly onDeath: (index: number, err: Error) => void,
  ) {}

  /**
   * Starts `count` worker shards, or one in-thread shard when `count` is 0 or the compiled worker
   * is missing. With the node's one port, each shard gets its own ufrag prefix on it.
   */
  start(
    count: number,
    cfg: (index: number) => ShardConfig,
    mux?: IceMux,
    router?: IceMuxRouter,
  ): void {
    const url = count > 0 ? resolveShardWorker() : null;
    if (count > 0 && !url) {
      console.warn(
        '[sfu] compiled shard worker not found (run `tsc -b apps/sfu`); listeners run in-thread',
      );
    }
    if (count === 0 || !url) {
      this.shards.push(new InThreadShard(0, cfg(0), (i, e) => this.onEvent(i, e), mux));
      return;
    }
    this.mode = 'worker';
    this.spawnShard = (i: number) => {
      const shard = new WorkerShard(
        i,
        url,
        cfg(i),
        (idx, e) => this.onEvent(idx, e),
        (idx, err) => this.onDeath(idx, err),
        router,
      );
      router?.addTarget(shardTag(i), shard.muxTarget);
      return shard;
    };
    for (let i = 0; i < count; i++) this.shards.push(this.spawnShard(i));
  }

  /** A fresh worker in place of shard `index`, which died. */
  respawn(index: number): void {
    if (this.spawnShard) {
      this.shards[index] = this.spawnShard(index);
    }
  }

  get length(): number {
    return this.shards.length;
  }

  /** One publisher packet to every shard (seq/timestamp already rewritten). */
  packet(stationId: string, seq: number, ts: number, marker: boolean, data: Buffer): void {
    for (const shard of this.shards) shard.packet(stationId, seq, ts, marker, data);
  }

  async closeStation(stationId: string): Promise<void> {
    await Promise.all(
      this.shards
        .filter((s) => s.alive)
        .map((s) => s.closeStation(stationId).catch(() => undefined)),
    );
  }

  utilization(): EventLoopUtilization[] {
    return this.shards.map((s) => s.elu());
  }

  async close(): Promise<void> {
    await Promise.all(this.shards.map((s) => s.close().catch(() => undefined)));
  }
}
