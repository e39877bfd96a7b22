import { z } from 'zod';

export const PODCAST_LIMITS = { notesMax: 4000, titleMax: 200 } as const;

/** `POST /api/stations/podcast/episodes/update` (owner): a replay as a podcast episode. */
export const UpdateEpisodeRequest = z.strictObject({
  recordingId: z.string().uuid({ message: 'must be a UUID' }),
  title: z.string().trim().min(1, 'must not be empty').max(PODCAST_LIMITS.titleMax).optional(),
  notes: z.string().trim().max(PODCAST_LIMITS.notesMax).optional(),
  /** false drops the episode from the feed (the replay itself stays as it is). */
  inFeed: z.boolean().optional(),
});
export type UpdateEpisodeRequest = z.infer<typeof UpdateEpisodeRequest>;

export interface PodcastEpisode {
  recordingId: string;
  title: string;
  notes: string;
  inFeed: boolean;
  /** Whether the replay is publicly listed (only those are in the feed). */
  publiclyListed: boolean;
  startedAt: string;
  durationSeconds: number;
}

/** `GET /api/stations/{id}/podcast` (owner): the feed's address and every replay as an episode. */
export interface PodcastResponse {
  feedUrl: string;
  episodes: PodcastEpisode[];
}
