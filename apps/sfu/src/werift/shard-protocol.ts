import type { Address } from '../boundary/ice-mux.js';
import type { ShardEvent } from './listener-shard.js';

/** Messages from the engine to a shard worker. */
export type ShardRequest =
  | { op: 'add'; id: number; stationId: string; sessionId: string; offer: string }
  | { op: 'remove'; id: number; stationId: string; sessionId: string }
  | { op: 'closeStation'; id: number; stationId: string }
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

/** The node's router (main thread) → a shard's mux: first-contact datagrams and ICE-TCP streams. */
export type MuxDown =
  | { op: 'mux'; k: 'udp'; d: Uint8Array; a: Address }
  | { op: 'mux'; k: 'tcpOpen'; i: number; u: string; a: Address; d: Uint8Array }
  | { op: 'mux'; k: 'tcpData'; i: number; d: Uint8Array }
  | { op: 'mux'; k: 'tcpClosed'; i: number };

/** A shard's mux → the node's router. */
export type MuxUp =
  | { op: 'mux'; k: 'stray'; d: Uint8Array; a: Address }
  | { op: 'mux'; k: 'tcpWrite'; i: number; d: Uint8Array }
  | { op: 'mux'; k: 'tcpClose'; i: number };

/** A copy that owns its memory (posting a view of a pooled Buffer would clone the whole pool). */
export const own = (b: Uint8Array): Uint8Array => Uint8Array.prototype.slice.call(b);

export type ShardReply =
  | { op: 'reply'; id: number; ok: true; value: unknown }
  | { op: 'reply'; id: number; ok: false; error: { name: string; message: string } }
  | { op: 'event'; e: ShardEvent }
  | MuxUp;
