import { describe, expect, it } from '@jest/globals';
import type { MediaEngine } from '@radiobroadcaster/sfu';
import { waitUntil } from '../../../../test/support/wait.js';
import { loadConfig } from '../config/config.js';
import { InProcessEventBus } from '../events/event-bus.js';
import { HTTP_COUNT_TTL_MS, ListenerCounts } from './listener-counts.js';
import { InMemorySessionStore } from './session-store.js';

describe('ListenerCounts', () => {
  it('drops the HTTP listeners of a node that stopped re-sending its count (it died)', async () => {
    const bus = new InProcessEventBus();
    const counts = new ListenerCounts(
      {} as MediaEngine,
      bus,
      new InMemorySessionStore(),
      loadConfig({ NODE_ENV: 'test' }),
    );
    const seen: number[] = [];
    bus.subscribe('station.listeners', ({ viewerCount }) => seen.push(viewerCount));
    const stationId = '6ddf01d5-45b7-497b-827c-6f2f42c313ed';
    await bus.publish('station.httpListeners', { stationId, node: 'a', count: 3 });
    await bus.publish('station.httpListeners', { stationId, node: 'b', count: 2 });
    await waitUntil(() => seen.at(-1) === 5, 2000, 'both nodes counted');
    const heard = Date.now();
    // Within the expiry nothing changes (nodes re-send every 10 s)…
    counts.expire(heard + HTTP_COUNT_TTL_MS / 2);
    expect(seen.at(-1)).toBe(5);
    // …past it, the silent nodes' listeners leave the count.
    counts.expire(heard + HTTP_COUNT_TTL_MS + 1);
    await waitUntil(() => seen.at(-1) === 0, 2000, 'silent nodes dropped');
    counts.onModuleDestroy();
    await bus.close();
  });
});
