import { z } from 'zod';
import { StationId } from './station.js';
import { withoutControls } from './text.js';

/**
 * Radio compatibility: the persistent stream key (WHIP bearer, Icecast source password), the
 * Icecast-protocol ingest mount, the HTTP stream for radio apps, and outbound relays.
 */

/** User name Icecast sources send with their password (HTTP Basic). */
export const ICECAST_SOURCE_USER = 'source';

/** Mount path of a station for Icecast-protocol sources. */
export const ingestMount = (username: string, slug: string) => `/ingest/${username}/${slug}`;

/**
 * Path of a station's endless HTTP stream; `ext` is ogg (Ogg/Opus), mp3 (the same as MP3, for
 * players without Opus), m3u or pls (playlists).
 */
export const listenPath = (username: string, slug: string, ext: ListenExtension) =>
  `/listen/${username}/${slug}.${ext}`;
export type ListenExtension = 'ogg' | 'mp3' | 'm3u' | 'pls';

/** Query parameter of a signed listening link: `/listen/{user}/{slug}.ogg?t=…`. */
export const LISTEN_TOKEN_PARAM = 't';

/** How long the studio's signed links for VLC and radio apps play (a stream that started keeps going). */
export const SIGNED_PLAYLIST_TTL_HOURS = 24;

export const RotateStreamKeyResponse = z.object({ streamKey: z.string() });
export type RotateStreamKeyResponse = z.infer<typeof RotateStreamKeyResponse>;

/** What the studio's "Broadcast from other software" panel shows (owner only). */
export const BroadcastSettings = z.object({
  stationId: StationId,
  /** The persistent key, or null when it can no longer be shown (the server's secret changed: rotate). */
  streamKey: z.string().nullable(),
  streamKeyRotatedAt: z.string(),
  whipUrl: z.string(),
  icecast: z.object({
    /** Host name and port a source connects to (the site's own). */
    host: z.string(),
    port: z.number().int(),
    tls: z.boolean(),
    mount: z.string(),
    username: z.literal(ICECAST_SOURCE_USER),
  }),
  /** The plain stream URLs: they play without a signature only while `publicStreamUrl` is on. */
  listen: z.object({ ogg: z.string(), mp3: z.string(), m3u: z.string(), pls: z.string() }),
  /**
   * The plain stream URLs play anywhere (radio apps, VLC, any web page that hides its address).
   * Off by default once the owner lists allowed domains; the owner may turn it back on.
   */
  publicStreamUrl: z.boolean(),
  /** Whether `publicStreamUrl` was set by the owner rather than following the default. */
  publicStreamUrlSetByOwner: z.boolean(),
  /** The owner has allowed domains (so the default is off). */
  domainsListed: z.boolean(),
  /**
   * Signed links for VLC and radio apps while the plain URLs are private: fresh ones each time the
   * settings are read, valid for {@link SIGNED_PLAYLIST_TTL_HOURS} hours; null while public.
   */
  signedListen: z
    .object({
      ogg: z.string(),
      mp3: z.string(),
      m3u: z.string(),
      pls: z.string(),
      expiresAt: z.string(),
    })
    .nullable(),
});
export type BroadcastSettings = z.infer<typeof BroadcastSettings>;

export const UpdateBroadcastSettingsRequest = z.strictObject({
  stationId: StationId,
  publicStreamUrl: z.boolean(),
});
export type UpdateBroadcastSettingsRequest = z.infer<typeof UpdateBroadcastSettingsRequest>;

// ---- outbound relays ----

export const RelayKind = z.enum(['icecast', 'azuracast', 'shoutcast']);
export type RelayKind = z.infer<typeof RelayKind>;
export const RelayFormat = z.enum(['ogg', 'mp3']);
export type RelayFormat = z.infer<typeof RelayFormat>;

export const RELAY_LIMITS = { perStation: 5, urlMax: 2048, mountMax: 200, credentialMax: 200 };

const relayUrl = withoutControls(z.string())
  .trim()
  .max(RELAY_LIMITS.urlMax)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'http:' || u.protocol === 'https:') && !!u.hostname;
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// server address, as in http://icecast.example.com:8000');

const mount = withoutControls(z.string())
  .trim()
  .max(RELAY_LIMITS.mountMax)
  .regex(/^\/?[A-Za-z0-9._~!$&'()*+,;=:@/-]*$/, 'must be a path such as /live.ogg');

const relayUsername = withoutControls(z.string()).trim().max(RELAY_LIMITS.credentialMax);
const relayPassword = withoutControls(z.string()).min(1).max(RELAY_LIMITS.credentialMax);

export const CreateRelayRequest = z.strictObject({
  stationId: StationId,
  kind: RelayKind,
  /** Server address: http(s)://host:port */
  url: relayUrl,
  /** Icecast/AzuraCast mount (e.g. /live.ogg); Shoutcast: empty or the stream id as /1. */
  mount,
  username: relayUsername.default('source'),
  password: relayPassword,
  /** Ogg/Opus passes the station through untouched; MP3 is encoded for servers that need it. */
  format: RelayFormat.optional(),
  enabled: z.boolean().default(true),
});
export type CreateRelayRequest = z.input<typeof CreateRelayRequest>;

export const UpdateRelayRequest = z.strictObject({
  relayId: z.string().uuid({ message: 'must be a UUID' }),
  url: relayUrl.optional(),
  mount: mount.optional(),
  username: relayUsername.optional(),
  password: relayPassword.optional(),
  format: RelayFormat.optional(),
  enabled: z.boolean().optional(),
});
export type UpdateRelayRequest = z.infer<typeof UpdateRelayRequest>;

export const RelayState = z.enum(['idle', 'connecting', 'live', 'retrying', 'disabled']);
export type RelayState = z.infer<typeof RelayState>;

export const Relay = z.object({
  id: z.string().uuid(),
  stationId: StationId,
  kind: RelayKind,
  url: z.string(),
  mount: z.string(),
  username: z.string(),
  /** Never the password itself. */
  hasPassword: z.boolean(),
  format: RelayFormat,
  enabled: z.boolean(),
  /**
   * Why the server paused it (its address is one the server does not connect to), or null;
   * changing the URL or resuming it clears it.
   */
  pausedReason: z.string().nullable(),
  createdAt: z.string(),
  status: z.object({
    state: RelayState,
    /** Why the last attempt failed, in words. */
    lastError: z.string().nullable(),
    /** When the next attempt is due (retrying). */
    retryAt: z.string().nullable(),
    /** Since when it has been pushing (live). */
    since: z.string().nullable(),
    bytesSent: z.number().int().nonnegative(),
  }),
});
export type Relay = z.infer<typeof Relay>;

export const RelaysResponse = z.object({ relays: z.array(Relay) });
export type RelaysResponse = z.infer<typeof RelaysResponse>;
