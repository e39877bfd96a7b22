/**
 * DemoStationService on a repository and a broadcast held in memory: off when DEMO_STATION=false; else,
 * after start-up, the demo broadcaster and station are ensured, the reads are told it exists, and the
 * encoded loop goes on the air; a shutdown before it starts keeps it off the air. Milliseconds (plus the
 * loop's encoding); the station playing for real is test/browser/demo-station.test.ts's.
 */
import { describe, expect, it } from '@jest/globals';
import { DEMO_STATION_ID, DEMO_USER_ID } from '@radiobroadcaster/contracts';
import type { AppConfig } from '../config/config.js';
import type { EventBus } from '../events/event-bus.js';
import { waitUntil } from '../../../../test/support/wait.js';
import type { DemoBroadcast } from './demo-broadcast.js';
import { DEMO_LOOP_SECONDS } from './demo-loop.js';
import type { DemoRepository } from './demo.repository.js';
import { DemoStationService } from './demo-station.service.js';

function setup(demoStation: boolean, opts: { ensureFails?: boolean } = {}) {
  const calls: string[] = [];
  const started: Buffer[][] = [];
  const repo = {
    async ensureDemoStation() {
      calls.push('ensure');
      if (opts.ensureFails) throw new Error('database down');
    },
  };
  const bus = {
    async publish(name: string, payload: unknown) {
      calls.push(`${name} ${JSON.stringify(payload)}`);
    },
  };
  const broadcast = {
    async start(packets: Buffer[]) {
      calls.push('start');
      started.push(packets);
    },
    async stop() {
      calls.push('stop');
    },
  };
  const service = new DemoStationService(
    { demoStation } as AppConfig,
    repo as DemoRepository,
    bus as unknown as EventBus,
    broadcast as unknown as DemoBroadcast,
  );
  return { service, calls, started };
}

describe('DemoStationService', () => {
  it('does nothing when the demo station is off', async () => {
    const { service, calls } = setup(false);
    service.onApplicationBootstrap();
    await service.beforeApplicationShutdown();
    expect(calls).toEqual(['stop']);
  });

  it('ensures the station, tells the reads, and puts the encoded loop on the air', async () => {
    const { service, calls, started } = setup(true);
    service.onApplicationBootstrap();
    await waitUntil(() => started.length === 1, 60_000, 'the loop on the air');
    expect(calls).toEqual([
      'ensure',
      `station.created ${JSON.stringify({ stationId: DEMO_STATION_ID, broadcasterId: DEMO_USER_ID })}`,
      'start',
    ]);
    // Opus packets of 20 ms for the whole loop.
    expect(started[0]).toHaveLength((DEMO_LOOP_SECONDS * 1000) / 20);
    await service.beforeApplicationShutdown();
    expect(calls.at(-1)).toBe('stop');
  }, 90_000);

  it('stays off the air when the station cannot be ensured, or the server stops first', async () => {
    const failing = setup(true, { ensureFails: true });
    failing.service.onApplicationBootstrap();
    await waitUntil(() => failing.calls.length === 1, 10_000, 'the failed ensure');
    await failing.service.beforeApplicationShutdown();
    expect(failing.calls).toEqual(['ensure', 'stop']);

    const early = setup(true);
    early.service.onApplicationBootstrap();
    await early.service.beforeApplicationShutdown();
    expect(early.calls).toEqual(['stop']);
  });
});
