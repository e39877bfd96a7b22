/**
 * A standalone SFU node: its media engine (werift or mediasoup) behind a small internal HTTP API, registered in Redis
 * with its load, publishing its engine's events on Redis, pulling stations from their origin node
 * (relay) when it has listeners for a station whose publisher is elsewhere.
 *
 * The node wires its parts: who is on it (node-sessions.ts), its record and events in the cluster
 * (node-registration.ts), the relays it pulls (edge-relays.ts), its HTTP API (node-http.ts,
 * node-streams.ts); here: the operations, the engine's events, and the drain.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { EngineEvent, MediaEngine, SessionAnswer } from '../media-engine.js';
import {
  clusterEngine,
  type AddListenerRequest,
  type NodeEngine,
  type NodeInfo,
} from '../protocol/schemas.js';
import type { PeerSettings } from '../werift/werift-config.js';
import type { SfuNodeConfig } from './config.js';
import { EdgeRelays } from './edge-relays.js';
import { createNodeHttpServer, NodeHttpError } from './node-http.js';
import { NodeRegistration } from './node-registration.js';
import { NodeSessions } from './node-sessions.js';
import { feedPacketPublisher, streamTap } from './node-streams.js';

type SessionRequest = { stationId: string; sessionId: string };

export class SfuNode {
  readonly id: string;
  url = '';
  private server?: Server;
  private readonly startedAt = Date.now();
  private closed = false;
  private draining = false;
  private readonly registration: NodeRegistration;
  private readonly sessions: NodeSessions;
  private readonly relays: EdgeRelays;
  private readonly offEngine: () => void;

  constructor(
    private readonly engine: MediaEngine,
    private readonly cfg: SfuNodeConfig,
    /** The engine's name, registered with the node: every node of a cluster runs one engine. */
    readonly engineName: NodeEngine = 'werift',
  ) {
    this.id = cfg.nodeId;
    this.registration = new NodeRegistration(this.id, cfg, () => this.info());
    this.sessions = new NodeSessions(
      engine,
      (body) => this.registration.emit(body),
      (stationId) => this.relays.scheduleTeardown(stationId),
    );
    this.relays = new EdgeRelays({
      nodeId: this.id,
      engine,
      settings: () => this.settings,
      secret: cfg.secret,
      relayLingerMs: cfg.relayLingerMs,
      registration: this.registration,
      hasAudience: (stationId) => this.sessions.hasAudience(stationId),
    });
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
    await this.checkClusterEngine();
    await this.registration.register();
    this.registration.startHeartbeat(() => this.relays.checkOrigins());
    await this.registration.emit({ type: 'node-up' });
  }

  /**
   * Every SFU node of a cluster runs one engine, the oldest live node's (protocol/schemas.ts): a
   * node on another one registers, but the API nodes place nothing on it until the cluster's older
   * nodes have left. Said here, on the node an operator started with the wrong MEDIA_ENGINE.
   */
  private async checkClusterEngine(): Promise<void> {
    const others = (await this.registration.liveNodes().catch(() => [])).filter(
      (n) => n.id !== this.id,
    );
    const cluster = clusterEngine(others);
    if (cluster && cluster.engine !== this.engineName) {
      console.error(
        `[sfu-node] ${this.id} runs the ${this.engineName} engine but the cluster's nodes run ${cluster.engine} (oldest: ${cluster.node}): the API nodes will not use this node while they are there; start it with MEDIA_ENGINE=${cluster.engine}`,
      );
    }
  }

  info(): NodeInfo {
    const stations: Record<string, number> = {};
    let listeners = 0;
    for (const stationId of this.sessions.stationIds()) {
      const n = this.sessions.audienceCount(stationId);
      if (n > 0) {
        stations[stationId] = n;
        listeners += n;
      }
    }
    const relayLegs = this.sessions.servedLegs.size;
    const publishers = this.sessions.publisherCount;
    return {
      id: this.id,
      engine: this.engineName,
      url: this.url,
      startedAt: this.startedAt,
      at: Date.now(),
      listeners,
      publishers,
      relays: this.relays.size,
      relayLegs,
      load: listeners + relayLegs + publishers * this.cfg.publisherWeight,
      maxListeners: this.engine.stats().maxListeners,
      stations,
      ...(this.draining ? { draining: true } : {}),
    };
  }

  // ---------------------------------------------------------------- engine events

  private onEngineEvent(e: EngineEvent): void {
    const { publishers, waiting, servedLegs } = this.sessions;
    const emit = (
      body: EngineEvent & { type: 'publisher-media' | 'publisher-gone' | 'listener-gone' },
    ) => void this.registration.emit(body);
    switch (e.type) {
      case 'publisher-media':
        if (waiting.get(e.sessionId) === e.stationId) {
          waiting.delete(e.sessionId);
          publishers.set(e.stationId, e.sessionId);
        }
        if (publishers.get(e.stationId) === e.sessionId) emit(e);
        break;
      case 'publisher-gone': {
        const relay = this.relays.outLeg(e.stationId, e.sessionId);
        if (relay) {
          relay.outGone(e.sessionId);
          break;
        }
        if (waiting.get(e.sessionId) === e.stationId) {
          waiting.delete(e.sessionId);
          emit(e);
        } else if (publishers.get(e.stationId) === e.sessionId) {
          publishers.delete(e.stationId);
          emit(e);
        }
        break;
      }
      case 'listeners':
        this.sessions.scheduleCount(e.stationId);
        break;
      case 'listener-gone':
        if (servedLegs.delete(e.sessionId)) {
          this.sessions.scheduleCount(e.stationId);
          break;
        }
        if (this.sessions.dropAudience(e.stationId, e.sessionId)) emit(e);
        break;
      case 'resync':
        break; // the node's own engine is in this process: nothing to re-check
    }
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
    if (this.relays.has(req.stationId)) await this.relays.drop(req.stationId);
    const answer = await this.engine.publish(req.stationId, req.offer);
    this.sessions.waiting.set(answer.sessionId, req.stationId);
    return answer;
  }

  /** A packet publisher fed by the request body; it ends when either side closes. */
  async publishPackets(
    stationId: string,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    this.refuseWhileDraining();
    if (this.relays.has(stationId)) await this.relays.drop(stationId);
    const pub = await this.engine.publishPackets(stationId);
    this.sessions.waiting.set(pub.sessionId, stationId);
    feedPacketPublisher(stationId, pub, req, res);
  }

  /** The station's packets as frames, until the caller goes away. */
  tapStream(stationId: string, req: IncomingMessage, res: ServerResponse): void {
    streamTap(this.engine, stationId, req, res);
  }

  async unpublish(req: SessionRequest): Promise<boolean> {
    if (
      this.sessions.publishers.get(req.stationId) !== req.sessionId &&
      this.sessions.waiting.get(req.sessionId) !== req.stationId
    )
      return false;
    return this.engine.unpublish(req.stationId, req.sessionId);
  }

  async addListener(req: AddListenerRequest): Promise<SessionAnswer> {
    const { stationId } = req;
    const hasPublisher = this.sessions.publishers.has(stationId);
    // An origin keeps serving its publisher's station to edges until the publisher leaves.
    if (!req.relay || !hasPublisher) this.refuseWhileDraining();
    if (req.relay) {
      const answer = await this.engine.addListener(stationId, req.offer);
      this.sessions.servedLegs.set(answer.sessionId, stationId);
      return answer;
    }
    this.relays.cancelTeardown(stationId);
    if (req.origin && req.origin.nodeId !== this.id && !hasPublisher) {
      try {
        await this.relays.ensure(stationId, req.origin);
      } catch (err) {
        throw new NodeHttpError(502, 'RelayError', `relay from ${req.origin.nodeId}: ${err}`);
      }
    }
    const answer = await this.engine.addListener(stationId, req.offer);
    this.sessions.addAudience(stationId, answer.sessionId);
    this.relays.cancelTeardown(stationId);
    return answer;
  }

  async removeListener(req: SessionRequest): Promise<boolean> {
    const ok = await this.engine.removeListener(req.stationId, req.sessionId);
    if (this.sessions.servedLegs.delete(req.sessionId)) this.sessions.scheduleCount(req.stationId);
    else this.sessions.dropAudience(req.stationId, req.sessionId);
    return ok;
  }

  async closeStation(stationId: string): Promise<void> {
    this.relays.cancelTeardown(stationId);
    await this.relays.drop(stationId);
    this.sessions.dropStation(stationId);
    await this.engine.closeStation(stationId);
    this.sessions.dropPublishers(stationId);
    this.sessions.scheduleCount(stationId);
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
    const registration = this.registration;
    await registration
      .register()
      .catch((err: Error) => console.warn(`[sfu-node] drain: ${err.message}`));
    await registration.emit({ type: 'node-draining' });
    const sessions = [...this.sessions.audience].flatMap(([stationId, set]) =>
      [...set].map((sessionId) => ({ stationId, sessionId })),
    );
    await Promise.all(
      sessions.map(async (s) => {
        await this.engine.removeListener(s.stationId, s.sessionId).catch(() => false);
        if (this.sessions.dropAudience(s.stationId, s.sessionId))
          await registration.emit({ type: 'listener-gone', ...s, reason: 'node-draining' });
      }),
    );
    await registration.register().catch(() => undefined);
    console.log(
      `[sfu-node] draining: ${sessions.length} listener(s) sent elsewhere, ${this.sessions.publisherCount} publisher(s) kept`,
    );
    const until = Date.now() + timeoutMs;
    while (this.sessions.publisherCount > 0 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200));
    }
    if (this.sessions.publisherCount > 0)
      console.warn(
        `[sfu-node] drain timeout: closing ${this.sessions.publisherCount} publisher(s)`,
      );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.registration.stopHeartbeat();
    this.sessions.stopCounts();
    this.offEngine();
    await this.relays.close();
    await this.registration.emit({ type: 'node-down' });
    await this.registration.deregister();
    const server = this.server;
    if (server) {
      const done = new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await done;
    }
    this.registration.disconnect();
  }
}
