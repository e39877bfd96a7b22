/**
 * StatsRepository's queries on PostgreSQL (a migrated database of this file's own, no app): the
 * QueryBuilder ones (node heartbeats, the open broadcast, ending sessions and broadcasts, summaries,
 * rollup replacement, peaks, histograms, pruning) read and write what the SQL ones expect.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { createTestDatabase } from '../../testing/test-app.js';
import { StatsRepository } from './stats.repository.js';

describe('StatsRepository on PostgreSQL', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let repo: StatsRepository;
  const stationId = randomUUID();

  beforeAll(async () => {
    db = await createTestDatabase();
    ds = new DataSource({ type: 'postgres', url: db.url });
    await ds.initialize();
    repo = new StatsRepository(ds);
    const userId = randomUUID();
    await ds.query(
      `INSERT INTO users (id, email, username, name, password_hash, email_verified)
       VALUES ($1, 'stats@example.com', 'statsowner', 'Stats', '!', true)`,
      [userId],
    );
    await ds.query(
      `INSERT INTO stations (id, broadcaster_id, name, slug, description) VALUES ($1, $2, 'S', 's', '')`,
      [stationId, userId],
    );
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('records a node’s beats and forgets it', async () => {
    await repo.heartbeat('node-a');
    await repo.heartbeat('node-a');
    const [beat] = (await ds.query(`SELECT node_id, seen_at FROM stats_nodes`)) as {
      node_id: string;
      seen_at: Date;
    }[];
    expect(beat!.node_id).toBe('node-a');
    await repo.forgetNode('node-a');
    expect(await ds.query(`SELECT * FROM stats_nodes`)).toEqual([]);
  });

  it('opens one broadcast, records sessions on it, and ends both', async () => {
    expect(await repo.currentBroadcastId(stationId)).toBeNull();
    const id = await repo.openBroadcast(stationId);
    expect(await repo.openBroadcast(stationId)).toBe(id);
    expect(await repo.currentBroadcastId(stationId)).toBe(id);
    const session = randomUUID();
    const base = { stationId, transport: 'webrtc', source: 'direct', domain: null } as const;
    await repo.startSession({ id: session, ...base, client: 'desktop', nodeId: 'node-a' });
    const open = await repo.sessionsOverlapping(ds, new Date(0), new Date(Date.now() + 60_000));
    expect(open).toEqual([
      expect.objectContaining({ stationId, broadcastId: id, end: null, transport: 'webrtc' }),
    ]);
    await repo.endSession(session);
    const [ended] = await repo.sessionsOverlapping(ds, new Date(0), new Date(Date.now() + 60_000));
    expect(typeof ended!.end).toBe('number');

    expect(await repo.closeBroadcast(stationId)).toBe(id);
    expect(await repo.closeBroadcast(stationId)).toBeNull();
    await repo.saveBroadcastSummary(ds, id, {
      peakListeners: 3,
      listenerSeconds: 12.5,
      sessions: 4,
      medianSessionSeconds: 2,
    });
    const found = await repo.findBroadcast(id);
    expect(found).toMatchObject({
      id,
      stationId,
      peakListeners: 3,
      listenerSeconds: 12.5,
      sessions: 4,
      medianSessionSeconds: 2,
    });
    expect(found!.endedAt).toBeInstanceOf(Date);
    const hour = 3_600_000;
    const between = await repo.broadcastsBetween(
      stationId,
      new Date(Date.now() - hour),
      new Date(Date.now() + hour),
    );
    expect(between.map((b) => b.id)).toEqual([id]);
    expect((await repo.recentBroadcasts(ds)).map((b) => b.id)).toEqual([id]);
    expect(
      await repo.broadcastsOverlapping(
        ds,
        new Date(Date.now() + hour),
        new Date(Date.now() + 2 * hour),
      ),
    ).toEqual([]);
  });

  it('replaces rollups in a range and reads peaks and histograms back', async () => {
    const t0 = new Date('2026-11-27T10:00:00Z');
    const minute = (i: number) => new Date(t0.getTime() + i * 60_000);
    const rows = [1, 5, 2].map((peak, i) => ({
      stationId,
      t: minute(i),
      peak,
      listenerSeconds: 60,
      sessions: 1,
    }));
    await repo.replaceMinutes(ds, minute(0), minute(3), rows);
    await repo.replaceMinutes(ds, minute(0), minute(3), rows);
    expect(await repo.maxMinutePeak(ds, stationId, minute(0), minute(3))).toBe(5);
    expect(await repo.maxMinutePeak(ds, stationId, minute(2), minute(3))).toBe(2);
    expect(await repo.maxMinutePeak(ds, stationId, minute(10), minute(11))).toBe(0);

    const histogram = { '10': 1, '60': 2 };
    await repo.replaceHours(
      ds,
      t0,
      new Date(t0.getTime() + 3_600_000),
      [{ ...rows[0]!, histogram }],
      [],
    );
    expect(await repo.hourHistograms(stationId, t0, new Date(t0.getTime() + 3_600_000))).toEqual([
      histogram,
    ]);

    // Everything above is older than a retention of 0 days.
    await repo.prune(ds, 0);
    expect(await repo.maxMinutePeak(ds, stationId, minute(0), minute(3))).toBe(0);
    expect(await ds.query(`SELECT id FROM listening_sessions`)).toEqual([]);
  });
});
