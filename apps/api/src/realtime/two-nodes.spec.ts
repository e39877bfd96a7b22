import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { StationUpdatePush } from '@radiobroadcaster/contracts';
import { io, type Socket } from 'socket.io-client';
import { createTestDatabase, signUp, apiNodes, TEST_REDIS_URL } from '../../testing/test-app.js';

describe('two API processes sharing PostgreSQL and Redis', () => {
  const api = apiNodes();
  const nodes = api.list;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let socket: Socket | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      AUTH_SECRET: randomBytes(32).toString('hex'),
      EVENT_PREFIX: `rbtest-${randomBytes(4).toString('hex')}`,
      DATA_DIR: `/tmp/rb-two-nodes-${randomBytes(4).toString('hex')}`,
    };
    // Sequentially: both run the migrations at start, the second finds them applied.
    await api.start(env);
    await api.start(env);
  }, 120_000);

  afterAll(async () => {
    socket?.disconnect();
    await api.stopAll();
    await db.drop();
  });

  it('pushes a now-playing update sent to node A to a socket.io client on node B within 1 s', async () => {
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    const owner = await signUp(a.url);
    const created = await fetch(`${a.url}/api/stations`, {
      method: 'POST',
      headers: { ...owner.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Two nodes' }),
    });
    expect(created.status).toBe(201);
    const { station } = (await created.json()) as { station: { id: string } };

    socket = io(b.url, { transports: ['websocket'], forceNew: true });
    const joined = (await socket
      .timeout(5000)
      .emitWithAck('station:join', { stationId: station.id })) as { ok: boolean };
    expect(joined.ok).toBe(true);

    const received = new Promise<{ push: StationUpdatePush; at: number }>((resolve) => {
      socket!.on('station:update', (push: StationUpdatePush) => {
        if (push.nowPlaying) resolve({ push, at: Date.now() });
      });
    });
    const sentAt = Date.now();
    const res = await fetch(`${a.url}/api/stations/now-playing`, {
      method: 'POST',
      headers: { ...owner.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        stationId: station.id,
        track: 'So What',
        artist: 'Miles Davis',
        album: 'Kind of Blue',
      }),
    });
    expect(res.status).toBe(200);
    const { push, at } = await received;
    expect(push).toMatchObject({
      id: station.id,
      status: 'offline',
      isActive: false,
      viewerCount: 0,
      nowPlaying: { track: 'So What', artist: 'Miles Davis', album: 'Kind of Blue' },
    });
    expect(at - sentAt).toBeLessThan(1000);
  });
});
