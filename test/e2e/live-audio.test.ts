import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it as itRun } from '@jest/globals';
import type { CreateStationResponse, Station } from '@radiobroadcaster/contracts';
import type { LoadSummary } from '../../apps/cli/src/cli.js';
import {
  createTestDatabase,
  signUp,
  spawnApiProcess,
  type TestUser,
} from '../../apps/api/testing/test-app.js';
import {
  lastJsonLine,
  runCliProcess,
  waitUntil,
  type RunningProcess,
} from '../support/processes.js';
import { E2E_ENGINES } from '../support/engines.js';

/**
 * The whole live path in separate processes: the CLI publishes a 440 Hz tone over WHIP to the API's
 * SFU; 20 listeners in another CLI process receive it over WHEP. On both SFU engines (mediasoup where
 * its worker is built: test/support/engines.ts).
 */
describe.each(E2E_ENGINES)(
  'live audio end to end (CLI → SFU → 20 listeners), %s engine',
  (engine, skip) => {
    const it = skip ? itRun.skip : itRun;
    let api: Awaited<ReturnType<typeof spawnApiProcess>>;
    let db: Awaited<ReturnType<typeof createTestDatabase>>;
    let owner: TestUser;
    let station: Station;
    let streamToken: string;
    let broadcaster: RunningProcess | undefined;

    beforeAll(async () => {
      if (skip) return;
      db = await createTestDatabase();
      api = await spawnApiProcess({
        MEDIA_ENGINE: engine,
        LOG_LEVEL: 'info',
        DATABASE_URL: db.url,
        REDIS_URL: '',
        DATA_DIR: mkdtempSync(join(tmpdir(), 'rb-e2e-')),
        AUTH_SECRET: randomBytes(32).toString('hex'),
        SFU_SHARDS: '2',
        PUBLISHER_GRACE_MS: '2000',
        RATE_LIMIT_JOIN_PER_MINUTE: '1000',
        // every CLI listener comes from 127.0.0.1
        MAX_LISTENERS_PER_IP: '0',
        VIEWER_COUNT_PER_ADDRESS: '0',
      });
      owner = await signUp(api.url);
      const res = await fetch(`${api.url}/api/stations`, {
        method: 'POST',
        headers: { ...owner.auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Tone FM' }),
      });
      const created = (await res.json()) as CreateStationResponse;
      station = created.station;
      streamToken = created.streamToken.token;
    }, 60_000);

    afterAll(async () => {
      await broadcaster?.stop('SIGKILL');
      await api?.stop();
      await db?.drop();
    });

    const current = async (): Promise<Station> =>
      (await (await fetch(`${api.url}/api/stations/${station.id}`)).json()) as Station;

    it('delivers every packet byte for byte, counts listeners, and takes the station live then offline', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'rb-e2e-run-'));
      const sent = join(dir, 'sent.ndjson');
      const address = `${owner.username}/${station.slug}`;
      expect(api.output()).toContain(`SFU engine: ${engine} (MEDIA_ENGINE=${engine}`);
      expect((await current()).status).toBe('offline');

      broadcaster = runCliProcess([
        'broadcast',
        '--station',
        address,
        '--server',
        api.url,
        '--token',
        streamToken,
        '--tone',
        '440',
        '--duration',
        '60',
        '--record',
        sent,
        '--json',
      ]);
      await waitUntil(
        async () => (await current()).status === 'live',
        15_000,
        'the station to go live',
      );
      const live = await current();
      expect(live).toMatchObject({ status: 'live', isActive: true });
      expect(live.lastActiveAt).not.toBeNull();

      const load = runCliProcess([
        'load',
        '--station',
        address,
        '--server',
        api.url,
        '--listeners',
        '20',
        '--ramp',
        '10',
        '--concurrency',
        '4',
        '--duration',
        '6',
        '--json',
        '--publisher-log',
        sent,
      ]);
      let peak = 0;
      const watching = (async () => {
        while (load.child.exitCode === null) {
          peak = Math.max(peak, (await current()).viewerCount);
          await new Promise((r) => setTimeout(r, 200));
        }
      })();
      const code = await load.exited;
      await watching;
      const summary = lastJsonLine<LoadSummary>(load.output());
      if (code !== 0 || summary.failed > 0) console.log(load.output());

      expect(summary.connected).toBe(20);
      expect(summary.failed).toBe(0);
      expect(summary.silent).toBe(0);
      // Every listener got ≥ 99 % of the packets...
      expect(summary.lossPercent.max).toBeLessThan(1);
      expect(summary.packetsPerListener.min).toBeGreaterThan(200);
      // ...and what it got is byte-identical to what the broadcaster sent.
      expect(summary.latency?.payloadsMismatched).toBe(0);
      expect(summary.latency?.payloadsMatched).toBeGreaterThan(20 * 200);
      expect(peak).toBe(20);

      await waitUntil(
        async () => (await current()).viewerCount === 0,
        5_000,
        'viewerCount back to 0',
      );

      expect(await broadcaster.stop('SIGTERM')).toBe(0);
      await waitUntil(
        async () => (await current()).status === 'offline',
        10_000,
        'the station to go offline',
      );
      expect(await current()).toMatchObject({ status: 'offline', isActive: false, viewerCount: 0 });
    }, 120_000);
  },
);
