import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { CreateStationResponse, Station } from '@radiobroadcaster/contracts';
import { io, type Socket } from 'socket.io-client';
import { StationsRepository } from '../stations/stations.repository.js';
import { signUp, startTestApp, type TestApp } from '../../testing/test-app.js';
import { StationGateway } from './station.gateway.js';

type Ack = { ok: boolean; error?: string; station?: { id: string; status: string } };

async function connect(url: string): Promise<Socket> {
  const s = io(url, { transports: ['websocket'], forceNew: true, reconnection: false });
  await new Promise<void>((resolve, reject) => {
    s.once('connect', () => resolve());
    s.once('connect_error', reject);
  });
  return s;
}

function join(s: Socket, body: unknown): Promise<Ack> {
  return s.timeout(10_000).emitWithAck('station:join', body) as Promise<Ack>;
}

describe('station:join on the embedded database', () => {
  let t: TestApp;
  let station: Station;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    t = await startTestApp({ embedded: true, env: { RATE_LIMIT_SOCKET_EVENTS_PER_SECOND: '5' } });
    const owner = await signUp(t.url);
    const res = await fetch(`${t.url}/api/stations`, {
      method: 'POST',
      headers: { ...owner.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Flooded' }),
    });
    station = ((await res.json()) as CreateStationResponse).station;
  }, 60_000);

  afterAll(async () => {
    for (const s of sockets) s.disconnect();
    await t.close();
  });

  const rooms = () => t.app.get(StationGateway).server.of('/').adapter.rooms;

  it('answers joins from memory and never puts a socket in the room of a station that does not exist', async () => {
    const findById = jest.spyOn(t.app.get(StationsRepository), 'findById');
    const unknown = randomUUID();
    for (let i = 0; i < 3; i++) sockets.push(await connect(t.url));
    for (const s of sockets) {
      for (let i = 0; i < 3; i++) {
        // The web app sends the id itself, other clients `{ stationId }`.
        expect(await join(s, i % 2 ? station.id : { stationId: station.id })).toMatchObject({
          ok: true,
          station: { id: station.id, status: 'offline' },
        });
        expect(await join(s, unknown)).toEqual({
          ok: false,
          error: 'StationNotFoundError',
          message: 'Station not found',
        });
      }
    }
    expect(await join(sockets[0]!, 'not-a-uuid')).toMatchObject({
      ok: false,
      error: 'ValidationError',
    });
    // 18 joins, 2 stations: one database read each at most.
    expect(findById.mock.calls.length).toBeLessThanOrEqual(2);
    findById.mockRestore();
    expect(rooms().get(`station:${station.id}`)?.size).toBe(3);
    expect(rooms().has(`station:${unknown}`)).toBe(false);
  });

  it('limits each connection, closes one that keeps flooding, and others carry on', async () => {
    const flooder = await connect(t.url);
    sockets.push(flooder);
    const closed = new Promise<string>((resolve) => flooder.once('disconnect', resolve));
    const acks: Promise<Ack | 'closed'>[] = [];
    for (let i = 0; i < 300; i++) {
      acks.push(join(flooder, i % 2 ? station.id : randomUUID()).catch(() => 'closed' as const));
    }
    expect(await closed).toBe('io server disconnect');
    const answered = (await Promise.all(acks)).filter((a): a is Ack => a !== 'closed');
    const refused = answered.filter((a) => a.error === 'TooManyRequests');
    // A burst of 10 (twice the rate of 5 a second) passes; the rest is refused or cut off.
    expect(answered.length - refused.length).toBeLessThanOrEqual(20);
    expect(refused.length).toBeGreaterThan(0);

    const res = await fetch(`${t.url}/api/stations/${station.id}`);
    expect(res.status).toBe(200);
    expect((await fetch(`${t.url}/health`)).status).toBe(200);
    expect(await join(sockets[0]!, station.id)).toMatchObject({ ok: true });
  });
});
