/**
 * StreamKeysService's rules on settings held in memory: a first key made once, revealed again from the
 * server secret, rotated (old key refused, sources told), and the public-stream default following the
 * owner's domain list. Milliseconds; the HTTP contract and the real queries are stream-keys.spec.ts's.
 */
import { describe, expect, it } from '@jest/globals';
import type { AppConfig } from '../config/config.js';
import type { DomainsService } from '../domains/domains.service.js';
import type { EventBus } from '../events/event-bus.js';
import type { RadioSettingsEntity } from './radio-settings.entity.js';
import type { RadioSettingsRepository } from './radio-settings.repository.js';
import { STREAM_KEY_PREFIX, StreamKeysService } from './stream-keys.service.js';

function setup(opts: { domainsListed?: boolean } = {}) {
  const rows = new Map<string, RadioSettingsEntity>();
  const repo: Pick<RadioSettingsRepository, keyof RadioSettingsRepository> = {
    find: async (stationId) => rows.get(stationId) ?? null,
    get: async (stationId) => {
      const row = rows.get(stationId);
      if (!row) throw new Error('no settings');
      return row;
    },
    insertIfAbsent: async (row) => {
      if (!rows.has(row.stationId))
        rows.set(row.stationId, { ...row, publicStreamUrl: null } as RadioSettingsEntity);
    },
    update: async (stationId, patch) => {
      const row = rows.get(stationId);
      if (row) Object.assign(row, patch);
    },
    keyHash: async (stationId) => rows.get(stationId)?.streamKeyHash ?? null,
    publicStreamUrl: async (stationId) => rows.get(stationId)?.publicStreamUrl,
  };
  const published: { name: string; payload: unknown }[] = [];
  const bus = {
    publish: async (name: string, payload: unknown) => void published.push({ name, payload }),
  };
  const domains = { hasAny: async () => opts.domainsListed ?? false };
  const config = { authSecret: 'a'.repeat(64) } as AppConfig;
  const make = (secret = config.authSecret) =>
    new StreamKeysService(
      repo as RadioSettingsRepository,
      { ...config, authSecret: secret },
      bus as unknown as EventBus,
      domains as unknown as DomainsService,
    );
  return { rows, published, service: make(), make };
}

describe('StreamKeysService', () => {
  it('makes a first key once and reveals the same key again', async () => {
    const { service, rows } = setup();
    const settings = await service.settings('st1');
    expect(await service.settings('st1')).toBe(settings);
    expect(rows.size).toBe(1);
    const key = service.reveal(settings)!;
    expect(key.startsWith(STREAM_KEY_PREFIX)).toBe(true);
    expect(service.reveal(await service.settings('st1'))).toBe(key);
    expect(await service.verify('st1', key)).toBe(settings.streamKeyHash);
  });

  it('cannot reveal a key once the server secret changed', async () => {
    const { service, make } = setup();
    const settings = await service.settings('st1');
    expect(make('b'.repeat(64)).reveal(settings)).toBeNull();
  });

  it('rotates: the old key is refused, the new one accepted, and sources are told', async () => {
    const { service, published } = setup();
    const old = service.reveal(await service.settings('st1'))!;
    const oldHash = (await service.verify('st1', old))!;
    const fresh = await service.rotate('st1');
    expect(fresh).not.toBe(old);
    expect(await service.verify('st1', old)).toBeNull();
    expect(await service.isCurrent('st1', oldHash)).toBe(false);
    expect(await service.verify('st1', fresh)).not.toBeNull();
    expect(published).toEqual([
      { name: 'station.streamKeyRotated', payload: { stationId: 'st1' } },
    ]);
    expect(await service.verify('st1', 'not-a-key')).toBeNull();
    expect(await service.verify('unknown', fresh)).toBeNull();
  });

  it('plays the plain stream URL by default only while the owner lists no domains', async () => {
    expect(await setup().service.publicStreamUrl('st1', 'u1')).toBe(true);
    const listed = setup({ domainsListed: true });
    expect(await listed.service.publicStreamUrl('st1', 'u1')).toBe(false);
    await listed.service.setPublicStreamUrl('st1', 'u1', true);
    expect(await listed.service.publicStreamUrl('st1', 'u1')).toBe(true);
    // on while no domains are listed is the default, kept as null
    const open = setup();
    expect((await open.service.setPublicStreamUrl('st1', 'u1', true)).publicStreamUrl).toBeNull();
  });
});
