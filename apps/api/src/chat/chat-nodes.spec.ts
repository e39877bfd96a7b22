import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChatMessage, PresenceUpdate } from '@radiobroadcaster/contracts';
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
import { ENTRY_TTL_MS, HEARTBEAT_MS } from './presence.registry.js';

type Ack = { ok: boolean; [k: string]: unknown };

describe('presence and chat across three API processes on PostgreSQL + Redis', () => {
  const api = apiNodes();
  const nodes = api.list;
  const sockets: Socket[] = [];
  let db: Awaited<ReturnType<typeof createTestDatabase>>;

  const connect = (url: string, token?: string) => connectSocket(url, sockets, token);
  const emit = (s: Socket, event: string, body: unknown) => emitAck<Ack>(s, event, body);

  beforeAll(async () => {
    db = await createTestDatabase();
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      AUTH_SECRET: randomBytes(32).toString('hex'),
      EVENT_PREFIX: `rbtest-${randomBytes(4).toString('hex')}`,
      DATA_DIR: `/tmp/rb-chat-nodes-${randomBytes(4).toString('hex')}`,
    };
    // Sequentially: the first runs the migrations.
    for (let i = 0; i < 3; i++) await api.start(env);
  }, 180_000);

  afterAll(async () => {
    for (const s of sockets) s.disconnect();
    await api.stopAll();
    await db.drop();
  }, 60_000);

  it('shows a listener on another node, delivers each message once everywhere, and drops a killed node’s listeners within the expiry', async () => {
    const [a, b, c] = nodes as [NodeProcess, NodeProcess, NodeProcess];
    const owner = await signUp(a.url);
    const alice = await signUp(b.url, `alice${randomBytes(3).toString('hex')}`);
    const created = await fetch(`${a.url}/api/stations`, {
      method: 'POST',
      headers: { ...owner.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Three nodes' }),
    });
    const { station } = (await created.json()) as { station: { id: string } };
    const stationId = station.id;
    await fetch(`${b.url}/api/account/presence`, {
      method: 'PUT',
      headers: { ...alice.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ visible: true }),
    });

    const watcher = await connect(a.url);
    const updates: PresenceUpdate[] = [];
    const messagesA: ChatMessage[] = [];
    watcher.on('presence:update', (u: PresenceUpdate) => updates.push(u));
    watcher.on('chat:message', (m: ChatMessage) => messagesA.push(m));
    expect(await emit(watcher, 'station:join', { stationId })).toMatchObject({ ok: true });

    // Alice listens through node C.
    const onC = await connect(c.url, alice.token);
    expect(await emit(onC, 'station:join', { stationId })).toMatchObject({ ok: true });
    expect(await emit(onC, 'presence:state', { stationId, playing: true })).toMatchObject({
      ok: true,
    });
    await waitUntil(
      () =>
        updates
          .at(-1)
          ?.listeners.some((l) => l.username === alice.username && l.state === 'listening') ??
        false,
      5000,
      'alice (node C) listed on node A',
    );
    const viaB = (await (
      await fetch(`${b.url}/api/stations/${stationId}/presence`)
    ).json()) as PresenceUpdate;
    expect(viaB.listeners.map((l) => l.username)).toEqual([alice.username]);

    // A guest on node B writes: A and B each get the message exactly once.
    const guest = await connect(b.url);
    const messagesB: ChatMessage[] = [];
    guest.on('chat:message', (m: ChatMessage) => messagesB.push(m));
    expect(await emit(guest, 'station:join', { stationId })).toMatchObject({ ok: true });
    expect(await emit(guest, 'chat:hello', { stationId, name: 'Roamer' })).toMatchObject({
      ok: true,
    });
    for (let i = 0; i < 5; i++)
      expect(await emit(guest, 'chat:send', { stationId, text: `across ${i}` })).toMatchObject({
        ok: true,
      });
    await waitUntil(
      () => messagesA.length >= 5 && messagesB.length >= 5,
      5000,
      'five messages on A and B',
    );
    // Anything more would have arrived by now together with a late sixth marker.
    const owner2 = await connect(a.url, owner.token);
    expect(await emit(owner2, 'station:join', { stationId })).toMatchObject({ ok: true });
    expect(await emit(owner2, 'chat:send', { stationId, text: 'marker' })).toMatchObject({
      ok: true,
    });
    await waitUntil(
      () =>
        messagesA.some((m) => m.text === 'marker') && messagesB.some((m) => m.text === 'marker'),
      5000,
      'marker on A and B',
    );
    for (const got of [messagesA, messagesB]) {
      const ids = got.map((m) => m.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(got.map((m) => m.text)).toEqual([
        'across 0',
        'across 1',
        'across 2',
        'across 3',
        'across 4',
        'marker',
      ]);
    }

    // Node C dies without a word: alice leaves the list within the expiry.
    c.kill();
    await c.exited;
    const waited = await waitUntil(
      () => !(updates.at(-1)?.listeners.some((l) => l.username === alice.username) ?? true),
      ENTRY_TTL_MS + 3 * HEARTBEAT_MS,
      'alice gone after node C was killed',
      100,
    );
    expect(waited).toBeLessThanOrEqual(30_000);
    const after = (await (
      await fetch(`${a.url}/api/stations/${stationId}/presence`)
    ).json()) as PresenceUpdate;
    expect(after.listeners.map((l) => l.username)).not.toContain(alice.username);
  }, 90_000);
});
