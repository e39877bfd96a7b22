import { z } from 'zod';
import { LIMITS } from './constants.js';

export const StationStatus = z.enum(['live', 'offline', 'ended']);
export type StationStatus = z.infer<typeof StationStatus>;

export const NowPlaying = z.object({
  track: z.string(),
  artist: z.string().nullable(),
  album: z.string().nullable(),
});
export type NowPlaying = z.infer<typeof NowPlaying>;

/** The station as every API response carries it (spec §3): exactly these fields. */
export const Station = z.object({
  id: z.string().uuid(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  broadcasterId: z.string().uuid(),
  broadcaster: z.object({ id: z.string().uuid(), username: z.string(), name: z.string() }),
  isActive: z.boolean(),
  status: StationStatus,
  viewerCount: z.number().int().nonnegative(),
  nowPlaying: NowPlaying.nullable(),
  createdAt: z.string(),
  lastActiveAt: z.string().nullable(),
});
export type Station = z.infer<typeof Station>;

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

const trimmed = (max: number) => z.string().trim().min(1).max(max);

export const StationId = z.string().uuid({ message: 'must be a UUID' });

export const CreateStationRequest = z.strictObject({
  name: trimmed(LIMITS.stationNameMax),
  slug: z
    .string()
    .max(LIMITS.stationSlugMax)
    .regex(SLUG_PATTERN, 'lowercase letters, digits and single dashes only')
    .optional(),
  description: z.string().trim().max(LIMITS.descriptionMax).optional(),
});
export type CreateStationRequest = z.infer<typeof CreateStationRequest>;

export const UpdateStationRequest = z.strictObject({
  stationId: StationId,
  name: trimmed(LIMITS.stationNameMax).optional(),
  slug: z
    .string()
    .max(LIMITS.stationSlugMax)
    .regex(SLUG_PATTERN, 'lowercase letters, digits and single dashes only')
    .optional(),
  description: z.string().trim().max(LIMITS.descriptionMax).optional(),
});
export type UpdateStationRequest = z.infer<typeof UpdateStationRequest>;

export const NowPlayingRequest = z.strictObject({
  stationId: StationId,
  track: trimmed(LIMITS.nowPlayingFieldMax),
  artist: z.string().trim().max(LIMITS.nowPlayingFieldMax).optional(),
  album: z.string().trim().max(LIMITS.nowPlayingFieldMax).optional(),
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
  user: z.object({ id: z.string(), username: z.string(), name: z.string() }),
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
