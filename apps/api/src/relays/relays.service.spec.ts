/**
 * RelaysService's rules on a repository held in memory: the per-station cap, formats and mounts per
 * server kind, passwords encrypted and never returned, pausing and resuming, relays whose address the
 * outbound policy refuses paused at start-up, and every change announced to the other nodes.
 * Milliseconds; the HTTP contract, the real queries and real pushes are relays.spec.ts's.
 */
import { describe, expect, it } from '@jest/globals';
import { RELAY_LIMITS } from '@radiobroadcaster/contracts';
import type { MediaEngine } from '@radiobroadcaster/sfu';
import { AppError, statusOf } from '../common/app-error.js';
import { OutboundPolicy } from '../common/outbound/outbound-policy.js';
import type { AppConfig } from '../config/config.js';
import type { EventBus } from '../events/event-bus.js';
import type { StationEntity } from '../stations/station.entity.js';
import type { StationsService } from '../stations/stations.service.js';
import type { StationRelayEntity } from './relay.entity.js';
import type { RelaysRepository } from './relays.repository.js';
import { RelaysService } from './relays.service.js';

const OWNER = 'owner-1';
const STATION = '11111111-1111-4111-8111-111111111111';

/** The repository's contract over an array. */
function memoryRepository(rows: StationRelayEntity[]) {
  let clock = Date.parse('2026-11-27T12:00:00Z');
  const byId = (id: string) => rows.find((r) => r.id === id) ?? null;
  const repo: Pick<RelaysRepository, keyof RelaysRepository> = {
    findById: async (id) => byId(id),
    listOf: async (stationId) =>
      rows
        .filter((r) => r.stationId === stationId)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()),
    enabledOf: async (stationId) => rows.filter((r) => r.stationId === stationId && r.enabled),
    countOf: async (stationId) => rows.filter((r) => r.stationId === stationId).length,
    enabledAddresses: async () => rows.filter((r) => r.enabled).map(({ id, url }) => ({ id, url })),
    insert: async (relay) => {
      const at = new Date((clock += 1000));
      const row = { pausedReason: null, createdAt: at, updatedAt: at, ...relay };
      rows.push(row);
      return { ...row };
    },
    update: async (id, changes) => {
      const row = byId(id)!;
      Object.assign(row, changes, { updatedAt: new Date((clock += 1000)) });
      return { ...row };
    },
    pause: async (id, reason) => {
      Object.assign(byId(id)!, { enabled: false, pausedReason: reason });
    },
    delete: async (id) => {
      const i = rows.findIndex((r) => r.id === id);
      if (i >= 0) rows.splice(i, 1);
    },
  };
  return repo as RelaysRepository;
}

/** The stations the service checks ownership against: one station of OWNER. */
const stations = {
  async entity(id: string) {
    if (id !== STATION) throw AppError.stationNotFound();
    return { id, broadcasterId: OWNER, name: 'Night', slug: 'night' } as StationEntity;
  },
  async owned(id: string, userId: string) {
    const station = await this.entity(id);
    if (station.broadcasterId !== userId) throw AppError.forbidden('You do not own this station');
    return station;
  },
  async ownedItem<T extends { stationId: string }>(item: T | null, what: string, userId: string) {
    if (!item) throw AppError.notFound(`${what} not found`);
    await this.owned(item.stationId, userId);
    return item;
  },
};

function setup(rows: StationRelayEntity[] = []) {
  const published: { name: string; payload: unknown }[] = [];
  const bus = {
    publish: async (name: string, payload: unknown) => void published.push({ name, payload }),
    subscribe: () => () => undefined,
  };
  const service = new RelaysService(
    memoryRepository(rows),
    stations as unknown as StationsService,
    {} as MediaEngine,
    bus as unknown as EventBus,
    { authSecret: 'a'.repeat(32), publicUrl: 'https://radio.example' } as AppConfig,
    {},
    new OutboundPolicy({ allowPrivateNetworks: false }),
  );
  return { service, rows, published };
}

async function statusOfRejection(p: Promise<unknown>): Promise<number> {
  const err = await p.then(
    () => null,
    (e: unknown) => e as AppError,
  );
  if (!err) throw new Error('expected a rejection');
  return statusOf(err.tag);
}

const icecast = {
  stationId: STATION,
  kind: 'icecast' as const,
  url: 'http://icecast.example.com:8000',
  mount: 'live.ogg',
  password: 'hackme',
};

describe('RelaysService', () => {
  it('adds a relay with its defaults, keeps the password encrypted and never returns it', async () => {
    const { service, rows, published } = setup();
    const relay = await service.create(OWNER, icecast);
    expect(relay).toMatchObject({
      stationId: STATION,
      kind: 'icecast',
      mount: '/live.ogg',
      username: 'source',
      format: 'ogg',
      enabled: true,
      pausedReason: null,
      hasPassword: true,
      status: { state: 'idle', bytesSent: 0 },
    });
    expect(JSON.stringify(relay)).not.toContain('hackme');
    expect(rows[0]!.passwordEncrypted).not.toContain('hackme');
    expect(published).toEqual([
      { name: 'relay.changed', payload: { stationId: STATION, relayId: relay.id } },
    ]);
    expect(await service.list(OWNER, STATION)).toEqual([relay]);
  });

  it('sends Shoutcast MP3 to stream /1 by default and refuses Ogg for it', async () => {
    const { service } = setup();
    const relay = await service.create(OWNER, {
      ...icecast,
      kind: 'shoutcast',
      mount: '',
    });
    expect(relay).toMatchObject({ format: 'mp3', mount: '/1' });
    await expect(
      service.create(OWNER, { ...icecast, kind: 'shoutcast', mount: '', format: 'ogg' }),
    ).rejects.toThrow('Shoutcast servers take MP3 only');
    await expect(service.create(OWNER, { ...icecast, mount: '/' })).rejects.toThrow(
      'Enter the mount, such as /live.ogg',
    );
  });

  it('refuses a private address, a sixth relay and someone else’s station', async () => {
    const { service } = setup();
    expect(
      await statusOfRejection(service.create(OWNER, { ...icecast, url: 'http://127.0.0.1:8000' })),
    ).toBe(400);
    for (let i = 0; i < RELAY_LIMITS.perStation; i++) await service.create(OWNER, icecast);
    await expect(service.create(OWNER, icecast)).rejects.toThrow(
      `A station can have at most ${RELAY_LIMITS.perStation} relays`,
    );
    expect(await statusOfRejection(service.create(OWNER, icecast))).toBe(409);
    expect(await statusOfRejection(service.create('someone-else', icecast))).toBe(403);
    expect(await statusOfRejection(service.list(OWNER, crypto.randomUUID()))).toBe(404);
  });

  it('pauses refused addresses at start-up, and a new address lifts the pause', async () => {
    // Saved before the operator turned private networks off.
    const stored = {
      id: '22222222-2222-4222-8222-222222222222',
      stationId: STATION,
      kind: 'icecast',
      url: 'http://10.0.0.5:8000',
      mount: '/live.ogg',
      username: 'source',
      passwordEncrypted: 'x',
      format: 'ogg',
      enabled: true,
      pausedReason: null,
      createdAt: new Date(),
      updatedAt: new Date(),
    } as StationRelayEntity;
    const { service, published } = setup([stored]);
    await service.onModuleInit();
    service.onModuleDestroy();
    expect(stored.enabled).toBe(false);
    expect(stored.pausedReason).toMatch(/^Paused: 10\.0\.0\.5 is a private or reserved address/);
    const moved = await service.update(OWNER, {
      relayId: stored.id,
      url: 'http://icecast.example.com:8000',
    });
    expect(moved).toMatchObject({ enabled: true, pausedReason: null });
    expect(published.map((e) => e.name)).toEqual(['relay.changed']);
  });

  it('updates and removes only the owner’s relays, announcing each change', async () => {
    const { service, rows, published } = setup();
    const relay = await service.create(OWNER, icecast);
    expect(
      await statusOfRejection(
        service.update('someone-else', { relayId: relay.id, enabled: false }),
      ),
    ).toBe(403);
    const paused = await service.update(OWNER, { relayId: relay.id, enabled: false, username: '' });
    expect(paused).toMatchObject({
      enabled: false,
      username: 'source',
      status: { state: 'disabled' },
    });
    await service.remove(OWNER, relay.id);
    expect(rows).toEqual([]);
    expect(await statusOfRejection(service.remove(OWNER, relay.id))).toBe(404);
    expect(published.map((e) => e.name)).toEqual([
      'relay.changed',
      'relay.changed',
      'relay.changed',
    ]);
  });
});
