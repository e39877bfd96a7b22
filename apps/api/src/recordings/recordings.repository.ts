import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type {
  StationVisibility,
  RecordingSetting,
  RecordingStatus,
  RecordingTimelineEntry,
} from '@radiobroadcaster/contracts';
import type { DataSource } from 'typeorm';
import type { StorageKind } from './recording-storage.js';

export interface RecordingRow {
  id: string;
  stationId: string;
  broadcastId: string | null;
  title: string;
  startedAt: Date;
  endedAt: Date | null;
  durationSeconds: number;
  sizeBytes: number;
  status: RecordingStatus;
  error: string | null;
  /** Its own visibility, or null: its station's. */
  visibility: StationVisibility | null;
  storageKey: string;
  storage: StorageKind;
  timeline: RecordingTimelineEntry[];
}

const COLUMNS = `id, station_id, broadcast_id, title, started_at, ended_at, duration_seconds,
  size_bytes, status, error, visibility, storage_key, storage, timeline`;

type Raw = {
  id: string;
  station_id: string;
  broadcast_id: string | null;
  title: string;
  started_at: Date;
  ended_at: Date | null;
  duration_seconds: number;
  size_bytes: string;
  status: RecordingStatus;
  error: string | null;
  visibility: StationVisibility | null;
  storage_key: string;
  storage: StorageKind;
  timeline: RecordingTimelineEntry[];
};

function row(r: Raw): RecordingRow {
  return {
    id: r.id,
    stationId: r.station_id,
    broadcastId: r.broadcast_id,
    title: r.title,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    durationSeconds: r.duration_seconds,
    sizeBytes: Number(r.size_bytes),
    status: r.status,
    error: r.error,
    visibility: r.visibility,
    storageKey: r.storage_key,
    storage: r.storage,
    timeline: r.timeline,
  };
}

/** Recording settings and rows; the audio itself is in `RecordingStorage`. */
@Injectable()
export class RecordingsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async setting(stationId: string): Promise<RecordingSetting> {
    const [r] = (await this.db.query(
      `SELECT enabled, retention_days FROM recording_settings WHERE station_id = $1`,
      [stationId],
    )) as { enabled: boolean; retention_days: number | null }[];
    return { stationId, enabled: r?.enabled ?? false, retentionDays: r?.retention_days ?? null };
  }

  async saveSetting(s: RecordingSetting): Promise<void> {
    await this.db.query(
      `INSERT INTO recording_settings (station_id, enabled, retention_days) VALUES ($1, $2, $3)
       ON CONFLICT (station_id) DO UPDATE SET enabled = $2, retention_days = $3, updated_at = now()`,
      [s.stationId, s.enabled, s.retentionDays],
    );
  }

  /** A new open recording, or null when the station already has one (another node records it). */
  async create(stationId: string, id: string, storageKey: string): Promise<RecordingRow | null> {
    const rows = (await this.db.query(
      `INSERT INTO recordings (id, station_id, broadcast_id, storage_key)
       VALUES ($1, $2, (SELECT id FROM broadcasts WHERE station_id = $2 AND ended_at IS NULL), $3)
       ON CONFLICT (station_id) WHERE status = 'recording' DO NOTHING
       RETURNING ${COLUMNS}`,
      [id, stationId, storageKey],
    )) as Raw[];
    return rows[0] ? row(rows[0]) : null;
  }

  async find(id: string): Promise<RecordingRow | null> {
    const rows = (await this.db.query(`SELECT ${COLUMNS} FROM recordings WHERE id = $1`, [
      id,
    ])) as Raw[];
    return rows[0] ? row(rows[0]) : null;
  }

  /** A station's recordings, newest first (who sees which: `recordingAccess`). */
  async listByStation(stationId: string): Promise<RecordingRow[]> {
    const rows = (await this.db.query(
      `SELECT ${COLUMNS} FROM recordings WHERE station_id = $1 ORDER BY started_at DESC LIMIT 500`,
      [stationId],
    )) as Raw[];
    return rows.map(row);
  }

  /**
   * Open recordings whose node stopped beating `staleMs` ago (it crashed or was killed): the
   * caller finalizes them. `stationId` narrows it to one station.
   */
  async orphans(staleMs: number, stationId?: string): Promise<RecordingRow[]> {
    return (
      (await this.db.query(
        `SELECT ${COLUMNS} FROM recordings WHERE status = 'recording'
           AND heartbeat_at < now() - make_interval(secs => $1::double precision / 1000)
           AND ($2::uuid IS NULL OR station_id = $2)`,
        [staleMs, stationId ?? null],
      )) as Raw[]
    ).map(row);
  }

  /** The recording node's beat, with how far it got. */
  async progress(id: string, durationSeconds: number, sizeBytes: number): Promise<void> {
    await this.db.query(
      `UPDATE recordings SET duration_seconds = $2, size_bytes = $3, heartbeat_at = now()
       WHERE id = $1 AND status = 'recording'`,
      [id, durationSeconds, sizeBytes],
    );
  }

  /** Finished recordings still in the local directory while a bucket is configured. */
  async awaitingUpload(limit = 20): Promise<RecordingRow[]> {
    return (
      (await this.db.query(
        `SELECT ${COLUMNS} FROM recordings WHERE status <> 'recording' AND storage = 'local'
           AND size_bytes > 0
         ORDER BY started_at LIMIT $1`,
        [limit],
      )) as Raw[]
    ).map(row);
  }

  async setStorage(id: string, storage: StorageKind): Promise<void> {
    await this.db.query(`UPDATE recordings SET storage = $2 WHERE id = $1`, [id, storage]);
  }

  async appendTimeline(id: string, entry: RecordingTimelineEntry): Promise<void> {
    await this.db.query(`UPDATE recordings SET timeline = timeline || $2::jsonb WHERE id = $1`, [
      id,
      JSON.stringify([entry]),
    ]);
  }

  /** UPDATE … RETURNING answers `[rows, count]` through TypeORM; INSERT and SELECT the rows. */
  private static returned(result: unknown): Raw[] {
    const r = result as Raw[] | [Raw[], number];
    return Array.isArray(r[0]) ? r[0] : (r as Raw[]);
  }

  async finish(
    id: string,
    f: {
      status: 'ready' | 'failed';
      error: string | null;
      durationSeconds: number;
      sizeBytes: number;
    },
  ): Promise<RecordingRow | null> {
    const rows = RecordingsRepository.returned(
      await this.db.query(
        `UPDATE recordings SET status = $2, error = $3, duration_seconds = $4, size_bytes = $5,
           ended_at = coalesce(ended_at, now())
         WHERE id = $1 AND status = 'recording' RETURNING ${COLUMNS}`,
        [id, f.status, f.error, f.durationSeconds, f.sizeBytes],
      ),
    );
    return rows[0] ? row(rows[0]) : null;
  }

  /** `visibility` null: follow the station's; undefined: unchanged. */
  async update(
    id: string,
    changes: { title?: string; visibility?: StationVisibility | null },
  ): Promise<void> {
    if (changes.visibility !== undefined)
      await this.db.query(
        `UPDATE recordings SET visibility = $2, published = ($2::varchar IS DISTINCT FROM 'private') WHERE id = $1`,
        [id, changes.visibility],
      );
    await this.db.query(`UPDATE recordings SET title = coalesce($2, title) WHERE id = $1`, [
      id,
      changes.title ?? null,
    ]);
  }

  async delete(id: string): Promise<void> {
    await this.db.query(`DELETE FROM recordings WHERE id = $1`, [id]);
  }

  /** Finished recordings older than their station's retention. */
  async expired(): Promise<RecordingRow[]> {
    return (
      (await this.db.query(
        `SELECT ${COLUMNS.split(',')
          .map((c) => `r.${c.trim()}`)
          .join(', ')}
       FROM recordings r JOIN recording_settings s ON s.station_id = r.station_id
       WHERE s.retention_days IS NOT NULL AND r.status <> 'recording'
         AND r.started_at < now() - make_interval(days => s.retention_days)`,
      )) as Raw[]
    ).map(row);
  }
}
