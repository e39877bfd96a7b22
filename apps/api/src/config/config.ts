import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import { dirname, resolve } from 'node:path';
import { IceServer } from '@radiobroadcaster/contracts';
import { z } from 'zod';
import { StartupError } from '../common/startup-error.js';
import { TURN_URL, type TurnConfig } from '../turn/ice-servers.js';
import { REPO_ROOT } from '../common/repo-root.js';

const bool = z.enum(['true', 'false', '1', '0', '']).transform((v) => v === 'true' || v === '1');
const int = (def: number) => z.coerce.number().int().nonnegative().default(def);
/** A port, or unset (an empty value too). */
const optionalPort = z.preprocess(
  (v) => (v === '' ? undefined : v),
  z.coerce.number().int().min(0).max(65535).optional(),
);

/**
 * Every environment variable the product reads, validated once at boot.
 * The README's table is generated from the same names: keep them in step.
 */
const EnvSchema = z.object({
  PORT: int(3000),
  HOST: z.string().default('0.0.0.0'),
  PUBLIC_URL: z.string().url().optional(),
  DATABASE_URL: z.string().optional(),
  DATA_DIR: z.string().default('.data'),
  REDIS_URL: z.string().optional(),
  /** Prefix of every Redis key and channel (EVENT_PREFIX: its old name, still read). */
  REDIS_PREFIX: z.string().min(1).optional(),
  EVENT_PREFIX: z.string().min(1).optional(),
  AUTH_SECRET: z.string().min(32).optional(),
  SESSION_TTL_DAYS: int(30),
  STATION_TOKEN_TTL_SECONDS: int(3600),
  LISTENER_TOKEN_TTL_SECONDS: int(300),
  TRUSTED_ORIGINS: z.string().default(''),
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default('Radio Broadcaster <no-reply@localhost>'),
  SUPPORT_EMAIL: z.string().default('support@radiobroadcaster.example'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RATE_LIMIT_AUTH_PER_MINUTE: int(10),
  RATE_LIMIT_JOIN_PER_MINUTE: int(30),
  RATE_LIMIT_PUBLISH_PER_MINUTE: int(30),
  RATE_LIMIT_MAIL_PER_HOUR: int(5),
  RATE_LIMIT_SIGN_UP_PER_IP: int(20),
  RATE_LIMIT_SIGN_UP_PER_ADDRESS: int(10),
  RATE_LIMIT_SIGN_UP_WINDOW_SECONDS: z.coerce.number().int().positive().default(3600),
  RATE_LIMIT_SOURCE_AUTH_PER_MINUTE: int(10),
  RATE_LIMIT_STATION_PASSWORD_PER_MINUTE: int(5),
  LISTEN_GRANT_TTL_SECONDS: int(86400),
  MAX_LISTENERS_PER_IP: int(50),
  MAX_LISTENERS_PER_STATION: int(10000),
  VIEWER_COUNT_PER_ADDRESS: int(10),
  RATE_LIMIT_SOCKET_EVENTS_PER_SECOND: z.coerce.number().int().positive().default(10),
  RATE_LIMIT_CHAT_ROOM_PER_SECOND: int(20),
  CHAT_PUSH_INTERVAL_MS: z.coerce.number().int().min(0).max(1000).default(500),
  RTC_ANNOUNCED_ADDRESS: z.string().optional(),
  RTC_PORT_MIN: int(0),
  RTC_PORT_MAX: int(0),
  RTC_UDP_PORT: optionalPort,
  RTC_TCP_PORT: optionalPort,
  ICE_SERVERS: z.string().default('[]'),
  TURN_URLS: z.string().default(''),
  TURN_SECRET: z.string().default(''),
  TURN_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(7 * 86400)
    // Used only for the Allocate right after a join or WHIP/WHEP exchange (README, "TURN").
    .default(600),
  SFU_SHARDS: z.coerce.number().int().nonnegative().optional(),
  SFU_MAX_LISTENERS: z.coerce.number().int().nonnegative().optional(),
  /** The embedded SFU's engine; unset: chosen by engine-choice (werift until mediasoup is ready). */
  MEDIA_ENGINE: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(['werift', 'mediasoup']))
    .optional(),
  PUBLISHER_GRACE_MS: int(10000),
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(1).max(600).default(8),
  SFU_MODE: z.enum(['embedded', 'remote']).default('embedded'),
  SFU_SECRET: z.string().default(''),
  WEB_DIST: z.string().optional(),
  PLAYER_DIST: z.string().optional(),
  APP_STORE_URL: z.string().default('https://apps.apple.com/app/radio-broadcaster'),
  APP_STORE_REVIEW_URL: z
    .string()
    .default('https://apps.apple.com/app/radio-broadcaster?action=write-review'),
  PRESS_KIT_URL: z.string().default('https://drive.example.com/radio-broadcaster-press-kit'),
  DISCORD_URL: z.string().default('https://discord.gg/radio-broadcaster'),
  TRUST_PROXY: bool.default(false),
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, 'comma-separated seconds, e.g. 5,300,1800')
    .default('5,300,1800,7200,18000,36000,36000'),
  WEBHOOK_TIMEOUT_MS: int(10000),
  /** Deprecated alias of OUTBOUND_ALLOW_PRIVATE_NETWORKS (either one set to true allows). */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: bool.default(false),
  OUTBOUND_ALLOW_PRIVATE_NETWORKS: bool.default(false),
  WEBHOOK_LOG_RETENTION_DAYS: int(30),
  STATS_RETENTION_DAYS: int(35),
  STATS_ROLLUP_INTERVAL_MS: int(15000),
  STATS_HEARTBEAT_MS: int(15000),
  RECORDINGS_DIR: z.string().optional(),
  DEMO_STATION: bool.default(true),
  RECORDINGS_S3_BUCKET: z.string().optional(),
  RECORDINGS_S3_ENDPOINT: z.string().url().optional(),
  RECORDINGS_S3_REGION: z.string().default('us-east-1'),
  RECORDINGS_S3_ACCESS_KEY_ID: z.string().optional(),
  RECORDINGS_S3_SECRET_ACCESS_KEY: z.string().optional(),
  RECORDINGS_S3_PREFIX: z.string().default('recordings/'),
  NODE_ENV: z.string().default('development'),
  METRICS_TOKEN: z.string().min(16).optional(),
  API_DOCS: z.enum(['true', 'false', '1', '0']).optional(),
  PASSWORD_SCRYPT: z
    .string()
    .regex(/^\d+,\d+,\d+$/, 'N,r,p, e.g. 16384,8,5')
    .default('16384,8,5'),
  RATE_LIMIT_FOLLOW_PER_HOUR: int(30),
  VAPID_PUBLIC_KEY: z
    .string()
    .regex(/^[A-Za-z0-9_-]{80,100}$/, 'base64url P-256 public key')
    .optional(),
  VAPID_PRIVATE_KEY: z
    .string()
    .regex(/^[A-Za-z0-9_-]{40,50}$/, 'base64url P-256 private key')
    .optional(),
  VAPID_SUBJECT: z.string().optional(),
});

/** The name of every variable the API reads (.env.example and the README list them all). */
export const ENV_NAMES = Object.keys(EnvSchema.shape);

export type AppConfig = ReturnType<typeof loadConfig>;
export type RateLimitName = keyof AppConfig['rateLimits'];

/** Reads and validates the environment into one typed object (the only `process.env` reader). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new StartupError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  if (e.SFU_MODE === 'remote' && !e.REDIS_URL) {
    throw new StartupError(
      'Invalid configuration:\n  SFU_MODE=remote needs REDIS_URL (the SFU node registry)',
    );
  }
  const dataDir = resolve(e.DATA_DIR);
  const extraOrigins = e.TRUSTED_ORIGINS.split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(originOrThrow);
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, '');
  let iceServers: IceServer[];
  try {
    iceServers = z.array(IceServer).parse(JSON.parse(e.ICE_SERVERS));
  } catch {
    throw new StartupError(
      'Invalid configuration:\n  ICE_SERVERS: must be a JSON array of RTCIceServer',
    );
  }
  const turn = turnConfig(e.TURN_URLS, e.TURN_SECRET, e.TURN_TTL_SECONDS);
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl,
    /** Set explicitly, or derived from PORT (then settled by `settleListeningPort` when PORT=0). */
    publicUrlExplicit: e.PUBLIC_URL !== undefined,
    /** Origins of our own pages: PUBLIC_URL (with its loopback spellings), then TRUSTED_ORIGINS. */
    trustedOrigins: trustedOriginsFor(publicUrl, extraOrigins),
    extraOrigins,
    databaseUrl: e.DATABASE_URL,
    dataDir,
    pgliteDir: resolve(dataDir, 'pglite'),
    redisUrl: e.REDIS_URL,
    /** Prefix of every Redis key and channel: REDIS_PREFIX, or its old name EVENT_PREFIX. */
    redisPrefix: e.REDIS_PREFIX ?? e.EVENT_PREFIX ?? 'rb',
    /** On SIGTERM/SIGINT: the longest the process takes to stop before it exits anyway (code 1). */
    shutdownGraceMs: e.SHUTDOWN_GRACE_SECONDS * 1000,
    authSecret: e.AUTH_SECRET ?? persistedSecret(resolve(dataDir, 'auth-secret')),
    sessionTtlMs: e.SESSION_TTL_DAYS * 86_400_000,
    stationTokenTtlSeconds: e.STATION_TOKEN_TTL_SECONDS,
    listenerTokenTtlSeconds: e.LISTENER_TOKEN_TTL_SECONDS,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    supportEmail: e.SUPPORT_EMAIL,
    logLevel: e.LOG_LEVEL,
    /** Every request limit, per client IP unless it says otherwise; `0` turns one off. Routes name theirs with `@RateLimit`. */
    rateLimits: {
      /** sign-in, sign-up, password changes and resets */
      auth: { limit: e.RATE_LIMIT_AUTH_PER_MINUTE, ttlMs: 60_000 },
      /** joinStationAsReceiver and WHEP offers (each counted on its own) */
      listen: { limit: e.RATE_LIMIT_JOIN_PER_MINUTE, ttlMs: 60_000 },
      /** WHIP offers and station token refreshes */
      publish: { limit: e.RATE_LIMIT_PUBLISH_PER_MINUTE, ttlMs: 60_000 },
      /** verification and password-reset mails */
      mail: { limit: e.RATE_LIMIT_MAIL_PER_HOUR, ttlMs: 3_600_000 },
      /** sign-up attempts per client IP, whatever their answer (bounds probing with 409s) */
      signUp: {
        limit: e.RATE_LIMIT_SIGN_UP_PER_IP,
        ttlMs: e.RATE_LIMIT_SIGN_UP_WINDOW_SECONDS * 1000,
      },
      /** sign-up attempts per email address (`signUpAddressKey`), from any IP, whatever their answer */
      signUpAddress: {
        limit: e.RATE_LIMIT_SIGN_UP_PER_ADDRESS,
        ttlMs: e.RATE_LIMIT_SIGN_UP_WINDOW_SECONDS * 1000,
      },
      /** failed Icecast source and /admin/metadata logins (counted by IcecastIngest, no route) */
      source: { limit: e.RATE_LIMIT_SOURCE_AUTH_PER_MINUTE, ttlMs: 60_000 },
      /** private-station password attempts (joins with `password`) per client IP and station */
      stationPassword: { limit: e.RATE_LIMIT_STATION_PASSWORD_PER_MINUTE, ttlMs: 60_000 },
      /** follows, unfollows and guest follow requests (floods would spam owners' webhooks and mailboxes) */
      follow: { limit: e.RATE_LIMIT_FOLLOW_PER_HOUR, ttlMs: 3_600_000 },
    },
    /** How long a private station's listening grant (and the playlist links made from it) lasts. */
    listenGrantTtlSeconds: e.LISTEN_GRANT_TTL_SECONDS,
    /** Per socket.io connection (joins, leaves), counted in the process that holds it. */
    socketRateLimit: {
      eventsPerSecond: e.RATE_LIMIT_SOCKET_EVENTS_PER_SECOND,
      burst: 2 * e.RATE_LIMIT_SOCKET_EVENTS_PER_SECOND,
    },
    /** Chat messages a second in one station's room across every API node (bursts of twice that); `0` turns it off. */
    chatRoomPerSecond: e.RATE_LIMIT_CHAT_ROOM_PER_SECOND,
    /** A busy room's chat pushes and reaction bursts are written to each socket together, at most this often (ms). */
    chatPushIntervalMs: e.CHAT_PUSH_INTERVAL_MS,
    rtc: {
      announcedAddress: e.RTC_ANNOUNCED_ADDRESS,
      portRange:
        e.RTC_PORT_MIN && e.RTC_PORT_MAX ? { min: e.RTC_PORT_MIN, max: e.RTC_PORT_MAX } : undefined,
      /** One UDP (and TCP) port for every WebRTC session of the embedded SFU; unset: a socket per session. */
      udpPort: e.RTC_UDP_PORT,
      tcpPort: e.RTC_TCP_PORT,
      iceServers,
      /** TURN relays whose credentials are minted per caller (REST shared secret), or null. */
      turn,
      shards: e.SFU_SHARDS,
      /** undefined: the engine's default for its shard count; 0: no limit. */
      maxListeners: e.SFU_MAX_LISTENERS,
      engine: e.MEDIA_ENGINE,
      /** Listening sessions per client IP and per station, across the cluster (0: no cap). */
      listenerCaps: { perIp: e.MAX_LISTENERS_PER_IP, perStation: e.MAX_LISTENERS_PER_STATION },
      /** Listening connections one address (IPv4, IPv6 /64) adds to viewerCount at most (0: all). */
      viewerCountPerAddress: e.VIEWER_COUNT_PER_ADDRESS,
      publisherGraceMs: e.PUBLISHER_GRACE_MS,
    },
    sfu: {
      /** 'embedded': the engine runs inside this process; 'remote': SFU nodes found in Redis. */
      mode: e.SFU_MODE,
      secret: e.SFU_SECRET,
    },
    webDist: resolve(e.WEB_DIST ?? resolve(REPO_ROOT, 'web/dist')),
    playerDist: resolve(e.PLAYER_DIST ?? resolve(REPO_ROOT, 'libs/player/dist')),
    redirects: {
      '/app-store': e.APP_STORE_URL,
      '/appstore': e.APP_STORE_URL,
      '/review': e.APP_STORE_REVIEW_URL,
      '/press': e.PRESS_KIT_URL,
      '/discord': e.DISCORD_URL,
    } as Record<string, string>,
    trustProxy: e.TRUST_PROXY,
    /**
     * Connections made on a user's behalf (relays, title updates, webhooks): private and reserved
     * addresses are refused unless the operator allows them (development, a LAN deployment).
     * `lookup` resolves names (tests inject their own DNS); the policy filters what it answers.
     */
    outbound: {
      allowPrivateNetworks: e.OUTBOUND_ALLOW_PRIVATE_NETWORKS || e.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      lookup: undefined as LookupFunction | undefined,
    },
    webhooks: {
      /** Seconds to wait before each retry; the first attempt is immediate. */
      retrySchedule: e.WEBHOOK_RETRY_SCHEDULE.split(',').map((s) => Number(s.trim())),
      timeoutMs: e.WEBHOOK_TIMEOUT_MS || 10000,
      logRetentionDays: e.WEBHOOK_LOG_RETENTION_DAYS,
    },
    recordings: {
      /** Ogg/Opus files, `{stationId}/{recordingId}.ogg`. */
      dir: resolve(e.RECORDINGS_DIR ?? resolve(dataDir, 'recordings')),
      /** An S3-compatible bucket finished recordings move to (the directory stages them), or null. */
      s3: e.RECORDINGS_S3_BUCKET
        ? {
            bucket: e.RECORDINGS_S3_BUCKET,
            endpoint: e.RECORDINGS_S3_ENDPOINT,
            region: e.RECORDINGS_S3_REGION,
            /** Unset: the AWS SDK's own chain (AWS_* variables, profiles, instance roles). */
            credentials:
              e.RECORDINGS_S3_ACCESS_KEY_ID && e.RECORDINGS_S3_SECRET_ACCESS_KEY
                ? {
                    accessKeyId: e.RECORDINGS_S3_ACCESS_KEY_ID,
                    secretAccessKey: e.RECORDINGS_S3_SECRET_ACCESS_KEY,
                  }
                : undefined,
            prefix: e.RECORDINGS_S3_PREFIX,
          }
        : null,
    },
    stats: {
      /** Raw sessions and minute rollups are kept this long; hourly rollups for good. */
      retentionDays: Math.max(1, e.STATS_RETENTION_DAYS),
      rollupIntervalMs: Math.max(200, e.STATS_ROLLUP_INTERVAL_MS),
      /** A node's listening sessions end at its last beat once it misses three. */
      heartbeatMs: Math.max(200, e.STATS_HEARTBEAT_MS),
    },
    /** The server publishes the demo station (/radiobroadcaster/demo) itself. */
    demoStation: e.DEMO_STATION,
    passwordScrypt: scryptCost(e.PASSWORD_SCRYPT),
    metricsToken: e.METRICS_TOKEN,
    /** The OpenAPI page at /api/docs: on unless NODE_ENV=production, or as API_DOCS says. */
    apiDocs: e.API_DOCS ? e.API_DOCS === 'true' || e.API_DOCS === '1' : e.NODE_ENV !== 'production',
    /** Web Push (VAPID): the same keys on every node, or null (followers get e-mail only). */
    vapid: vapidConfig(e.VAPID_PUBLIC_KEY, e.VAPID_PRIVATE_KEY, e.VAPID_SUBJECT, e.SUPPORT_EMAIL),
  };
}

function vapidConfig(
  publicKey: string | undefined,
  privateKey: string | undefined,
  subject: string | undefined,
  supportEmail: string,
): { publicKey: string; privateKey: string; subject: string } | null {
  if (!publicKey && !privateKey) return null;
  if (!publicKey || !privateKey) {
    throw new StartupError(
      'Invalid configuration:\n  VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY: both or neither',
    );
  }
  const s = subject ?? `mailto:${supportEmail}`;
  if (!/^(mailto:|https:\/\/)/.test(s)) {
    throw new StartupError('Invalid configuration:\n  VAPID_SUBJECT: a mailto: or https: URL');
  }
  return { publicKey, privateKey, subject: s };
}

/** `N,r,p`: N a power of two from 1024, r 1–32, p 1–16 (what stored hashes may use). */
function scryptCost(value: string): { N: number; r: number; p: number } {
  const [N, r, p] = value.split(',').map(Number) as [number, number, number];
  if (N < 1024 || N > 1 << 20 || (N & (N - 1)) !== 0 || r < 1 || r > 32 || p < 1 || p > 16) {
    throw new StartupError(
      `Invalid configuration:\n  PASSWORD_SCRYPT: N must be a power of two from 1024 to 2^20, r 1-32, p 1-16`,
    );
  }
  return { N, r, p };
}

/**
 * With PORT=0 (any free port) and no PUBLIC_URL, the public URL is known only once the server
 * listens: point it, and the trusted origins, at the port it got.
 */
export function settleListeningPort(config: AppConfig, port: number): void {
  if (config.port !== 0 || config.publicUrlExplicit) return;
  config.publicUrl = `http://localhost:${port}`;
  config.trustedOrigins = trustedOriginsFor(config.publicUrl, config.extraOrigins);
}

function trustedOriginsFor(publicUrl: string, extra: string[]): string[] {
  return [...new Set([...withLoopbackAliases(new URL(publicUrl).origin), ...extra])];
}

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/** `http://localhost:3000` is the same server as `http://127.0.0.1:3000`: trust every spelling. */
function withLoopbackAliases(origin: string): string[] {
  const u = new URL(origin);
  if (!LOOPBACK.includes(u.hostname)) return [origin];
  return [origin, ...LOOPBACK.map((h) => `${u.protocol}//${h}${u.port ? `:${u.port}` : ''}`)];
}

function originOrThrow(value: string): string {
  try {
    return new URL(value).origin;
  } catch {
    throw new StartupError(`Invalid configuration:\n  TRUSTED_ORIGINS: '${value}' is not a URL`);
  }
}

/** TURN_URLS + TURN_SECRET: both or neither; every URL a `turn:` or `turns:` URL. */
function turnConfig(urlList: string, secret: string, ttlSeconds: number): TurnConfig | null {
  const urls = urlList
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  if (urls.length === 0 && !secret) return null;
  const bad = urls.filter((u) => !TURN_URL.test(u));
  const problems = [
    ...bad.map((u) => `TURN_URLS: not a turn:/turns: URL: ${u}`),
    ...(urls.length === 0 ? ['TURN_URLS: needed with TURN_SECRET'] : []),
    ...(secret.length < 16 ? ['TURN_SECRET: at least 16 characters, the same as the relay'] : []),
  ];
  if (problems.length) throw new StartupError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  return { urls, secret, ttlSeconds };
}

/** One random secret per data directory, so sessions survive restarts of the embedded setup. */
function persistedSecret(file: string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dirname(file), { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

export const APP_CONFIG = Symbol('APP_CONFIG');
