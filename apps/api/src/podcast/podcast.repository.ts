import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

export interface EpisodeRow {
  recordingId: string;
  notes: string;
  inFeed: boolean;
}

/** The owner's episode edits (notes, in the feed or not), by recording. */
@Injectable()
export class PodcastRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async byRecordings(ids: string[]): Promise<Map<string, EpisodeRow>> {
    if (ids.length === 0) return new Map();
    const rows = (await this.db.query(
      `SELECT recording_id AS "recordingId", notes, in_feed AS "inFeed"
       FROM podcast_episodes WHERE recording_id = ANY($1)`,
      [ids],
    )) as EpisodeRow[];
    return new Map(rows.map((r) => [r.recordingId, r]));
  }

  async save(recordingId: string, changes: { notes?: string; inFeed?: boolean }): Promise<void> {
    await this.db.query(
      `INSERT INTO podcast_episodes (recording_id, notes, in_feed)
       VALUES ($1, coalesce($2, ''), coalesce($3, true))
       ON CONFLICT (recording_id) DO UPDATE SET
         notes = coalesce($2, podcast_episodes.notes),
         in_feed = coalesce($3, podcast_episodes.in_feed), updated_at = now()`,
      [recordingId, changes.notes ?? null, changes.inFeed ?? null],
    );
  }
}
