/**
 * A standalone SFU node: the werift engine behind a small internal HTTP API, registered in Redis
 * with its load, publishing its engine's events on Redis, pulling stations from their origin node
 * (relay) when it has listeners for a station whose publisher is elsewhere.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { Redis } from 'ioredis';
import { CapacityError, SdpError, type EngineEvent, type MediaEngine } from '../media-engine.js';
import type { PeerSettings } from '../werift-config.js';
import { SfuNodeClient } from './client.js';
import type { SfuNodeConfig } from './config.js';
import {
  SFU_SECRET_HEADER,
  sfuKeys,
  type AddListenerRequest,
  type NodeEventBody,
  type NodeInfo,
  type PublishRequest,
  type RestartIceRequest,
  type SessionRequest,
  type StationRequest,
} from './protocol.js';
import { Relay } from './relay.js';

const MAX_BODY = 256 * 1024;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly tag: string,
    message: string,
  ) {
    super(message);
  }
}

export class SfuNode {
  readonly id: string;
  url = '';
  private server?: Server;
  private readonly redis: Redis;
  private readonly keys: ReturnType<typeof sfuKeys>;
  private readonly startedAt = Date.now();
  private heartbeat?: NodeJS.Timeout;
  private closed = false;
  /** stationId -> publisher session (real publishers only). */
  private readonly publishers = new Map<string, string>();
  /** stationId -> audience listener sessions on this node (pending or connected). */
  private readonly audience = new Map<string, Set<string>>();
  /** Relay legs this node serves to edges: sessionId -> stationId. */
  private readonly servedLegs = new Map<string, string>();
  /** Relays this node pulls (edge side), by station. */
  private readonly relays = new Map<string, Relay>();
  private readonly relayStarts = new Map<string, Promise<Relay>>();
  private readonly lingerTimers = new Map<string, NodeJS.Timeout>();
  private readonly countTimers = new Map<string, NodeJS.Timeout>();
  private readonly published = new Map<string, number>();
  private readonly clients = new Map<string, SfuNodeClient>();
  private readonly offEngine: () => void;

  constructor(
    private readonly engine: MediaEngine,
    private readonly cfg: SfuNodeConfig,
  ) {
    this.id = cfg.nodeId;
    this.keys = sfuKeys(cfg.prefix);
    this.redis = new Redis(cfg.redisUrl, { maxRetriesPerRequest: 2 });
    this.redis.on('error', (err: Error) => console.warn(`[sfu-node] redis: ${err.message}`));
    this.offEngine = engine.on((e) => this.onEngineEvent(e));
  }

  private get settings(): PeerSettings {
    return {
      announcedAddress: this.cfg.announcedAddress,
      portRange: this.cfg.portRange,
      iceServers: this.cfg.iceServers,
    };
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => void this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.cfg.httpPort, this.cfg.httpHost, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const host =
      this.cfg.httpHost === '0.0.0.0' || this.cfg.httpHost === '::'
        ? hostname()
        : this.cfg.httpHost;
    this.url = this.cfg.internalUrl ?? `http://${host}:${port}`;
    await this.register();
    const every = Math.max(250, Math.floor(this.cfg.nodeTtlMs / 4));
    this.heartbeat = setInterval(() => void this.tick(), every);
    await this.emit({ type: 'node-up' });
  }

  // ---------------------------------------------------------------- registry

  info(): NodeInfo {
    const stations: Record<string, number> = {};
    let listeners = 0;
    for (const stationId of this.stationIds()) {
      const n = this.audienceCount(stationId);
      if (n > 0) {
        stations[stationId] = n;
        listeners += n;
      }
    }
    const relayLegs = this.servedLegs.size;
    return {
      id: this.id,
      url: this.url,
      startedAt: this.startedAt,
      at: Date.now(),
      listeners,
      publishers: this.publishers.size,
      relays: this.relays.size,
      relayLegs,
      load: listeners + relayLegs + this.publishers.size * this.cfg.publisherWeight,
      maxListeners: this.cfg.maxListeners ?? null,
      stations,
    };
  }

  private stationIds(): Set<string> {
    return new Set([
      ...this.audience.keys(),
      ...this.servedLegs.values(),
      ...this.published.keys(),
    ]);
  }

  /** Connected listeners of the station on this engine, minus the relay legs served to edges. */
  private audienceCount(stationId: string): number {
    let legs = 0;
    for (const s of this.servedLegs.values()) if (s === stationId) legs++;
    return Math.max(0, this.engine.listenerCount(stationId) - legs);
  }

  private async register(): Promise<void> {
    await this.redis
      .multi()
      .set(this.keys.node(this.id), JSON.stringify(this.info()), 'PX', this.cfg.nodeTtlMs)
      .sadd(this.keys.nodes, this.id)
      .exec();
  }

  private async tick(): Promise<void> {
    if (this.closed) return;
    try {
      await this.register();
      await this.checkRelayOrigins();
    } catch (err) {
      console.warn(`[sfu-node] heartbeat: ${(err as Error).message}`);
    }
  }

  /** A relay whose station moved to another origin (or whose in-leg broke) is rebuilt. */
  private async checkRelayOrigins(): Promise<void> {
    for (const [stationId, relay] of this.relays) {
      const origin = await this.redis.get(this.keys.origin(stationId));
      if (!origin) continue;
      const moved = origin !== relay.origin.nodeId;
      if (!moved && relay.state !== 'broken') continue;
      const raw = await this.redis.get(this.keys.node(origin));
      if (!raw) continue;
      const info = JSON.parse(raw) as NodeInfo;
      console.warn(`[sfu-node] relay ${stationId}: rebuilding from ${origin}`);
      await this.dropRelay(stationId);
      if (origin === this.id || (this.audience.get(stationId)?.size ?? 0) === 0) continue;
      await this.ensureRelay(stationId, { nodeId: origin, url: info.url }).catch((err) =>
        console.warn(`[sfu-node] relay ${stationId}: ${(err as Error).message}`),
      );
    }
  }

  private async emit(body: NodeEventBody): Promise<void> {
    try {
      await this.redis.publish(this.keys.events, JSON.stringify({ ...body, node: this.id }));
    } catch (err) {
      console.warn(`[sfu-node] event ${body.type}: ${(err as Error).message}`);
    }
  }

  // ---------------------------------------------------------------- engine events

  private isRelayOut(stationId: string, sessionId: string): Relay | undefined {
    const r = this.relays.get(stationId);
    return r && r.outSessionId === sessionId ? r : undefined;
  }

  private onEngineEvent(e: EngineEvent): void {
    switch (e.type) {
      case 'publisher-media':
        if (this.publishers.get(e.stationId) === e.sessionId) void this.emit(e);
        break;
      case 'publisher-gone': {
        const relay = this.isRelayOut(e.stationId, e.sessionId);
        if (relay) {
          relay.outGone(e.sessionId);
          break;
        }
        if (this.publishers.get(e.stationId) === e.sessionId) {
          this.publishers.delete(e.stationId);
          void this.emit(e);
        }
        break;
      }
      case 'listeners':
        this.scheduleCount(e.stationId);
        break;
      case 'listener-gone':
        if (this.servedLegs.delete(e.sessionId)) {
          this.scheduleCount(e.stationId);
          break;
        }
        if (this.dropAudience(e.stationId, e.sessionId)) void this.emit(e);
        break;
    }
  }

  /** Coalesced: publish the station's audience count on this node when it changed. */
  private scheduleCount(stationId: string): void {
    if (this.countTimers.has(stationId)) return;
    this.countTimers.set(
      stationId,
      setTimeout(() => {
        this.countTimers.delete(stationId);
        const n = this.audienceCount(stationId);
        if (n === (this.published.get(stationId) ?? 0)) return;
        if (n === 0) this.published.delete(stationId);
        else this.published.set(stationId, n);
        void this.emit({ type: 'listeners', stationId, count: n });
      }, 50),
    );
  }

  private dropAudience(stationId: string, sessionId: string): boolean {
    const set = this.audience.get(stationId);
    if (!set?.delete(sessionId)) return false;
    if (set.size === 0) {
      this.audience.delete(stationId);
      this.scheduleRelayTeardown(stationId);
    }
    this.scheduleCount(stationId);
    return true;
  }

  // ---------------------------------------------------------------- relays (edge side)

  private client(url: string): SfuNodeClient {
    let c = this.clients.get(url);
    if (!c) {
      c = new SfuNodeClient(url, this.cfg.secret);
      this.clients.set(url, c);
    }
    return c;
  }

  private ensureRelay(stationId: string, origin: { nodeId: string; url: string }): Promise<Relay> {
    const existing = this.relays.get(stationId);
    if (existing && existing.state !== 'closed' && existing.origin.nodeId === origin.nodeId)
      return Promise.resolve(existing);
    const starting = this.relayStarts.get(stationId);
    if (starting) return starting;
    const p = (async () => {
      if (existing) await this.dropRelay(stationId);
      const relay = new Relay({
        engine: this.engine,
        settings: this.settings,
        stationId,
        origin,
        originClient: this.client(origin.url),
        selfId: this.id,
        onBroken: (r, why) => {
          console.warn(`[sfu-node] relay ${stationId} from ${r.origin.nodeId}: ${why}`);
        },
      });
      // Registered before start so its out-leg's engine events are recognised.
      this.relays.set(stationId, relay);
      try {
        await relay.start();
      } catch (err) {
        if (this.relays.get(stationId) === relay) this.relays.delete(stationId);
        throw err;
      }
      return relay;
    })().finally(() => this.relayStarts.delete(stationId));
    this.relayStarts.set(stationId, p);
    return p;
  }

  private async dropRelay(stationId: string): Promise<void> {
    const relay = this.relays.get(stationId);
    if (!relay) return;
    this.relays.delete(stationId);
    await relay.close();
  }

  private scheduleRelayTeardown(stationId: string): void {
    if (!this.relays.has(stationId) || this.lingerTimers.has(stationId)) return;
    this.lingerTimers.set(
      stationId,
      setTimeout(() => {
        this.lingerTimers.delete(stationId);
        if ((this.audience.get(stationId)?.size ?? 0) > 0) return;
        void this.dropRelay(stationId);
      }, this.cfg.relayLingerMs),
    );
  }

  private cancelRelayTeardown(stationId: string): void {
    const t = this.lingerTimers.get(stationId);
    if (t) clearTimeout(t);
    this.lingerTimers.delete(stationId);
  }

  // ---------------------------------------------------------------- operations

  async publish(req: PublishRequest): Promise<{ sessionId: string; answerSdp: string }> {
    // This node becomes the station's origin: a relay it pulled for the station goes away
    // (its listeners stay connected and continue on the new publisher).
    if (this.relays.has(req.stationId)) await this.dropRelay(req.stationId);
    const answer = await this.engine.publish(req.stationId, req.offer);
    this.publishers.set(req.stationId, answer.sessionId);
    return answer;
  }

  async unpublish(req: SessionRequest): Promise<boolean> {
    if (this.publishers.get(req.stationId) !== req.sessionId) return false;
    return this.engine.unpublish(req.stationId, req.sessionId);
  }

  async addListener(req: AddListenerRequest): Promise<{ sessionId: string; answerSdp: string }> {
    const { stationId } = req;
    if (req.relay) {
      const answer = await this.engine.addListener(stationId, req.offer);
      this.servedLegs.set(answer.sessionId, stationId);
      return answer;
    }
    this.cancelRelayTeardown(stationId);
    if (req.origin && req.origin.nodeId !== this.id && !this.publishers.has(stationId)) {
      try {
        await this.ensureRelay(stationId, req.origin);
      } catch (err) {
        throw new HttpError(502, 'RelayError', `relay from ${req.origin.nodeId}: ${err}`);
      }
    }
    const answer = await this.engine.addListener(stationId, req.offer);
    let set = this.audience.get(stationId);
    if (!set) this.audience.set(stationId, (set = new Set()));
    set.add(answer.sessionId);
    this.cancelRelayTeardown(stationId);
    return answer;
  }

  async removeListener(req: SessionRequest): Promise<boolean> {
    const ok = await this.engine.removeListener(req.stationId, req.sessionId);
    if (this.servedLegs.delete(req.sessionId)) this.scheduleCount(req.stationId);
    else this.dropAudience(req.stationId, req.sessionId);
    return ok;
  }

  async closeStation(req: StationRequest): Promise<void> {
    this.cancelRelayTeardown(req.stationId);
    await this.dropRelay(req.stationId);
    this.audience.delete(req.stationId);
    for (const [s, st] of this.servedLegs) if (st === req.stationId) this.servedLegs.delete(s);
    await this.engine.closeStation(req.stationId);
    this.publishers.delete(req.stationId);
    this.scheduleCount(req.stationId);
  }

  // ---------------------------------------------------------------- HTTP

  private authorized(req: IncomingMessage): boolean {
    const got = Buffer.from(String(req.headers[SFU_SECRET_HEADER] ?? ''));
    const want = Buffer.from(this.cfg.secret);
    return got.length === want.length && timingSafeEqual(got, want);
  }

  private async body<T>(req: IncomingMessage): Promise<T> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY) throw new HttpError(413, 'Error', 'body too large');
      chunks.push(chunk as Buffer);
    }
    try {
      const v = JSON.parse(Buffer.concat(chunks).toString('utf8')) as T;
      if (!v || typeof v !== 'object') throw new Error();
      return v;
    } catch {
      throw new HttpError(400, 'Error', 'body must be a JSON object');
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, value: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    try {
      if (req.url === '/health' && req.method === 'GET') return send(200, { status: 'ok' });
      if (!this.authorized(req)) throw new HttpError(401, 'Unauthorized', 'bad or missing secret');
      const route = `${req.method} ${req.url}`;
      switch (route) {
        case 'GET /v1/info':
          return send(200, this.info());
        case 'POST /v1/publish':
          return send(200, await this.publish(await this.body<PublishRequest>(req)));
        case 'POST /v1/unpublish':
          return send(200, { ok: await this.unpublish(await this.body<SessionRequest>(req)) });
        case 'POST /v1/listeners':
          return send(200, await this.addListener(await this.body<AddListenerRequest>(req)));
        case 'POST /v1/listeners/remove':
          return send(200, { ok: await this.removeListener(await this.body<SessionRequest>(req)) });
        case 'POST /v1/restart-ice': {
          const b = await this.body<RestartIceRequest>(req);
          const answerSdp = this.engine.restartIce
            ? await this.engine.restartIce(b.stationId, b.sessionId, b.offer)
            : null;
          return send(200, { answerSdp });
        }
        case 'POST /v1/close-station':
          await this.closeStation(await this.body<StationRequest>(req));
          return send(200, { ok: true });
        default:
          throw new HttpError(404, 'NotFound', `no route ${route}`);
      }
    } catch (err) {
      if (err instanceof HttpError)
        return send(err.status, { error: err.tag, message: err.message });
      if (err instanceof SdpError) return send(400, { error: 'SdpError', message: err.message });
      if (err instanceof CapacityError)
        return send(503, { error: 'CapacityError', message: err.message });
      console.error('[sfu-node] request failed', err);
      return send(500, { error: 'Error', message: (err as Error)?.message ?? String(err) });
    }
  }

  // ---------------------------------------------------------------- shutdown

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    for (const t of [...this.lingerTimers.values(), ...this.countTimers.values()]) clearTimeout(t);
    this.offEngine();
    await Promise.all([...this.relays.keys()].map((s) => this.dropRelay(s)));
    await this.emit({ type: 'node-down' });
    await this.redis
      .multi()
      .del(this.keys.node(this.id))
      .srem(this.keys.nodes, this.id)
      .exec()
      .catch(() => undefined);
    const server = this.server;
    if (server) {
      const done = new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await done;
    }
    this.redis.disconnect();
  }
}
