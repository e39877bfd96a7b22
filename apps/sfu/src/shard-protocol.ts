import type { ShardEvent } from './listener-shard.js';

/** Messages from the engine to a shard worker. */
export type ShardRequest =
  | { op: 'add'; id: number; stationId: string; sessionId: string; offer: string }
  | { op: 'remove'; id: number; stationId: string; sessionId: string }
  | { op: 'closeStation'; id: number; stationId: string }
  | { op: 'restartIce'; id: number; stationId: string; sessionId: string; offer: string }
  | { op: 'close'; id: number };

/** A publisher packet relayed once to each shard. */
export interface ShardPacket {
  op: 'pkt';
  s: string;
  q: number;
  ts: number;
  m: boolean;
  p: Uint8Array;
}

export type ShardReply =
  | { op: 'reply'; id: number; ok: true; value: unknown }
  | { op: 'reply'; id: number; ok: false; error: { name: string; message: string } }
  | { op: 'event'; e: ShardEvent };
