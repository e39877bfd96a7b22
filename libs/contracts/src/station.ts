import { z } from 'zod';
import { LIMITS } from './constants.js';
import { multiLineText, optionalLineText, singleLineText } from './text.js';
import { StationVisibility } from './access.js';

/**
 * `live`: on air. `reconnecting`: the publisher dropped and may come back within the grace period;
 * listeners stay connected. `offline`: not on air. `ended`: the owner ended the last broadcast.
 */
export const StationStatus = z.enum(['live', 'reconnecting', 'offline', 'ended']);
export type StationStatus = z.infer<typeof StationStatus>;

export const NowPlaying = z.object({
  track: z.string(),
  artist: z.string().nullable(),
  album: z.string().nullable(),
});
export type NowPlaying = z.infer<typeof NowPlaying>;

/** The station as every API response carries it: exactly these fields, for the web app and third-party players alike. */
export const Station = z.object({
  id: z.string().uuid(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  broadcasterId: z.string().uuid(),
  broadcaster: z.object({
    id: z.string().uuid(),
    username: z.string(),
    name: z.string(),
    /** The broadcaster's picture, or null. */
    avatarUrl: z.string().nullable(),
  }),
  isActive: z.boolean(),
  status: StationStatus,
  viewerCount: z.number().int().nonnegative(),
  nowPlaying: NowPlaying.nullable(),
  createdAt: z.string(),
  lastActiveAt: z.string().nullable(),
  /** Square cover art (800×800 WebP), or null. */
  coverUrl: z.string().nullable(),
  /** When the station is on, in the owner's words ('' when not set). */
  schedule: z.string(),
  /**
   * Who may listen: public, unlisted or private (a player learns from it that a station it plays
   * just turned private). Absent from built-in demo data: public.
   */
  visibility: StationVisibility.optional(),
});
export type Station = z.infer<typeof Station>;

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

const trimmed = singleLineText;

export const StationId = z.string().uuid({ message: 'This is not a valid station id.' });

/** The rules for a station's name, address and description: the studio and the API use these. */
export const StationName = trimmed(LIMITS.stationNameMax, { visibleOnly: true });
export const StationSlug = z
  .string()
  .trim()
  .min(1)
  .max(LIMITS.stationSlugMax)
  .regex(SLUG_PATTERN, 'Use lowercase letters, digits and single dashes, like night-owls.');
export const StationDescription = multiLineText(LIMITS.descriptionMax, { visibleOnly: true });
export const StationSchedule = multiLineText(LIMITS.scheduleMax, { visibleOnly: true });

export const CreateStationRequest = z.strictObject({
  name: StationName,
  slug: StationSlug.optional(),
  description: StationDescription.optional(),
});
export type CreateStationRequest = z.infer<typeof CreateStationRequest>;

export const UpdateStationRequest = z.strictObject({
  stationId: StationId,
  name: StationName.optional(),
  slug: StationSlug.optional(),
  description: StationDescription.optional(),
  schedule: StationSchedule.optional(),
  visibility: StationVisibility.optional(),
});
export type UpdateStationRequest = z.infer<typeof UpdateStationRequest>;

export const NowPlayingRequest = z.strictObject({
  stationId: StationId,
  track: trimmed(LIMITS.nowPlayingFieldMax),
  artist: optionalLineText(LIMITS.nowPlayingFieldMax).optional(),
  album: optionalLineText(LIMITS.nowPlayingFieldMax).optional(),
});
export type NowPlayingRequest = z.infer<typeof NowPlayingRequest>;

export const StationIdRequest = z.strictObject({ stationId: StationId });
export type StationIdRequest = z.infer<typeof StationIdRequest>;

/** A station token lets its owner publish (WHIP) to that one station. */
export const StationToken = z.object({ token: z.string(), expiresAt: z.string() });
export type StationToken = z.infer<typeof StationToken>;

export const CreateStationResponse = z.object({ station: Station, streamToken: StationToken });
export type CreateStationResponse = z.infer<typeof CreateStationResponse>;

export const DiscoverResponse = z.object({ stations: z.array(Station) });
export type DiscoverResponse = z.infer<typeof DiscoverResponse>;

export const UserStationsResponse = z.object({
  user: z.object({
    id: z.string(),
    username: z.string(),
    name: z.string(),
    avatarUrl: z.string().nullable(),
  }),
  stations: z.array(Station),
});
export type UserStationsResponse = z.infer<typeof UserStationsResponse>;

/** What `station:update` pushes to room `station:{id}`. */
export interface StationUpdatePush {
  id: string;
  status: StationStatus;
  isActive: boolean;
  viewerCount: number;
  nowPlaying: NowPlaying | null;
  lastActiveAt: string | null;
}
