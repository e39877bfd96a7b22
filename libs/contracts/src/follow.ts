import { z } from 'zod';
import { StationId } from './station.js';

export const FOLLOW_LIMITS = {
  /** A station that goes live again this soon after its last go-live notice or going off air is flapping: no new notice. */
  flapMinutes: 10,
  /** Reminders this long before a show starts (when the follower asks for them). */
  reminderMinutes: 30,
  /** How long a guest's confirmation link works. */
  confirmDays: 7,
  /** One confirmation mail per address and station this often, whatever the requests. */
  confirmResendMinutes: 10,
} as const;

/** `POST /api/stations/follow` and the guest form: which station. */
export const FollowRequest = z.object({ stationId: StationId }).strict();
export type FollowRequest = z.infer<typeof FollowRequest>;

/** `POST /api/stations/follow/email` (no account, e.g. from the embed): double opt-in by e-mail. */
export const GuestFollowRequest = z
  .object({
    stationId: StationId,
    email: z.string().trim().toLowerCase().max(320).email('must be an e-mail address'),
  })
  .strict();
export type GuestFollowRequest = z.infer<typeof GuestFollowRequest>;

/** What a follower is told, and how: per station. */
export const FollowSettings = z
  .object({
    /** By e-mail. */
    email: z.boolean(),
    /** By Web Push, on every browser the follower turned it on in. */
    push: z.boolean(),
    /** When the station goes live. */
    onLive: z.boolean(),
    /** 30 minutes before a scheduled show. */
    beforeShow: z.boolean(),
    /** When a scheduled show starts. */
    atShowStart: z.boolean(),
  })
  .strict();
export type FollowSettings = z.infer<typeof FollowSettings>;

export const UpdateFollowRequest = FollowSettings.partial()
  .extend({ stationId: StationId })
  .strict();
export type UpdateFollowRequest = z.infer<typeof UpdateFollowRequest>;

/** `GET /api/stations/follow/{stationId}`: the caller's follow of a station. */
export interface FollowState {
  stationId: string;
  following: boolean;
  settings: FollowSettings;
}

/** `GET /api/stations/{id}/followers` (owner only): counts, never the list. */
export interface FollowerCounts {
  stationId: string;
  followers: number;
  /** Of them, how many get e-mail and how many Web Push. */
  email: number;
  push: number;
  /** Guests who asked by e-mail and have not confirmed yet (not counted as followers). */
  pending: number;
}

/** `POST /api/stations/follow/email` answers the same whether or not the address already follows. */
export interface GuestFollowResponse {
  status: 'confirmation-sent';
}

const Base64Url = (bytes: number) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, 'must be base64url')
    .refine(
      (v) => Math.floor((v.replace(/=+$/, '').length * 3) / 4) === bytes,
      `must be ${bytes} bytes`,
    );

/** `POST /api/push/subscriptions`: a browser's `PushSubscription.toJSON()`. */
export const PushSubscriptionRequest = z.object({
  endpoint: z.string().url('must be a URL').max(2048),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({ p256dh: Base64Url(65), auth: Base64Url(16) }),
});
export type PushSubscriptionRequest = z.infer<typeof PushSubscriptionRequest>;

export const RemovePushSubscriptionRequest = z.object({ endpoint: z.string().max(2048) });
export type RemovePushSubscriptionRequest = z.infer<typeof RemovePushSubscriptionRequest>;
