import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ClientKind, ListeningSource, ListeningTransport } from '@radiobroadcaster/contracts';
import type { DataSource, EntityManager, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import type { LengthHistogram } from './stats-math.js';

export interface SessionRow {
  stationId: string;
  broadcastId: string | null;
  start: number;
  end: number | null;
  transport: ListeningTransport;
  source: ListeningSource;
  domain: string | null;
  client: ClientKind;
}

export interface MinuteRow {
  stationId: string;
  t: Date;
  peak: number;
  listenerSeconds: number;
  sessions: number;
}

export interface HourRow extends MinuteRow {
  histogram: LengthHistogram;
}

export interface DimRow {
  stationId: string;
  t: Date;
  dimension: 'transport' | 'where' | 'client';
  value: string;
  sessions: number;
  listenerSeconds: number;
}

export interface BroadcastRow {
  id: string;
  stationId: string;
  startedAt: Date;
  endedAt: Date | null;
  peakListeners: number;
  listenerSeconds: number;
  sessions: number;
  medianSessionSeconds: number | null;
}

export interface DimTotals {
  transport: string;
  source: string;
  domain: string | null;
  client: string;
  sessions: number;
  listenerSeconds: number;
}

type Db = DataSource | EntityManager;

/**
 * Listening sessions, broadcasts and their rollups; all SQL of the stats module.
 *
 * Plain reads, updates and deletes go through TypeORM's QueryBuilder (these tables have no entities:
 * the builder works on table names and returns raw rows). SQL stays where it is the clearer tool and
 * the builder would only wrap strings: the time-bucket aggregations the charts read (`series`,
 * `rawDims`, `rawMedian`, `hourDims`: date_trunc in the station's time zone, FILTER, percentile_cont,
 * overlap arithmetic on intervals), the bulk rollup inserts (`unnest` of arrays: one statement and six
 * parameters for 500 rows), an insert whose conflict target is a partial index (`openBroadcast`), an
 * insert that reads the open broadcast in the same statement (`startSession`), UPDATE … FROM and
 * NOT EXISTS (`closeSessionsOfDeadNodes`), and the advisory lock.
 */
@Injectable()
export class StatsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** `m`: inside a transaction, its connection (a second one deadlocks a one-connection pool). */
  async now(m: Db = this.db): Promise<Date> {
    const [row] = (await m.query(`SELECT now() AS now`)) as { now: Date }[];
    return row!.now;
  }

  /** Runs `fn` in a transaction when no other node is running it (advisory lock); else skips. */
  async exclusively<T>(key: string, fn: (m: EntityManager) => Promise<T>): Promise<T | null> {
    return this.db.transaction(async (m) => {
      const [row] = (await m.query(`SELECT pg_try_advisory_xact_lock(hashtext($1)) AS ok`, [
        key,
      ])) as { ok: boolean }[];
      return row!.ok ? fn(m) : null;
    });
  }

  // ---- nodes ----

  async heartbeat(nodeId: string): Promise<void> {
    await this.db
      .createQueryBuilder()
      .insert()
      .into('stats_nodes', ['node_id', 'seen_at'])
      .values({ node_id: nodeId, seen_at: () => 'now()' })
      .orUpdate(['seen_at'], ['node_id'])
      .execute();
  }

  async forgetNode(nodeId: string): Promise<void> {
    await this.db
      .createQueryBuilder()
      .delete()
      .from('stats_nodes')
      .where('node_id = :nodeId', { nodeId })
      .execute();
  }

  /** Sessions of nodes that stopped beating end at their node's last beat. */
  async closeSessionsOfDeadNodes(m: Db, staleSeconds: number): Promise<void> {
    await m.query(
      `UPDATE listening_sessions s SET ended_at = greatest(s.started_at, n.seen_at)
       FROM stats_nodes n
       WHERE s.ended_at IS NULL AND s.node_id = n.node_id
         AND n.seen_at < now() - make_interval(secs => $1)`,
      [staleSeconds],
    );
    await m.query(
      `DELETE FROM stats_nodes n WHERE n.seen_at < now() - make_interval(secs => $1)
         AND NOT EXISTS (SELECT 1 FROM listening_sessions s WHERE s.node_id = n.node_id AND s.ended_at IS NULL)`,
      [staleSeconds],
    );
  }

  // ---- broadcasts ----

  /** The station's open broadcast, opening one if none is. */
  async openBroadcast(stationId: string): Promise<string> {
    await this.db.query(
      `INSERT INTO broadcasts (station_id) VALUES ($1)
       ON CONFLICT (station_id) WHERE ended_at IS NULL DO NOTHING`,
      [stationId],
    );
    return (await this.currentBroadcastId(stationId))!;
  }

  async currentBroadcastId(stationId: string): Promise<string | null> {
    const row = await this.db
      .createQueryBuilder()
      .select('id')
      .from('broadcasts', 'b')
      .where('station_id = :stationId AND ended_at IS NULL', { stationId })
      .getRawOne<{ id: string }>();
    return row?.id ?? null;
  }

  /** Ends the open broadcast and every session still open on it. */
  async closeBroadcast(stationId: string): Promise<string | null> {
    const ended = await this.db
      .createQueryBuilder()
      .update('broadcasts')
      .set({ ended_at: () => 'now()' })
      .where('station_id = :stationId AND ended_at IS NULL', { stationId })
      .returning('id')
      .execute();
    await this.db
      .createQueryBuilder()
      .update('listening_sessions')
      .set({ ended_at: () => 'now()' })
      .where('station_id = :stationId AND ended_at IS NULL', { stationId })
      .execute();
    return (ended.raw as { id: string }[])[0]?.id ?? null;
  }

  async findBroadcast(id: string): Promise<BroadcastRow | null> {
    const rows = await this.broadcastRows(this.db, (q) => q.where('id = :id', { id }));
    return rows[0] ?? null;
  }

  /** Broadcasts that overlap [from, to), newest first. */
  broadcastsBetween(stationId: string, from: Date, to: Date, limit = 100): Promise<BroadcastRow[]> {
    return this.broadcastRows(this.db, (q) =>
      q
        .where('station_id = :stationId', { stationId })
        .andWhere('started_at < :to AND coalesce(ended_at, now()) >= :from', { from, to })
        .orderBy('started_at', 'DESC')
        .limit(limit),
    );
  }

  /** Broadcasts whose summary may have changed (open, or ended in the last minutes). */
  recentBroadcasts(m: Db): Promise<BroadcastRow[]> {
    return this.broadcastRows(m, (q) =>
      q.where(`ended_at IS NULL OR ended_at > now() - interval '10 minutes'`),
    );
  }

  broadcastsOverlapping(m: Db, from: Date, to: Date): Promise<BroadcastRow[]> {
    return this.broadcastRows(m, (q) =>
      q.where('started_at < :to AND coalesce(ended_at, now()) >= :from', { from, to }),
    );
  }

  async saveBroadcastSummary(
    m: Db,
    id: string,
    s: Pick<
      BroadcastRow,
      'peakListeners' | 'listenerSeconds' | 'sessions' | 'medianSessionSeconds'
    >,
  ): Promise<void> {
    await m
      .createQueryBuilder()
      .update('broadcasts')
      .set({
        peak_listeners: s.peakListeners,
        listener_seconds: s.listenerSeconds,
        sessions: s.sessions,
        median_session_seconds: s.medianSessionSeconds,
      })
      .where('id = :id', { id })
      .execute();
  }

  /** Broadcast rows as `filter` narrows (and orders) them. */
  private async broadcastRows(
    m: Db,
    filter: (q: SelectQueryBuilder<ObjectLiteral>) => SelectQueryBuilder<ObjectLiteral>,
  ): Promise<BroadcastRow[]> {
    const query = m
      .createQueryBuilder()
      .select([
        'id',
        'station_id',
        'started_at',
        'ended_at',
        'peak_listeners',
        'listener_seconds',
        'sessions',
        'median_session_seconds',
      ])
      .from('broadcasts', 'b');
    const rows = (await filter(query).getRawMany()) as {
      id: string;
      station_id: string;
      started_at: Date;
      ended_at: Date | null;
      peak_listeners: number;
      listener_seconds: number;
      sessions: number;
      median_session_seconds: number | null;
    }[];
    return rows.map((r) => ({
      id: r.id,
      stationId: r.station_id,
      startedAt: r.started_at,
      endedAt: r.ended_at,
      peakListeners: r.peak_listeners,
      listenerSeconds: r.listener_seconds,
      sessions: r.sessions,
      medianSessionSeconds: r.median_session_seconds,
    }));
  }

  // ---- sessions ----

  async startSession(row: {
    id: string;
    stationId: string;
    transport: ListeningTransport;
    source: ListeningSource;
    domain: string | null;
    client: ClientKind;
    nodeId: string;
  }): Promise<void> {
    await this.db.query(
      `INSERT INTO listening_sessions (id, station_id, broadcast_id, transport, source, domain, client, node_id)
       VALUES ($1, $2, (SELECT id FROM broadcasts WHERE station_id = $2 AND ended_at IS NULL), $3, $4, $5, $6, $7)
       ON CONFLICT (id) DO NOTHING`,
      [row.id, row.stationId, row.transport, row.source, row.domain, row.client, row.nodeId],
    );
  }

  /** Idempotent: the first end wins (a DELETE and the engine's own event may both report it). */
  async endSession(id: string): Promise<void> {
    await this.db
      .createQueryBuilder()
      .update('listening_sessions')
      .set({ ended_at: () => 'now()' })
      .where('id = :id AND ended_at IS NULL', { id })
      .execute();
  }

  /** Sessions that overlap [from, to), open ones included. */
  async sessionsOverlapping(m: Db, from: Date, to: Date): Promise<SessionRow[]> {
    const rows = (await m
      .createQueryBuilder()
      .select(['station_id', 'broadcast_id', 'started_at', 'ended_at'])
      .addSelect(['transport', 'source', 'domain', 'client'])
      .from('listening_sessions', 's')
      .where('started_at < :to AND (ended_at IS NULL OR ended_at >= :from)', { from, to })
      .getRawMany()) as {
      station_id: string;
      broadcast_id: string | null;
      started_at: Date;
      ended_at: Date | null;
      transport: ListeningTransport;
      source: ListeningSource;
      domain: string | null;
      client: ClientKind;
    }[];
    return rows.map((r) => ({
      stationId: r.station_id,
      broadcastId: r.broadcast_id,
      start: r.started_at.getTime(),
      end: r.ended_at?.getTime() ?? null,
      transport: r.transport,
      source: r.source,
      domain: r.domain,
      client: r.client,
    }));
  }

  // ---- rollups ----

  /** Replaces the minute rows of [from, to) with `rows` (zero minutes are simply absent). */
  async replaceMinutes(m: Db, from: Date, to: Date, rows: MinuteRow[]): Promise<void> {
    await this.deleteBetween(m, 'listening_minutes', 'minute', from, to);
    for (const chunk of chunks(rows, 500)) {
      await m.query(
        `INSERT INTO listening_minutes (station_id, minute, peak_listeners, listener_seconds, sessions)
         SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::int[], $4::float8[], $5::int[])`,
        [
          chunk.map((r) => r.stationId),
          chunk.map((r) => r.t),
          chunk.map((r) => r.peak),
          chunk.map((r) => r.listenerSeconds),
          chunk.map((r) => r.sessions),
        ],
      );
    }
  }

  async replaceHours(m: Db, from: Date, to: Date, rows: HourRow[], dims: DimRow[]): Promise<void> {
    await this.deleteBetween(m, 'listening_hours', 'hour', from, to);
    await this.deleteBetween(m, 'listening_hour_dims', 'hour', from, to);
    for (const chunk of chunks(rows, 500)) {
      await m.query(
        `INSERT INTO listening_hours (station_id, hour, peak_listeners, listener_seconds, sessions, length_histogram)
         SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::int[], $4::float8[], $5::int[], $6::jsonb[])`,
        [
          chunk.map((r) => r.stationId),
          chunk.map((r) => r.t),
          chunk.map((r) => r.peak),
          chunk.map((r) => r.listenerSeconds),
          chunk.map((r) => r.sessions),
          chunk.map((r) => JSON.stringify(r.histogram)),
        ],
      );
    }
    for (const chunk of chunks(dims, 500)) {
      await m.query(
        `INSERT INTO listening_hour_dims (station_id, hour, dimension, value, sessions, listener_seconds)
         SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::varchar[], $4::varchar[], $5::int[], $6::float8[])`,
        [
          chunk.map((r) => r.stationId),
          chunk.map((r) => r.t),
          chunk.map((r) => r.dimension),
          chunk.map((r) => r.value),
          chunk.map((r) => r.sessions),
          chunk.map((r) => r.listenerSeconds),
        ],
      );
    }
  }

  /** Deletes the rows of `table` whose `column` lies in [from, to). */
  private async deleteBetween(
    m: Db,
    table: string,
    column: 'minute' | 'hour',
    from: Date,
    to: Date,
  ): Promise<void> {
    await m
      .createQueryBuilder()
      .delete()
      .from(table)
      .where(`${column} >= :from AND ${column} < :to`, { from, to })
      .execute();
  }

  async maxMinutePeak(m: Db, stationId: string, from: Date, to: Date): Promise<number> {
    const row = await m
      .createQueryBuilder()
      .select('coalesce(max(peak_listeners), 0)::int', 'peak')
      .from('listening_minutes', 'lm')
      .where('station_id = :stationId', { stationId })
      .andWhere(`minute >= date_trunc('minute', CAST(:from AS timestamptz)) AND minute < :to`, {
        from,
        to,
      })
      .getRawOne<{ peak: number }>();
    return row!.peak;
  }

  // ---- reading ----

  /** One row per non-empty interval: minutes from minute rows, hours and days from hour rows. */
  async series(
    stationId: string,
    interval: 'minute' | 'hour' | 'day',
    from: Date,
    to: Date,
    tz: string,
  ): Promise<{ t: Date; peak: number; listenerSeconds: number; sessions: number }[]> {
    const sql =
      interval === 'minute'
        ? `SELECT minute AS t, peak_listeners AS peak, listener_seconds AS seconds, sessions
           FROM listening_minutes WHERE station_id = $1 AND minute >= $2 AND minute < $3 ORDER BY 1`
        : interval === 'hour'
          ? `SELECT hour AS t, peak_listeners AS peak, listener_seconds AS seconds, sessions
             FROM listening_hours WHERE station_id = $1 AND hour >= $2 AND hour < $3 ORDER BY 1`
          : `SELECT (date_trunc('day', hour AT TIME ZONE $4) AT TIME ZONE $4) AS t,
               max(peak_listeners) AS peak, sum(listener_seconds) AS seconds, sum(sessions)::int AS sessions
             FROM listening_hours WHERE station_id = $1 AND hour >= $2 AND hour < $3
             GROUP BY 1 ORDER BY 1`;
    const params = interval === 'day' ? [stationId, from, to, tz] : [stationId, from, to];
    const rows = (await this.db.query(sql, params)) as {
      t: Date;
      peak: number;
      seconds: number;
      sessions: number;
    }[];
    return rows.map((r) => ({
      t: r.t,
      peak: r.peak,
      listenerSeconds: Number(r.seconds),
      sessions: r.sessions,
    }));
  }

  /** Breakdown totals from the raw sessions (exact; while they are kept). */
  async rawDims(
    stationId: string,
    from: Date,
    to: Date,
    broadcastId: string | null,
  ): Promise<DimTotals[]> {
    const rows = (await this.db.query(
      `SELECT transport, source, domain, client,
         count(*) FILTER (WHERE started_at >= $2 AND started_at < $3)::int AS sessions,
         coalesce(sum(extract(epoch FROM least(coalesce(ended_at, now()), $3) - greatest(started_at, $2))), 0)::float8 AS seconds
       FROM listening_sessions
       WHERE station_id = $1 AND started_at < $3 AND coalesce(ended_at, now()) > $2
         AND ($4::uuid IS NULL OR broadcast_id = $4::uuid)
       GROUP BY 1, 2, 3, 4`,
      [stationId, from, to, broadcastId],
    )) as (Omit<DimTotals, 'listenerSeconds'> & { seconds: number })[];
    return rows.map((r) => ({ ...r, listenerSeconds: r.seconds }));
  }

  async rawMedian(
    stationId: string,
    from: Date,
    to: Date,
    broadcastId: string | null,
  ): Promise<number | null> {
    const [row] = (await this.db.query(
      `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM ended_at - started_at))::float8 AS median
       FROM listening_sessions
       WHERE station_id = $1 AND ended_at >= $2 AND ended_at < $3
         AND ($4::uuid IS NULL OR broadcast_id = $4::uuid)`,
      [stationId, from, to, broadcastId],
    )) as { median: number | null }[];
    return row?.median ?? null;
  }

  /** Breakdown totals from the hourly rollups (for ranges older than the raw sessions). */
  async hourDims(
    stationId: string,
    from: Date,
    to: Date,
  ): Promise<{ dimension: string; value: string; sessions: number; listenerSeconds: number }[]> {
    const rows = (await this.db.query(
      `SELECT dimension, value, sum(sessions)::int AS sessions, sum(listener_seconds)::float8 AS seconds
       FROM listening_hour_dims WHERE station_id = $1 AND hour >= $2 AND hour < $3
       GROUP BY 1, 2`,
      [stationId, from, to],
    )) as { dimension: string; value: string; sessions: number; seconds: number }[];
    return rows.map((r) => ({ ...r, listenerSeconds: r.seconds }));
  }

  async hourHistograms(stationId: string, from: Date, to: Date): Promise<LengthHistogram[]> {
    const rows = await this.db
      .createQueryBuilder()
      .select('length_histogram', 'h')
      .from('listening_hours', 'lh')
      .where('station_id = :stationId AND hour >= :from AND hour < :to', { stationId, from, to })
      .getRawMany<{ h: LengthHistogram }>();
    return rows.map((r) => r.h);
  }

  async prune(m: Db, rawDays: number): Promise<void> {
    const before = 'now() - make_interval(days => :rawDays)';
    await m
      .createQueryBuilder()
      .delete()
      .from('listening_sessions')
      .where(`ended_at < ${before}`, { rawDays })
      .execute();
    await m
      .createQueryBuilder()
      .delete()
      .from('listening_minutes')
      .where(`minute < ${before}`, { rawDays })
      .execute();
  }
}

function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}
