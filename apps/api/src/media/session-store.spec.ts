/** One contract, both stores: in memory, and in the real Redis (cluster mode). */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { TEST_REDIS_URL } from '../../testing/test-app.js';
import { RedisSessionStore } from './redis-session-store.js';
import { InMemorySessionStore, type SessionStore } from './session-store.js';
import { countedViewers, listenerSlotId } from './viewer-count.js';

const redis = new Redis(TEST_REDIS_URL);
afterAll(() => redis.disconnect());

describe.each([
  ['in memory', () => new InMemorySessionStore()],
  ['in Redis', () => new RedisSessionStore(redis, `rbtest-${randomBytes(4).toString('hex')}`)],
])('session store %s', (_name, make: () => SessionStore) => {
  it('keeps the station publisher and the sessions; a session is taken once', async () => {
    const s = make();
    expect(await s.publisher('st')).toBeNull();
    await s.setPublisher('st', { sessionId: 'p1', tokenId: 't1', userId: 'u1' });
    expect(await s.publisher('st')).toEqual({ sessionId: 'p1', tokenId: 't1', userId: 'u1' });
    const rec = { stationId: 'st', kind: 'listener' as const, tokenHash: 'h', slot: null };
    await s.putSession('l1', rec);
    expect(await s.session('l1')).toEqual(rec);
    const [a, b] = await Promise.all([s.takeSession('l1'), s.takeSession('l1')]);
    expect([a, b].filter(Boolean)).toEqual([rec]);
    expect(await s.session('l1')).toBeNull();
    await s.clearPublisher('st');
    expect(await s.publisher('st')).toBeNull();
  });

  it('lets a listener token open one session, again after a release', async () => {
    const s = make();
    const claims = await Promise.all([1, 2, 3].map(() => s.claimToken('tok', 60_000)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    await s.releaseToken('tok');
    expect(await s.claimToken('tok', 60_000)).toBe(true);
  });

  it("tells a station's listener slots by address (IPv6 by /64), as viewerCount counts them", async () => {
    const s = make();
    const caps = { perIp: 0, perStation: 0 };
    const admit = (ip: string, stationId = 'counted') =>
      s.admitListener(
        { id: listenerSlotId(ip, randomBytes(6).toString('hex')), ip, stationId },
        caps,
      );
    // one client opening 40 streams, two other listeners, one on another station
    for (let i = 0; i < 40; i++) expect(await admit('203.0.113.9')).toBe('ok');
    await admit('2001:db8:1:2::10');
    await admit('2001:db8:1:2:aaaa::20');
    await admit('198.51.100.1', 'other');
    const byAddress = await s.listenersByAddress('counted');
    expect(Object.fromEntries(byAddress)).toEqual({
      '203.0.113.9': 40,
      '2001:db8:1:2::/64': 2,
    });
    expect(countedViewers(42, byAddress, 10)).toEqual({
      viewerCount: 12,
      connections: 42,
      addresses: 2,
    });
  });

  it('caps listener slots per IP and per station, and frees them with their session', async () => {
    const s = make();
    const caps = { perIp: 2, perStation: 3 };
    const slot = (id: string, ip: string) => ({ id, ip, stationId: 'st' });
    const results = await Promise.all(
      ['a', 'b', 'c'].map((id) => s.admitListener(slot(id, '192.0.2.1'), caps)),
    );
    expect(results.sort()).toEqual(['ip-full', 'ok', 'ok']);
    expect(await s.admitListener(slot('d', '192.0.2.2'), caps)).toBe('ok');
    expect(await s.admitListener(slot('e', '192.0.2.3'), caps)).toBe('station-full');
    expect(await s.admitListener(slot('e', '192.0.2.3'), { perIp: 0, perStation: 0 })).toBe('ok');
    await s.putSession('sess-d', {
      stationId: 'st',
      kind: 'listener',
      tokenHash: null,
      slot: slot('d', '192.0.2.2'),
    });
    await s.releaseListener(slot('e', '192.0.2.3'));
    await s.takeSession('sess-d');
    expect(await s.admitListener(slot('f', '192.0.2.4'), caps)).toBe('ok');
  });

  it('lets one caller take a lifecycle step', async () => {
    const s = make();
    const got = await Promise.all([1, 2, 3].map(() => s.once('offline:st:p1', 60_000)));
    expect(got.filter(Boolean)).toHaveLength(1);
    expect(await s.once('offline:st:p2', 60_000)).toBe(true);
  });
});
