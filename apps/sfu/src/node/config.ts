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
  /** One UDP port for every WebRTC session of the node (RTC_UDP_PORT); unset: a socket per session. */
  udpPort?: number;
  /** ICE-TCP passive candidates on this port (RTC_TCP_PORT), with RTC_UDP_PORT. */
  tcpPort?: number;
  iceServers: IceServerConfig[];
  shards?: number;
  maxListeners?: number;
  /** MEDIA_ENGINE: werift | mediasoup; unset: engine-choice decides. */
  mediaEngine?: string;
  nodeTtlMs: number;
  publisherWeight: number;
  relayLingerMs: number;
  /** On SIGTERM, how long a publisher on the node is kept before the node exits anyway (ms). */
  drainTimeoutMs: number;
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
  const udpPort = env.RTC_UDP_PORT ? int(env, 'RTC_UDP_PORT', 0) : undefined;
  const tcpPort = env.RTC_TCP_PORT ? int(env, 'RTC_TCP_PORT', 0) : undefined;
  if (tcpPort !== undefined && udpPort === undefined) {
    throw new Error('RTC_TCP_PORT needs RTC_UDP_PORT (ICE-TCP is served by the one-port mux)');
  }
  const portMin = int(env, 'RTC_PORT_MIN', 0);
  const portMax = int(env, 'RTC_PORT_MAX', 0);
  return {
    nodeId: env.SFU_NODE_ID || `${hostname()}-${randomBytes(3).toString('hex')}`,
    redisUrl,
    prefix: env.REDIS_PREFIX || env.EVENT_PREFIX || 'rb',
    httpHost,
    httpPort: int(env, 'SFU_HTTP_PORT', 4000),
    internalUrl: env.SFU_INTERNAL_URL?.replace(/\/$/, '') || undefined,
    secret,
    announcedAddress: env.RTC_ANNOUNCED_ADDRESS || undefined,
    portRange: portMin && portMax ? { min: portMin, max: portMax } : undefined,
    udpPort,
    tcpPort,
    iceServers,
    shards: env.SFU_SHARDS ? int(env, 'SFU_SHARDS', 0) : undefined,
    // unset: the engine's default for its shard count; 0: no limit
    maxListeners: env.SFU_MAX_LISTENERS ? int(env, 'SFU_MAX_LISTENERS', 0) : undefined,
    /** werift | mediasoup; unset: engine-choice decides (checked there). */
    mediaEngine: env.MEDIA_ENGINE || undefined,
    nodeTtlMs: Math.max(1000, int(env, 'SFU_NODE_TTL_MS', 5000)),
    publisherWeight: int(env, 'SFU_PUBLISHER_WEIGHT', 20),
    relayLingerMs: int(env, 'SFU_RELAY_LINGER_MS', 2000),
    drainTimeoutMs: int(env, 'SFU_DRAIN_TIMEOUT_SECONDS', 25) * 1000,
  };
}
