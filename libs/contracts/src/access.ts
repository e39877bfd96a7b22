import { z } from 'zod';

/**
 * Who may find and hear a station. `public`: listed (discover, profile, sitemap) and playable by
 * anyone. `unlisted`: playable by anyone with the link, never listed, `noindex`. `private`: only
 * listeners admitted by an invite link, the station password or the owner's listener list.
 */
export const StationVisibility = z.enum(['public', 'unlisted', 'private']);
export type StationVisibility = z.infer<typeof StationVisibility>;

/** How a listener got into a private station (the owner's own links: `owner`). */
export const AdmissionVia = z.enum(['invite', 'password', 'account', 'owner']);
export type AdmissionVia = z.infer<typeof AdmissionVia>;

/** How long a listening grant (and the playlist links made from it) lasts by default: 24 h. */
export const LISTEN_GRANT_TTL_SECONDS = 24 * 3600;

/** `POST /api/stations/invites`. */
export const CreateInviteRequest = z.strictObject({
  stationId: z.string().uuid(),
  label: z.string().trim().max(60).optional(),
  expiresAt: z.string().datetime().optional(),
  maxUses: z.number().int().positive().max(1_000_000).optional(),
});
export type CreateInviteRequest = z.infer<typeof CreateInviteRequest>;

export const Invite = z.object({
  id: z.string().uuid(),
  stationId: z.string().uuid(),
  label: z.string(),
  /** Opens the station page and admits its holder. */
  url: z.string().url(),
  token: z.string(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  maxUses: z.number().int().nullable(),
  /** Distinct listeners admitted with it so far. */
  uses: z.number().int(),
  revokedAt: z.string().nullable(),
});
export type Invite = z.infer<typeof Invite>;

/** `POST /api/stations/password`: null removes the password. */
export const StationPasswordRequest = z.strictObject({
  stationId: z.string().uuid(),
  password: z.string().min(4).max(200).nullable(),
});
export type StationPasswordRequest = z.infer<typeof StationPasswordRequest>;

/** `POST /api/stations/listeners`: invite an account by e-mail (mailed a link). */
export const AddListenerRequest = z.strictObject({
  stationId: z.string().uuid(),
  email: z.string().trim().toLowerCase().email().max(254),
});
export type AddListenerRequest = z.infer<typeof AddListenerRequest>;

export const ListedListener = z.object({
  id: z.string().uuid(),
  email: z.string(),
  createdAt: z.string(),
});
export type ListedListener = z.infer<typeof ListedListener>;

/** One admission, for the owner's log. */
export const Admission = z.object({
  at: z.string(),
  via: AdmissionVia,
  /** The invite's label, the listener's e-mail, or ''. */
  label: z.string(),
  /** Random listener id (first 8 characters): tells listeners apart without naming them. */
  listener: z.string(),
});
export type Admission = z.infer<typeof Admission>;

/** Someone listening now, with how they got in (owner only). */
export const ActiveListener = z.object({
  listener: z.string(),
  via: z.string(),
  label: z.string(),
  transport: z.enum(['webrtc', 'http']),
  since: z.string(),
});
export type ActiveListener = z.infer<typeof ActiveListener>;

/** `GET /api/stations/{id}/access` (owner only). */
export const StationAccess = z.object({
  stationId: z.string().uuid(),
  visibility: StationVisibility,
  hasPassword: z.boolean(),
  listeners: z.array(ListedListener),
  admissions: z.array(Admission),
  listening: z.array(ActiveListener),
});
export type StationAccess = z.infer<typeof StationAccess>;

/** A listening grant handed to an admitted listener: present it again (`grant`) to rejoin. */
export const ListenGrant = z.object({
  token: z.string(),
  expiresAt: z.string(),
  via: z.string(),
});
export type ListenGrant = z.infer<typeof ListenGrant>;

/** What a socket room tells the players of a station that just became private. */
export interface StationAccessPush {
  id: string;
  visibility: StationVisibility;
  /** Listeners without a grant are ended after this many seconds. */
  endsInSeconds: number;
}

/**
 * `GET /api/stations/{id}/feeds` (`?grant=` for a private station's listener): the caller's own
 * podcast and calendar addresses. For a private station they carry a secret `key` naming how the
 * caller got in: revoking that access (the invite, the password, the listener-list entry) makes
 * them answer 403.
 */
export const StationFeeds = z.object({
  podcastUrl: z.string(),
  calendarUrl: z.string(),
  /** True when the addresses are the caller's own (a private station's). */
  personal: z.boolean(),
});
export type StationFeeds = z.infer<typeof StationFeeds>;
