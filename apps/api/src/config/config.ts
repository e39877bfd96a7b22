import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** The repository root, from `apps/api/{src,dist}/config/`. */
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

const bool = z.enum(['true', 'false', '1', '0', '']).transform((v) => v === 'true' || v === '1');
const int = (def: number) => z.coerce.number().int().nonnegative().default(def);

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
  EVENT_PREFIX: z.string().default('rb'),
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
  RTC_ANNOUNCED_ADDRESS: z.string().optional(),
  RTC_PORT_MIN: int(0),
  RTC_PORT_MAX: int(0),
  ICE_SERVERS: z.string().default('[]'),
  SFU_SHARDS: z.coerce.number().int().nonnegative().optional(),
  SFU_MAX_LISTENERS: int(0),
  PUBLISHER_GRACE_MS: int(10000),
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
});

export type AppConfig = ReturnType<typeof loadConfig>;

/** Reads and validates the environment into one typed object (the only `process.env` reader). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  if (e.SFU_MODE === 'remote' && !e.REDIS_URL) {
    throw new Error(
      'Invalid configuration:\n  SFU_MODE=remote needs REDIS_URL (the SFU node registry)',
    );
  }
  const dataDir = resolve(e.DATA_DIR);
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, '');
  let iceServers: { urls: string | string[]; username?: string; credential?: string }[];
  try {
    iceServers = z
      .array(
        z.object({
          urls: z.union([z.string(), z.array(z.string())]),
          username: z.string().optional(),
          credential: z.string().optional(),
        }),
      )
      .parse(JSON.parse(e.ICE_SERVERS));
  } catch {
    throw new Error('Invalid configuration:\n  ICE_SERVERS: must be a JSON array of RTCIceServer');
  }
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl,
    trustedOrigins: [
      new URL(publicUrl).origin,
      ...e.TRUSTED_ORIGINS.split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ],
    databaseUrl: e.DATABASE_URL,
    dataDir,
    pgliteDir: resolve(dataDir, 'pglite'),
    redisUrl: e.REDIS_URL,
    eventPrefix: e.EVENT_PREFIX,
    authSecret: e.AUTH_SECRET ?? persistedSecret(resolve(dataDir, 'auth-secret')),
    sessionTtlMs: e.SESSION_TTL_DAYS * 86_400_000,
    stationTokenTtlSeconds: e.STATION_TOKEN_TTL_SECONDS,
    listenerTokenTtlSeconds: e.LISTENER_TOKEN_TTL_SECONDS,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    supportEmail: e.SUPPORT_EMAIL,
    logLevel: e.LOG_LEVEL,
    rateLimit: {
      authPerMinute: e.RATE_LIMIT_AUTH_PER_MINUTE,
      joinPerMinute: e.RATE_LIMIT_JOIN_PER_MINUTE,
    },
    rtc: {
      announcedAddress: e.RTC_ANNOUNCED_ADDRESS,
      portRange:
        e.RTC_PORT_MIN && e.RTC_PORT_MAX ? { min: e.RTC_PORT_MIN, max: e.RTC_PORT_MAX } : undefined,
      iceServers,
      shards: e.SFU_SHARDS,
      maxListeners: e.SFU_MAX_LISTENERS || undefined,
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
  };
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
