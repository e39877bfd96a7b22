/** Environment of a standalone SFU node (`npm run start:sfu`). Documented in the README's table. */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { IceServerConfig } from '../media-engine.js';

export interface SfuNodeConfig {
  nodeId: string;
  redisUrl: string;
  prefix: string;
  httpHost: string;
  /** 0 = any free port (tests); the registered URL uses the bound port. */
  httpPort: number;
  /** Advertised internal URL; default http://{host}:{port} (hostname when bound to 0.0.0.0). */
  internalUrl?: string;
  secret: string;
  announcedAddress?: string;
  portRange?: { min: number; max: number };
  iceServers: IceServerConfig[];
  shards?: number;
  maxListeners?: number;
  nodeTtlMs: number;
  publisherWeight: number;
  relayLingerMs: number;
}

function int(env: NodeJS.ProcessEnv, name: string, def: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer`);
  return n;
}

export function loadSfuNodeConfig(env: NodeJS.ProcessEnv = process.env): SfuNodeConfig {
  const redisUrl = env.REDIS_URL;
  if (!redisUrl) throw new Error('REDIS_URL is required for an SFU node');
  const httpHost = env.SFU_HTTP_HOST || '0.0.0.0';
  const secret = env.SFU_SECRET ?? '';
  const loopback = httpHost === '127.0.0.1' || httpHost === 'localhost' || httpHost === '::1';
  if (!secret && !loopback) {
    throw new Error('SFU_SECRET is required when the internal API is not bound to loopback');
  }
  let iceServers: IceServerConfig[] = [];
  try {
    iceServers = JSON.parse(env.ICE_SERVERS || '[]') as IceServerConfig[];
    if (!Array.isArray(iceServers)) throw new Error();
  } catch {
    throw new Error('ICE_SERVERS must be a JSON array of RTCIceServer');
  }
  const portMin = int(env, 'RTC_PORT_MIN', 0);
  const portMax = int(env, 'RTC_PORT_MAX', 0);
  const maxListeners = int(env, 'SFU_MAX_LISTENERS', 0);
  return {
    nodeId: env.SFU_NODE_ID || `${hostname()}-${randomBytes(3).toString('hex')}`,
    redisUrl,
    prefix: env.EVENT_PREFIX || 'rb',
    httpHost,
    httpPort: int(env, 'SFU_HTTP_PORT', 4000),
    internalUrl: env.SFU_INTERNAL_URL?.replace(/\/$/, '') || undefined,
    secret,
    announcedAddress: env.RTC_ANNOUNCED_ADDRESS || undefined,
    portRange: portMin && portMax ? { min: portMin, max: portMax } : undefined,
    iceServers,
    shards: env.SFU_SHARDS ? int(env, 'SFU_SHARDS', 0) : undefined,
    maxListeners: maxListeners || undefined,
    nodeTtlMs: Math.max(1000, int(env, 'SFU_NODE_TTL_MS', 5000)),
    publisherWeight: int(env, 'SFU_PUBLISHER_WEIGHT', 20),
    relayLingerMs: int(env, 'SFU_RELAY_LINGER_MS', 2000),
  };
}
