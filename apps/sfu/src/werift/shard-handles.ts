/**
 * How the engine talks to a listener shard, wherever it runs: in the engine's own thread, or in a
 * worker thread behind a small request/reply protocol.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { SdpError } from '../media-engine.js';
import type { IceMux, MuxTarget, MuxUplink } from '../boundary/ice-mux.js';
import {
  ListenerShard,
  type ShardConfig,
  type ShardEvent,
  type ShardStats,
} from './listener-shard.js';
import {
  own,
  type MuxDown,
  type ShardPacket,
  type ShardReply,
  type ShardRequest,
} from './shard-protocol.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

const EMPTY_STATS: ShardStats = {
  listeners: 0,
  pending: 0,
  packetsOut: 0,
  bytesOut: 0,
  sendErrors: 0,
  packetsIn: 0,
  retransmits: 0,
  gcm: 0,
  cm: 0,
  handshakes: 0,
  cpuSeconds: null,
  consent: { answered: 0, granted: 0 },
};

/** How the engine talks to a shard, wherever it runs. */
export interface ShardHandle {
  readonly index: number;
  /** Event-loop utilization of the thread running this shard (cumulative; diff two samples). */
  elu(): EventLoopUtilization;
  /** Sessions placed on this shard (pending + connected), tracked by the engine. */
  sessions: number;
  alive: boolean;
  stats(): ShardStats;
  add(stationId: string, sessionId: string, offer: string): Promise<string>;
  remove(stationId: string, sessionId: string): Promise<boolean>;
  closeStation(stationId: string): Promise<void>;
  packet(stationId: string, seq: number, ts: number, marker: boolean, payload: Buffer): void;
  close(): Promise<void>;
}

export class InThreadShard implements ShardHandle {
  sessions = 0;
  alive = true;
  private readonly shard: ListenerShard;
  constructor(
    readonly index: number,
    cfg: ShardConfig,
    onEvent: (index: number, e: ShardEvent) => void,
    mux?: IceMux,
  ) {
    this.shard = new ListenerShard(cfg, (e) => onEvent(index, e), mux);
  }
  stats(): ShardStats {
    return this.shard.stats();
  }
  elu(): EventLoopUtilization {
    return performance.eventLoopUtilization();
  }
  add(stationId: string, sessionId: string, offer: string): Promise<string> {
    return this.shard.addListener(stationId, sessionId, offer);
  }
  remove(stationId: string, sessionId: string): Promise<boolean> {
    return this.shard.removeListener(stationId, sessionId);
  }
  closeStation(stationId: string): Promise<void> {
    return this.shard.closeStation(stationId);
  }
  packet(stationId: string, seq: number, ts: number, marker: boolean, payload: Buffer): void {
    this.shard.packet(stationId, seq, ts, marker, payload);
  }
  close(): Promise<void> {
    this.alive = false;
    return this.shard.close();
  }
}

export class WorkerShard implements ShardHandle {
  sessions = 0;
  alive = true;
  private lastStats: ShardStats = EMPTY_STATS;
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void }
  >();
  constructor(
    readonly index: number,
    url: URL,
    cfg: ShardConfig,
    private readonly onEvent: (index: number, e: ShardEvent) => void,
    private readonly onDeath: (index: number, err: Error) => void,
    /** The node's one-port router, when the shard's sessions are on it. */
    private readonly router?: MuxUplink,
  ) {
    this.worker = new Worker(url, { workerData: cfg, name: `sfu-shard-${index}` });
    this.worker.on('message', (m: ShardReply) => this.onMessage(m));
    this.worker.on('error', (err) => this.die(err));
    this.worker.on('exit', (code) =>
      this.die(new Error(`shard ${index} exited with code ${code}`)),
    );
  }
  private die(err: Error): void {
    if (!this.alive) return;
    this.alive = false;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.onDeath(this.index, err);
  }
  /** What the router hands this shard's mux: posted to the worker thread. */
  readonly muxTarget: MuxTarget = {
    udp: (d, a) => this.postMux({ op: 'mux', k: 'udp', d: own(d), a }),
    tcpOpen: (i, u, a, d) => this.postMux({ op: 'mux', k: 'tcpOpen', i, u, a, d: own(d) }),
    tcpData: (i, d) => this.postMux({ op: 'mux', k: 'tcpData', i, d: own(d) }),
    tcpClosed: (i) => this.postMux({ op: 'mux', k: 'tcpClosed', i }),
  };
  private postMux(m: MuxDown): void {
    if (this.alive) this.worker.postMessage(m);
  }
  private onMessage(m: ShardReply): void {
    if (m.op === 'mux') {
      const r = this.router;
      if (!r) return;
      if (m.k === 'stray') r.stray(Buffer.from(m.d.buffer, m.d.byteOffset, m.d.length), m.a);
      else if (m.k === 'tcpWrite') {
        r.tcpWrite(m.i, Buffer.from(m.d.buffer, m.d.byteOffset, m.d.length));
      } else r.tcpClose(m.i);
      return;
    }
    if (m.op === 'event') {
      if (m.e.t === 'stats') this.lastStats = m.e.stats;
      this.onEvent(this.index, m.e);
      return;
    }
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (m.ok) p.resolve(m.value);
    else {
      const err =
        m.error.name === 'SdpError' ? new SdpError(m.error.message) : new Error(m.error.message);
      p.reject(err);
    }
  }
  private call<T>(req: DistributiveOmit<ShardRequest, 'id'>): Promise<T> {
    if (!this.alive) return Promise.reject(new Error(`shard ${this.index} is down`));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ ...req, id });
    });
  }
  stats(): ShardStats {
    return this.lastStats;
  }
  elu(): EventLoopUtilization {
    return this.worker.performance.eventLoopUtilization();
  }
  add(stationId: string, sessionId: string, offer: string): Promise<string> {
    return this.call<string>({ op: 'add', stationId, sessionId, offer });
  }
  remove(stationId: string, sessionId: string): Promise<boolean> {
    return this.call<boolean>({ op: 'remove', stationId, sessionId });
  }
  closeStation(stationId: string): Promise<void> {
    return this.call<void>({ op: 'closeStation', stationId });
  }
  packet(stationId: string, seq: number, ts: number, marker: boolean, payload: Buffer): void {
    if (!this.alive) return;
    const msg: ShardPacket = { op: 'pkt', s: stationId, q: seq, ts, m: marker, p: payload };
    this.worker.postMessage(msg);
  }
  async close(): Promise<void> {
    if (!this.alive) return;
    const done = new Promise<void>((r) => this.worker.once('exit', () => r()));
    await settledWithin(this.call({ op: 'close' }), 2000);
    this.alive = false;
    await this.worker.terminate().catch(() => undefined);
    await settledWithin(done, 1000);
  }
}

/**
 * Waits for `p` to settle, or `ms` at most; the timer goes as soon as `p` settles (a bare
 * `Promise.race` with a timer keeps the process alive for the whole `ms` after every close).
 */
function settledWithin(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((r) => (timer = setTimeout(r, ms))),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Where the compiled worker entry is. From `dist/` it sits beside this module; when this module runs
 * from the TypeScript sources (Jest, tsx) the worker is taken from `dist/` (build it with
 * `tsc -b apps/sfu`): a worker thread does not get the test runner's TypeScript transform.
 */
export function resolveShardWorker(): URL | null {
  const candidates = [
    new URL('./shard-worker.js', import.meta.url),
    new URL('../../dist/werift/shard-worker.js', import.meta.url),
  ];
  for (const u of candidates) {
    if (u.protocol === 'file:' && existsSync(fileURLToPath(u))) return u;
  }
  return null;
}
