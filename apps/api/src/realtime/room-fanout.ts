import { RedisAdapter } from '@socket.io/redis-adapter';
import type { Server, Socket } from 'socket.io';

/** What other API nodes hear a room push on (socket.io's server-side emit; never sent to clients). */
const CROSS_NODE_EVENT = 'rb:room-push';
/** socket.io's EVENT packet type. */
const EVENT = 2;

type Packet = [event: string, payload: unknown];

interface Room {
  packets: Packet[];
  /** The pending flush (or the quiet interval after the last one). */
  timer: NodeJS.Timeout | null;
}

/** Folds a queued payload and a new one of the same event into one (reaction counts add up). */
export type Merge = (queued: unknown, next: unknown) => unknown;

/** The engine.io parts a flush touches (untyped members of engine.io's transport). */
interface EngineTransport {
  name: string;
  _canSendPreEncodedFrame?: (packet: { options: object }) => boolean;
}

/**
 * The pushes that come often to big rooms (chat messages, reaction bursts): on each API node a room's
 * sockets get them at most once every `intervalMs`, everything that came in between written to each
 * socket at once. A WebSocket gets the batch as one write (one WebSocket frame per event, each still
 * its own socket.io event, in order), so 20 messages a second to 5,000 sockets cost 5 writes a second
 * per socket instead of 20, and the clients as many reads. The first push after a quiet interval
 * goes out at once (the next turn of the event loop). Other API nodes hear each push once
 * (socket.io's server-side emit over the Redis adapter) and batch it for their own sockets alike.
 */
export class RoomFanout {
  private readonly rooms = new Map<string, Room>();
  private readonly crossNodes: boolean;
  private closed = false;

  constructor(
    private readonly server: Server,
    private readonly intervalMs: number,
    private readonly merges: Readonly<Partial<Record<string, Merge>>> = {},
  ) {
    const nsp = server.of('/');
    this.crossNodes = nsp.adapter instanceof RedisAdapter;
    if (this.crossNodes)
      nsp.on(CROSS_NODE_EVENT, (room: unknown, event: unknown, payload: unknown) => {
        if (typeof room === 'string' && typeof event === 'string')
          this.enqueue(room, event, payload);
      });
  }

  /** `event` to every socket of `room`, on every node. */
  push(room: string, event: string, payload: unknown): void {
    if (this.closed) return;
    if (this.crossNodes) this.server.of('/').serverSideEmit(CROSS_NODE_EVENT, room, event, payload);
    this.enqueue(room, event, payload);
  }

  private enqueue(room: string, event: string, payload: unknown): void {
    if (this.closed) return;
    const r = this.rooms.get(room) ?? { packets: [], timer: null };
    this.rooms.set(room, r);
    const merge = this.merges[event];
    const queued = merge ? r.packets.find(([e]) => e === event) : undefined;
    if (queued) queued[1] = merge!(queued[1], payload);
    else r.packets.push([event, payload]);
    if (!r.timer) r.timer = this.after(0, () => this.flush(room, r));
  }

  private after(ms: number, fn: () => void): NodeJS.Timeout {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  }

  /** Writes what is queued, then lets the room rest `intervalMs` (pushes meanwhile wait for it). */
  private flush(room: string, r: Room): void {
    const packets = r.packets;
    r.packets = [];
    if (!packets.length) {
      r.timer = null;
      this.rooms.delete(room);
      return;
    }
    r.timer = this.after(this.intervalMs, () => this.flush(room, r));
    this.write(room, packets);
  }

  private write(room: string, packets: Packet[]): void {
    const nsp = this.server.of('/');
    const ids = nsp.adapter.rooms.get(room);
    if (!ids?.size) return;
    const encoded: string[] = [];
    for (const [event, payload] of packets) {
      const parts = this.server.encoder.encode({ type: EVENT, nsp: '/', data: [event, payload] });
      if (parts.length !== 1 || typeof parts[0] !== 'string') {
        // Binary attachments: socket.io's own broadcast, one event at a time.
        for (const [e, p] of packets) nsp.local.to(room).emit(e, p);
        return;
      }
      encoded.push(parts[0]);
    }
    // One WebSocket text frame per engine.io message ("4" + the socket.io packet), back to back.
    const frames = Buffer.concat(encoded.map((s) => textFrame(Buffer.from(`4${s}`))));
    const framed = { wsPreEncodedFrame: [frames] };
    type SendOptions = Parameters<Socket['conn']['write']>[1];
    for (const id of ids) {
      const conn = nsp.sockets.get(id)?.conn;
      if (!conn || conn.readyState !== 'open') continue;
      const transport = conn.transport as unknown as EngineTransport;
      // engine.io writes a packet's pre-encoded frame as is on a WebSocket: the whole batch at once.
      // Long-polling (or an engine.io that cannot) gets the events one by one, in one response.
      if (
        transport.name === 'websocket' &&
        transport._canSendPreEncodedFrame?.({ options: framed }) === true
      )
        conn.write(encoded[0]!, framed as unknown as SendOptions);
      else for (const s of encoded) conn.write(s, {});
    }
  }

  close(): void {
    this.closed = true;
    for (const r of this.rooms.values()) if (r.timer) clearTimeout(r.timer);
    this.rooms.clear();
  }
}

/** An unmasked, final WebSocket text frame (server to client) carrying `data`. */
export function textFrame(data: Buffer): Buffer {
  const n = data.length;
  const head = n < 126 ? 2 : n < 65536 ? 4 : 10;
  const out = Buffer.allocUnsafe(head + n);
  out[0] = 0x81;
  if (n < 126) out[1] = n;
  else if (n < 65536) {
    out[1] = 126;
    out.writeUInt16BE(n, 2);
  } else {
    out[1] = 127;
    out.writeBigUInt64BE(BigInt(n), 2);
  }
  data.copy(out, head);
  return out;
}
