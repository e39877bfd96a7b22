import { StationVisibility } from './access.js';
import { z } from 'zod';
import { StationId } from './station.js';

export const RECORDING_LIMITS = { titleMax: 200, retentionDaysMax: 3650 } as const;

/** `POST /api/stations/recording`: turn recording of the station's broadcasts on or off. */
export const RecordingSettingRequest = z.strictObject({
  stationId: StationId,
  enabled: z.boolean(),
  /** Delete recordings older than this many days; null keeps them. */
  retentionDays: z
    .number()
    .int()
    .min(1)
    .max(RECORDING_LIMITS.retentionDaysMax)
    .nullable()
    .optional(),
});
export type RecordingSettingRequest = z.infer<typeof RecordingSettingRequest>;

export interface RecordingSetting {
  stationId: string;
  enabled: boolean;
  retentionDays: number | null;
}

export const RecordingId = z.string().uuid({ message: 'must be a UUID' });

/** `POST /api/stations/recordings/update`: rename, publish or unpublish. */
export const UpdateRecordingRequest = z.strictObject({
  recordingId: RecordingId,
  title: z.string().trim().max(RECORDING_LIMITS.titleMax).optional(),
  /** Kept for older clients: true follows the station's visibility, false is `private`. */
  published: z.boolean().optional(),
  /** public, unlisted or private; null: the station's. */
  visibility: StationVisibility.nullable().optional(),
});
export type UpdateRecordingRequest = z.infer<typeof UpdateRecordingRequest>;

/**
 * `recording`: still on air; `ready`: finished and playable; `failed`: stopped early (the reason
 * in `error`; what was written before stays playable).
 */
export type RecordingStatus = 'recording' | 'ready' | 'failed';

/** A now-playing change, `offsetSeconds` into the recording. */
export interface RecordingTimelineEntry {
  offsetSeconds: number;
  track: string | null;
  artist: string | null;
  album: string | null;
}

export interface Recording {
  id: string;
  stationId: string;
  title: string;
  startedAt: string;
  endedAt: string | null;
  durationSeconds: number;
  sizeBytes: number;
  status: RecordingStatus;
  error: string | null;
  /** Whether anyone but the owner may play it (`visibility` other than private). */
  published: boolean;
  /** Who may play it, as it applies now: its own setting, else its station's. */
  visibility: StationVisibility;
  /** Its own setting (null: follows the station's). */
  visibilitySetting: StationVisibility | null;
  /** The Ogg/Opus file (HTTP Range supported). */
  url: string;
  /** The replay page. */
  pageUrl: string;
  timeline: RecordingTimelineEntry[];
}

export interface RecordingsResponse {
  setting: RecordingSetting;
  recordings: Recording[];
}
