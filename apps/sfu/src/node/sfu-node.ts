/**
 * A standalone SFU node: the werift engine behind a small internal HTTP API, registered in Redis
 * with its load, publishing its engine's events on Redis, pulling stations from their origin node
 * (relay) when it has listeners for a station whose publisher is elsewhere.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { Redis } from 'ioredis';
import type { EngineEvent, MediaEngine, SessionAnswer } from '../media-engine.js';
import { SfuNodeClient } from '../protocol/client.js';
import { encodeFrame, FrameReader } from '../protocol/packet-frames.js';
import { mediaKeys, type MediaKeys } from '../protocol/keys.js';
import {
  NodeInfo,
  type AddListenerRequest,
  type NodeEventBody,
  type NodeRef,
} from '../protocol/schemas.js';
import type { PeerSettings } from '../werift/werift-config.js';
import type { SfuNodeConfig } from './config.js';
import { createNodeHttpServer, NodeHttpError } from './node-http.js';
import { Relay } from './relay.js';

type SessionRequest = { stationId: string; sessionId: string };

export class SfuNode {
  readonly id: string;
  url = '';
  private server?: Server;
  private readonly redis: Redis;
  private readonly keys: MediaKeys;
  private readonly startedAt = Date.now();
  private heartbeat?: NodeJS.Timeout;
  private closed = false;
  private draining = false;
  /** stationId -> publisher session whose media flows (real publishers only). */
  private readonly publishers = new Map<string, string>();
  /** Publishers opened here that have not sent media yet (they take over when they do): sessionId -> stationId. */
  private readonly waiting = new Map<string, string>();
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
    this.keys = mediaKeys(cfg.prefix);
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
    const server = createNodeHttpServer(
      this.cfg.secret,
      {
        info: () => this.info(),
        publish: (b) => this.publish(b),
        unpublish: async (b) => ({ ok: await this.unpublish(b) }),
        addListener: (b) => this.addListener(b),
        removeListener: async (b) => ({ ok: await this.removeListener(b) }),
        closeStation: async (b) => {
          await this.closeStation(b.stationId);
          return { ok: true };
        },
      },
      {
        publishPackets: (p, req, res) => this.publishPackets(p.stationId, req, res),
        tap: (p, req, res) => this.tapStream(p.stationId, req, res),
      },
    );
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
      publishers: this.publisherCount,
      relays: this.relays.size,
      relayLegs,
      load: listeners + relayLegs + this.publisherCount * this.cfg.publisherWeight,
      maxListeners: this.engine.stats().maxListeners,
      stations,
      ...(this.draining ? { draining: true } : {}),
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
      const info = NodeInfo.parse(JSON.parse(raw));
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

  /** Publishers on this node: live ones and those waiting for their first media. */
  private get publisherCount(): number {
    return this.publishers.size + this.waiting.size;
  }

  private onEngineEvent(e: EngineEvent): void {
    switch (e.type) {
      case 'publisher-media':
        if (this.waiting.get(e.sessionId) === e.stationId) {
          this.waiting.delete(e.sessionId);
          this.publishers.set(e.stationId, e.sessionId);
        }
        if (this.publishers.get(e.stationId) === e.sessionId) void this.emit(e);
        break;
      case 'publisher-gone': {
        const relay = this.isRelayOut(e.stationId, e.sessionId);
        if (relay) {
          relay.outGone(e.sessionId);
          break;
        }
        if (this.waiting.get(e.sessionId) === e.stationId) {
          this.waiting.delete(e.sessionId);
          void this.emit(e);
        } else if (this.publishers.get(e.stationId) === e.sessionId) {
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
      case 'resync':
        break; // the node's own engine is in this process: nothing to re-check
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

  private ensureRelay(stationId: string, origin: NodeRef): Promise<Relay> {
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

  /** While draining, a new session belongs on another node. */
  private refuseWhileDraining(): void {
    if (!this.draining) return;
    throw new NodeHttpError(503, 'Draining', `SFU node ${this.id} is shutting down`, {
      'Retry-After': '1',
    });
  }

  async publish(req: { stationId: string; offer: string }): Promise<SessionAnswer> {
    this.refuseWhileDraining();
    // This node becomes the station's origin: a relay it pulled for the station goes away
    // (its listeners stay connected and continue on the new publisher).
    if (this.relays.has(req.stationId)) await this.dropRelay(req.stationId);
    const answer = await this.engine.publish(req.stationId, req.offer);
    this.waiting.set(answer.sessionId, req.stationId);
    return answer;
  }

  /** A packet publisher fed by the request body; it ends when either side closes. */
  async publishPackets(
    stationId: string,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    this.refuseWhileDraining();
    if (this.relays.has(stationId)) await this.dropRelay(stationId);
    const pub = await this.engine.publishPackets(stationId);
    this.waiting.set(pub.sessionId, stationId);
    res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
    res.write(`${JSON.stringify({ sessionId: pub.sessionId })}\n`);
    const reader = new FrameReader();
    let done = false;
    const stop = () => {
      if (done) return;
      done = true;
      void pub.close();
    };
    req.on('data', (chunk: Buffer) => {
      try {
        for (const f of reader.push(chunk)) pub.push(f.payload, f.samples);
      } catch (err) {
        console.warn(`[sfu-node] packet publisher ${stationId}: ${(err as Error).message}`);
        stop();
      }
    });
    req.on('close', stop);
    res.on('close', stop);
    void pub.gone.then((reason) => {
      done = true;
      if (!res.writableEnded) res.end(`${JSON.stringify({ gone: reason })}\n`);
    });
  }

  /** The station's packets as frames, until the caller goes away. */
  tapStream(stationId: string, req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
    res.flushHeaders();
    const off = this.engine.tap(stationId, (payload) => {
      // a reader that stopped reading is dropped rather than buffered without bound
      if (res.writableLength > 1024 * 1024) return void res.destroy();
      res.write(encodeFrame(payload));
    });
    res.on('close', off);
    req.resume();
  }

  async unpublish(req: SessionRequest): Promise<boolean> {
    if (
      this.publishers.get(req.stationId) !== req.sessionId &&
      this.waiting.get(req.sessionId) !== req.stationId
    )
      return false;
    return this.engine.unpublish(req.stationId, req.sessionId);
  }

  async addListener(req: AddListenerRequest): Promise<SessionAnswer> {
    const { stationId } = req;
    // An origin keeps serving its publisher's station to edges until the publisher leaves.
    if (!req.relay || !this.publishers.has(stationId)) this.refuseWhileDraining();
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
        throw new NodeHttpError(502, 'RelayError', `relay from ${req.origin.nodeId}: ${err}`);
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

  async closeStation(stationId: string): Promise<void> {
    this.cancelRelayTeardown(stationId);
    await this.dropRelay(stationId);
    this.audience.delete(stationId);
    for (const [s, st] of this.servedLegs) if (st === stationId) this.servedLegs.delete(s);
    await this.engine.closeStation(stationId);
    this.publishers.delete(stationId);
    for (const [s, st] of this.waiting) if (st === stationId) this.waiting.delete(s);
    this.scheduleCount(stationId);
  }

  // ---------------------------------------------------------------- shutdown

  /**
   * Leaves the cluster without cutting anyone off for long: the node says it is draining (placement
   * skips it at once, new sessions are refused with 503), ends every audience listener's session so
   * their clients rejoin on other nodes, and keeps serving its publishers (and the relay legs edges
   * pull from them) until they leave or `timeoutMs` has passed. Resolves when nothing is left.
   */
  async drain(timeoutMs: number): Promise<void> {
    if (this.closed || this.draining) return;
    this.draining = true;
    await this.register().catch((err: Error) => console.warn(`[sfu-node] drain: ${err.message}`));
    await this.emit({ type: 'node-draining' });
    const sessions = [...this.audience].flatMap(([stationId, set]) =>
      [...set].map((sessionId) => ({ stationId, sessionId })),
    );
    await Promise.all(
      sessions.map(async (s) => {
        await this.engine.removeListener(s.stationId, s.sessionId).catch(() => false);
        if (this.dropAudience(s.stationId, s.sessionId))
          await this.emit({ type: 'listener-gone', ...s, reason: 'node-draining' });
      }),
    );
    await this.register().catch(() => undefined);
    console.log(
      `[sfu-node] draining: ${sessions.length} listener(s) sent elsewhere, ${this.publisherCount} publisher(s) kept`,
    );
    const until = Date.now() + timeoutMs;
    while (this.publisherCount > 0 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200));
    }
    if (this.publisherCount > 0)
      console.warn(`[sfu-node] drain timeout: closing ${this.publisherCount} publisher(s)`);
  }

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
