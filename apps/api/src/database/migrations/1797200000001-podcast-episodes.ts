import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A replay as a podcast episode (issue 29): the owner's show notes, and whether it is in the feed. */
export class PodcastEpisodes1797200000001 implements MigrationInterface {
  name = 'PodcastEpisodes1797200000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE podcast_episodes (
        recording_id uuid PRIMARY KEY REFERENCES recordings (id) ON DELETE CASCADE,
        notes text NOT NULL DEFAULT '',
        in_feed boolean NOT NULL DEFAULT true,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE podcast_episodes`);
  }
}
