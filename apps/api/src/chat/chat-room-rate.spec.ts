import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ChatHistoryResponse, type ChatMessage, ErrorTag } from '@radiobroadcaster/contracts';
import type { Socket } from 'socket.io-client';
import { waitUntil } from '../../../../test/support/wait.js';
import { connectSocket, emitAck } from '../../testing/sockets.js';
import {
  createTestDatabase,
  type NodeProcess,
  signUp,
  apiNodes,
  TEST_REDIS_URL,
} from '../../testing/test-app.js';

type Ack = { ok: boolean; error?: string; message?: unknown };

/** The room limit the nodes run with: 1 message a second, bursts of 2. */
const PER_SECOND = 1;
const BURST = 2 * PER_SECOND;
const GUESTS_PER_NODE = 6;
const SENDS_EACH = 4;

describe('the per-room chat rate limit across two API processes on one Redis', () => {
  const api = apiNodes();
  const nodes = api.list;
  const sockets: Socket[] = [];
  let db: Awaited<ReturnType<typeof createTestDatabase>>;

  beforeAll(async () => {
    db = await createTestDatabase();
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      AUTH_SECRET: randomBytes(32).toString('hex'),
      EVENT_PREFIX: `rbtest-${randomBytes(4).toString('hex')}`,
      DATA_DIR: `/tmp/rb-chat-rate-${randomBytes(4).toString('hex')}`,
      RATE_LIMIT_CHAT_ROOM_PER_SECOND: String(PER_SECOND),
    };
    // Sequentially: the first runs the migrations.
    for (let i = 0; i < 2; i++) await api.start(env);
  }, 120_000);

  afterAll(async () => {
    for (const s of sockets) s.disconnect();
    await api.stopAll();
    await db.drop();
  });

  it('a flood split across both nodes gets no more through than one room allows, and every listener sees exactly what got through', async () => {
    const [a, b] = nodes as [NodeProcess, NodeProcess];
    const owner = await signUp(a.url);
    const created = await fetch(`${a.url}/api/stations`, {
      method: 'POST',
      headers: { ...owner.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Busy room' }),
    });
    const { station } = (await created.json()) as { station: { id: string } };
    const stationId = station.id;

    // A quiet listener on each node.
    const seen = new Map<string, ChatMessage[]>();
    for (const node of [a, b]) {
      const s = await connectSocket(node.url, sockets);
      const got: ChatMessage[] = [];
      s.on('chat:message', (m: ChatMessage) => got.push(m));
      expect(await emitAck<Ack>(s, 'station:join', { stationId })).toMatchObject({ ok: true });
      seen.set(node.url, got);
    }

    // Guests on both nodes, named and in the room.
    const guests: { node: NodeProcess; socket: Socket }[] = [];
    for (const node of [a, b])
      for (let i = 0; i < GUESTS_PER_NODE; i++) {
        const socket = await connectSocket(node.url, sockets);
        expect(await emitAck<Ack>(socket, 'station:join', { stationId })).toMatchObject({
          ok: true,
        });
        const name = `Flood ${node === a ? 'a' : 'b'}${i}`;
        expect(await emitAck<Ack>(socket, 'chat:hello', { stationId, name })).toMatchObject({
          ok: true,
        });
        guests.push({ node, socket });
      }

    // Every guest sends its messages one after another, all guests at once: the pressure
    // lasts the whole window on both nodes.
    const started = Date.now();
    const acks = await Promise.all(
      guests.map(async ({ node, socket }, g) => {
        const mine: { node: NodeProcess; ack: Ack }[] = [];
        for (let i = 0; i < SENDS_EACH; i++) {
          const ack = await emitAck<Ack>(socket, 'chat:send', { stationId, text: `g${g} m${i}` });
          mine.push({ node, ack });
        }
        return mine;
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    const all = acks.flat();
    const accepted = all.filter((x) => x.ack.ok);
    const refused = all.filter((x) => !x.ack.ok);

    // One bucket for the room: its burst plus what it refilled while the flood lasted.
    expect(accepted.length).toBeGreaterThanOrEqual(BURST);
    expect(accepted.length).toBeLessThanOrEqual(Math.floor(BURST + PER_SECOND * seconds));
    // Both nodes refused with the room's message (each alone would have let its own burst through).
    for (const node of [a, b])
      expect(refused.filter((x) => x.node === node).map((x) => x.ack)).toContainEqual({
        ok: false,
        error: ErrorTag.RateLimited,
        message: 'The chat is very busy: try again in a moment.',
        retryAfterSeconds: 1,
      });

    // Listeners on both nodes get what got through, once each; nothing refused is stored.
    const texts = accepted.map((x) => (x.ack.message as ChatMessage).text).sort();
    await waitUntil(
      () => [...seen.values()].every((got) => got.length >= accepted.length),
      10_000,
      'accepted messages on both listeners',
    );
    for (const got of seen.values()) expect(got.map((m) => m.text).sort()).toEqual(texts);
    const history = (await (
      await fetch(`${b.url}/api/stations/${stationId}/chat?limit=100`)
    ).json()) as ChatHistoryResponse;
    expect(history.messages.map((m) => m.text).sort()).toEqual(texts);

    // The room refills: once the bucket has a token again a message gets through.
    const last = guests[0]!.socket;
    let after: Ack = { ok: false };
    await waitUntil(
      async () => {
        after = await emitAck<Ack>(last, 'chat:send', { stationId, text: 'after the flood' });
        return after.ok;
      },
      15_000,
      'a message through after the flood',
      1100,
    );
    expect(after).toMatchObject({ ok: true });
  }, 120_000);
});
