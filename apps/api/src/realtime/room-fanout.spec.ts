import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from '@jest/globals';
import { createAdapter, type RedisAdapter } from '@socket.io/redis-adapter';
import { Redis } from 'ioredis';
import { Server } from 'socket.io';
import { io, type Socket as ClientSocket } from 'socket.io-client';
import { waitUntil } from '../../../../test/support/wait.js';
import { TEST_REDIS_URL } from '../../testing/test-app.js';
import { RoomFanout } from './room-fanout.js';

type Burst = { n: number };

interface Node {
  url: string;
  fanout: RoomFanout;
  server: Server;
  /** Engine.io messages written to each socket (by socket id) since the last reset. */
  writes: Map<string, number>;
  close: () => Promise<void>;
}

/** A socket.io server whose sockets join `room` unless their handshake says `{ join: false }`. */
async function startNode(redisKey?: string): Promise<Node> {
  const http = createServer();
  const server = new Server(http);
  const redis: Redis[] = [];
  if (redisKey) {
    const pub = new Redis(TEST_REDIS_URL);
    const sub = pub.duplicate();
    redis.push(pub, sub);
    server.adapter(createAdapter(pub, sub, { key: redisKey }));
  }
  const writes = new Map<string, number>();
  server.on('connection', (socket) => {
    if ((socket.handshake.auth as { join?: boolean }).join !== false) void socket.join('room');
    writes.set(socket.id, 0);
    socket.conn.on('packetCreate', (p: { type: string }) => {
      if (p.type === 'message') writes.set(socket.id, (writes.get(socket.id) ?? 0) + 1);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  const fanout = new RoomFanout(server, 200, {
    burst: (a, b) => ({ n: (a as Burst).n + (b as Burst).n }),
  });
  return {
    url: `http://127.0.0.1:${port}`,
    fanout,
    server,
    writes,
    close: async () => {
      fanout.close();
      await new Promise<void>((resolve) => void server.close(() => resolve()));
      await Promise.all(redis.map((r) => r.quit()));
    },
  };
}

interface Client {
  socket: ClientSocket;
  chat: number[];
  bursts: Burst[];
}

async function connect(url: string, transport: 'websocket' | 'polling', join = true) {
  const socket = io(url, {
    transports: [transport],
    forceNew: true,
    reconnection: false,
    auth: { join },
  });
  const c: Client = { socket, chat: [], bursts: [] };
  socket.on('chat', (m: { i: number }) => c.chat.push(m.i));
  socket.on('burst', (b: Burst) => c.bursts.push(b));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  return c;
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('RoomFanout: a room’s frequent pushes, written together', () => {
  const nodes: Node[] = [];
  const clients: Client[] = [];

  afterAll(async () => {
    for (const c of clients) c.socket.disconnect();
    await Promise.all(nodes.map((n) => n.close()));
  });

  it('delivers a flood to every socket of the room once and in order, a WebSocket in one write, long-polling alike, nobody outside', async () => {
    const node = await startNode();
    nodes.push(node);
    const ws = await connect(node.url, 'websocket');
    const polling = await connect(node.url, 'polling');
    const outsider = await connect(node.url, 'websocket', false);
    clients.push(ws, polling, outsider);
    for (const id of node.writes.keys()) node.writes.set(id, 0);

    for (const i of range(0, 50)) node.fanout.push('room', 'chat', { i });
    await waitUntil(
      () => ws.chat.length >= 50 && polling.chat.length >= 50,
      10_000,
      '50 messages at both clients',
    );
    expect(ws.chat).toEqual(range(0, 50));
    expect(polling.chat).toEqual(range(0, 50));
    // 50 socket.io events in a single engine.io write to the WebSocket
    expect(node.writes.get(ws.socket.id!)).toBe(1);

    // Pushed while the room rests after that write: both wait for the next one, together.
    node.fanout.push('room', 'chat', { i: 50 });
    node.fanout.push('room', 'chat', { i: 51 });
    await waitUntil(() => ws.chat.length >= 52, 10_000, 'two more messages');
    await waitUntil(() => polling.chat.length >= 52, 10_000, 'two more messages (polling)');
    expect(ws.chat).toEqual(range(0, 52));
    expect(polling.chat).toEqual(range(0, 52));
    expect(node.writes.get(ws.socket.id!)).toBe(2);
    expect(outsider.chat).toEqual([]);
  });

  it('reaches the sockets of other nodes once each (Redis), and sums the bursts that wait for the same write', async () => {
    const key = `rbtest-fanout-${randomBytes(4).toString('hex')}`;
    const a = await startNode(key);
    const b = await startNode(key);
    nodes.push(a, b);
    await waitUntil(
      async () => (await (a.server.of('/').adapter as RedisAdapter).serverCount()) === 2,
      10_000,
      'both nodes subscribed',
    );
    const onA = await connect(a.url, 'websocket');
    const onB = await connect(b.url, 'websocket');
    clients.push(onA, onB);

    for (const i of range(0, 10)) a.fanout.push('room', 'chat', { i });
    for (let k = 0; k < 3; k++) a.fanout.push('room', 'burst', { n: 1 });
    for (const i of range(10, 15)) b.fanout.push('room', 'chat', { i });
    await waitUntil(
      () => onA.chat.length >= 15 && onB.chat.length >= 15,
      10_000,
      '15 messages on both nodes',
    );
    await waitUntil(
      () => onB.bursts.reduce((n, x) => n + x.n, 0) >= 3,
      10_000,
      'the bursts on node B',
    );
    // A marker after everything: anything delivered twice would have come before it.
    a.fanout.push('room', 'chat', { i: 99 });
    await waitUntil(
      () => onA.chat.includes(99) && onB.chat.includes(99),
      10_000,
      'the marker on both nodes',
    );
    for (const c of [onA, onB]) {
      // Each node's own pushes in order; the other node's in order among themselves.
      expect(c.chat.filter((i) => i < 10)).toEqual(range(0, 10));
      expect(c.chat.filter((i) => i >= 10 && i < 15)).toEqual(range(10, 15));
      expect(c.chat).toHaveLength(16);
      expect(c.bursts.reduce((n, x) => n + x.n, 0)).toBe(3);
    }
    // On the node they were pushed on, the three bursts waited for one write: one event of 3.
    expect(onA.bursts).toEqual([{ n: 3 }]);
  });
});
