/**
 * Cluster mode (`SFU_MODE=remote`): an API node's `MediaEngine` over the standalone SFU nodes
 * registered in Redis (see `node/`). WHIP/WHEP signalling stays on the API, which forwards each SDP
 * offer to the node it picks over the node's internal HTTP API:
 *
 * - a publisher goes to the station's origin node when that node is live (sticky), otherwise to the
 *   freest node, which becomes the origin;
 * - a listener goes to the freest node; when that is not the origin, the request names the origin
 *   and the node pulls the station from it once (relay) before adding the listener;
 * - `viewerCount` is the sum of every live node's count; the leader turns changes of the sum into
 *   `listeners` events and reports the publishers' events, so each happens once on the bus.
 */
import type { Redis } from 'ioredis';
import {
  CapacityError,
  EngineEvents,
  type ClusterInfo,
  type EngineEvent,
  type EngineStats,
  type MediaEngine,
  type PacketPublisher,
  type PacketTap,
  type SessionAnswer,
  type SessionKind,
} from '../media-engine.js';
import {
  isDraining,
  NodeCallError,
  NodeUnreachableError,
  SfuNodeClient,
} from '../protocol/client.js';
import { redisKeys } from '../protocol/keys.js';
import type { NodeEvent, NodeInfo } from '../protocol/schemas.js';
import { ListenerTotals } from './listener-totals.js';
import { NodeRegistry } from './node-registry.js';
import { NodeSelector } from './node-selector.js';
import { SessionRoutes, type SessionRoute } from './session-routes.js';

export interface ClusterEngineOptions {
  /** Commands; the event subscription uses a duplicate of it. */
  redis: Redis;
  prefix: string;
  secret: string;
  /** How often the registry is read (ms). */
  refreshMs?: number;
  /** A node that failed a call is avoided for this long (ms). */
  suspectMs?: number;
  warn?: (message: string) => void;
}

/** Listener placements tried before giving up (each on another node). */
const LISTENER_ATTEMPTS = 4;

export class ClusterEngine implements MediaEngine {
  private readonly registry: NodeRegistry;
  private readonly selector: NodeSelector;
  private readonly totals = new ListenerTotals();
  private readonly routes: SessionRoutes;
  private readonly clients = new Map<string, SfuNodeClient>();
  private readonly events: EngineEvents;
  private readonly taps = new Map<string, ClusterTap>();
  private readonly warn: (message: string) => void;

  constructor(private readonly o: ClusterEngineOptions) {
    const keys = redisKeys(o.prefix);
    this.warn = o.warn ?? ((m) => console.warn(`[cluster] ${m}`));
    this.events = new EngineEvents((err) =>
      this.warn(`event listener threw: ${(err as Error).message}`),
    );
    this.selector = new NodeSelector({ suspectMs: o.suspectMs });
    this.routes = new SessionRoutes(o.redis, keys);
    this.registry = new NodeRegistry(
      { redis: o.redis, keys, refreshMs: o.refreshMs ?? 1000 },
      {
        onNodes: (infos) => {
          for (const info of infos) this.totals.fromRecord(info.id, info.stations);
          this.flushTotals();
        },
        onNodeGone: (id) => {
          this.totals.dropNode(id);
          this.selector.forget(id);
          this.flushTotals();
        },
        onNodeDead: (id) => void this.sweepNode(id),
        onLeadership: () => this.emit({ type: 'resync' }),
        onEvent: (e) => this.onNodeEvent(e),
        warn: this.warn,
      },
    );
  }

  /** Reads the registry once before it answers anything. */
  async start(): Promise<this> {
    await this.registry.start();
    return this;
  }

  // ---------------------------------------------------------------- MediaEngine

  async publish(stationId: string, offerSdp: string): Promise<SessionAnswer> {
    return this.publishOn(stationId, (node) => this.client(node).publish(stationId, offerSdp));
  }

  async publishPackets(stationId: string): Promise<PacketPublisher> {
    const pub = await this.publishOn(stationId, (node) =>
      this.client(node).publishPackets(stationId),
    );
    // taps follow the station to its new origin at once
    this.taps.get(stationId)?.reconnect();
    return pub;
  }

  /**
   * Opens the station's publisher on the first candidate node that takes it (a draining or
   * unreachable one passes it on) and makes that node the station's origin.
   */
  private async publishOn<T extends { sessionId: string }>(
    stationId: string,
    open: (node: NodeInfo) => Promise<T>,
  ): Promise<T> {
    let lastErr: unknown;
    for (const node of await this.publishCandidates(stationId)) {
      try {
        const session = await open(node);
        await this.routes.setOrigin(stationId, node.id);
        await this.routes.set(session.sessionId, { stationId, nodeId: node.id, kind: 'publisher' });
        // A publisher weighs more than a listener: read the node's figures now.
        await this.reload(node);
        return session;
      } catch (err) {
        lastErr = err;
        if (isDraining(err)) this.registry.markDraining(node.id);
        else if (err instanceof NodeUnreachableError) this.selector.suspect(node.id);
        else throw err;
      }
    }
    throw new CapacityError(`no SFU node reachable (${(lastErr as Error)?.message})`);
  }

  tap(stationId: string, onPacket: PacketTap): () => void {
    let tap = this.taps.get(stationId);
    if (!tap) {
      tap = new ClusterTap(
        stationId,
        async () => {
          const id = await this.routes.origin(stationId);
          const node = id ? this.registry.get(id) : undefined;
          return node ? this.client(node) : null;
        },
        this.warn,
      );
      this.taps.set(stationId, tap);
    }
    const t = tap;
    const off = t.add(onPacket);
    return () => {
      off();
      if (t.empty) {
        t.close();
        if (this.taps.get(stationId) === t) this.taps.delete(stationId);
      }
    };
  }

  async unpublish(stationId: string, sessionId: string): Promise<boolean> {
    const route = await this.route(stationId, sessionId, 'publisher');
    const node = route && this.registry.get(route.nodeId);
    if (!node) return false;
    try {
      return await this.client(node).unpublish(stationId, sessionId);
    } catch (err) {
      if (err instanceof NodeUnreachableError) return false;
      throw err;
    }
  }

  async addListener(stationId: string, offerSdp: string): Promise<SessionAnswer> {
    const origin = await this.originNode(stationId);
    const tried = new Set<string>();
    let lastErr: unknown;
    for (let attempt = 0; attempt < LISTENER_ATTEMPTS; attempt++) {
      const node = this.selector.rank(this.registry.live(), tried)[0];
      if (!node) break;
      tried.add(node.id);
      const viaRelay = origin && origin.id !== node.id;
      try {
        const answer = await this.client(node).addListener(
          stationId,
          offerSdp,
          viaRelay ? { origin: { nodeId: origin.id, url: origin.url } } : {},
        );
        this.selector.placed(node.id);
        await this.routes.set(answer.sessionId, { stationId, nodeId: node.id, kind: 'listener' });
        return answer;
      } catch (err) {
        lastErr = err;
        if (err instanceof NodeUnreachableError) this.selector.suspect(node.id);
        else if (isDraining(err)) this.registry.markDraining(node.id);
        else if (err instanceof NodeCallError && err.tag === 'RelayError') this.warn(err.message);
        else if (!(err instanceof CapacityError)) throw err;
      }
    }
    if (lastErr instanceof CapacityError || !lastErr)
      throw new CapacityError('every SFU node is at capacity');
    throw new CapacityError(`no SFU node could take the listener: ${(lastErr as Error).message}`);
  }

  async removeListener(stationId: string, sessionId: string): Promise<boolean> {
    const route = await this.route(stationId, sessionId, 'listener');
    if (!route) return false;
    await this.routes.delete(sessionId, route).catch(() => undefined);
    const node = this.registry.get(route.nodeId);
    if (!node) return false;
    try {
      return await this.client(node).removeListener(stationId, sessionId, 3000);
    } catch (err) {
      if (!(err instanceof NodeUnreachableError)) throw err;
      this.selector.suspect(node.id);
      return true;
    }
  }

  async closeStation(stationId: string): Promise<void> {
    await Promise.all(
      this.registry.live().map((n) =>
        this.client(n)
          .closeStation(stationId)
          .catch(() => undefined),
      ),
    );
    await this.routes.clearOrigin(stationId).catch(() => undefined);
  }

  listenerCount(stationId: string): number {
    return this.totals.total(stationId);
  }

  async hasSession(stationId: string, sessionId: string): Promise<SessionKind | null> {
    const route = await this.routes.get(sessionId);
    if (!route || route.stationId !== stationId || !this.registry.get(route.nodeId)) return null;
    return route.kind;
  }

  stats(): EngineStats {
    let publishers = 0;
    let listeners = 0;
    let maxListeners: number | null = 0;
    const stations = new Set<string>();
    for (const n of this.registry.live()) {
      publishers += n.publishers;
      listeners += n.listeners;
      maxListeners =
        maxListeners === null || n.maxListeners === null ? null : maxListeners + n.maxListeners;
      for (const s of Object.keys(n.stations)) stations.add(s);
    }
    return {
      stations: stations.size,
      publishers,
      listeners,
      pendingListeners: 0,
      maxListeners,
      shards: 0,
      packetsIn: 0,
      packetsOut: 0,
      bytesOut: 0,
      perShard: [],
    };
  }

  clusterInfo(): ClusterInfo {
    const nodes = this.registry.live();
    return {
      nodes: nodes.map((n) => ({
        id: n.id,
        listeners: n.listeners,
        publishers: n.publishers,
        relays: n.relays,
      })),
      relays: nodes.reduce((a, n) => a + n.relays, 0),
      leader: this.registry.isLeader(),
    };
  }

  on(listener: (e: EngineEvent) => void): () => void {
    return this.events.on(listener);
  }

  async close(): Promise<void> {
    for (const t of this.taps.values()) t.close();
    this.taps.clear();
    await this.registry.close();
  }

  // ---------------------------------------------------------------- nodes

  private client(node: NodeInfo): SfuNodeClient {
    let c = this.clients.get(node.url);
    if (!c) {
      c = new SfuNodeClient(node.url, this.o.secret);
      this.clients.set(node.url, c);
    }
    return c;
  }

  private async reload(node: NodeInfo): Promise<void> {
    try {
      this.registry.update(await this.client(node).info());
    } catch {
      this.selector.placed(node.id);
    }
  }

  /**
   * Where a publisher may go: the station's origin keeps it while it answers and is not draining
   * (sticky); otherwise the station moves to the freest node.
   */
  private async publishCandidates(stationId: string): Promise<NodeInfo[]> {
    const origin = await this.originNode(stationId);
    const candidates =
      origin && !origin.draining
        ? [origin, ...this.selector.rank(this.registry.live(), new Set([origin.id]))]
        : this.selector.rank(this.registry.live());
    if (candidates.length === 0) throw new CapacityError('no SFU node available');
    return candidates;
  }

  private async originNode(stationId: string): Promise<NodeInfo | null> {
    const id = await this.routes.origin(stationId);
    const node = id ? this.registry.get(id) : undefined;
    return node && this.selector.usable(node.id) ? node : null;
  }

  private async route(
    stationId: string,
    sessionId: string,
    kind: SessionKind,
  ): Promise<SessionRoute | null> {
    const route = await this.routes.get(sessionId);
    return route && route.stationId === stationId && route.kind === kind ? route : null;
  }

  /** Leader: the node is dead; every session it held ends once, for the whole cluster. */
  private async sweepNode(nodeId: string): Promise<void> {
    try {
      for (const [sessionId, r] of await this.routes.takeNode(nodeId)) {
        if (r.kind === 'publisher') {
          this.emit({
            type: 'publisher-gone',
            stationId: r.stationId,
            sessionId,
            reason: 'ice-failed',
          });
        } else {
          this.emit({
            type: 'listener-gone',
            stationId: r.stationId,
            sessionId,
            reason: 'node-failed',
          });
        }
      }
      this.emit({ type: 'resync' });
    } catch (err) {
      this.warn(`cleanup of SFU node ${nodeId}: ${(err as Error).message}`);
    }
  }

  private onNodeEvent(e: NodeEvent): void {
    const leader = this.registry.isLeader();
    switch (e.type) {
      case 'node-up':
        this.selector.trust(e.node);
        void this.registry.refresh();
        break;
      case 'node-draining':
        this.registry.markDraining(e.node);
        break;
      case 'node-down':
        this.registry.drop(e.node);
        if (leader) void this.sweepNode(e.node);
        break;
      case 'listeners':
        this.totals.fromEvent(e.node, e.stationId, e.count);
        this.flushTotals();
        break;
      case 'publisher-media':
        if (leader) this.emit(withoutNode(e));
        break;
      case 'publisher-gone':
      case 'listener-gone': {
        const kind = e.type === 'publisher-gone' ? 'publisher' : 'listener';
        // A publisher's end drives the station's lifecycle: once, on the leader. A listener's end
        // only cleans shared records, which every API node may do (twice is harmless).
        if (kind === 'publisher' && !leader) break;
        void this.routes
          .delete(e.sessionId, { stationId: e.stationId, nodeId: e.node, kind })
          .catch(() => undefined);
        this.emit(withoutNode(e));
        break;
      }
    }
  }

  /** Leader: one `listeners` event per change of a station's cluster-wide count. */
  private flushTotals(): void {
    const leader = this.registry.isLeader();
    for (const { stationId, count } of this.totals.changes()) {
      if (leader) this.emit({ type: 'listeners', stationId, count });
    }
  }

  private emit(e: EngineEvent): void {
    this.events.emit(e);
  }
}

/** A node's event as the engine reports it (which node sent it is the cluster's business). */
function withoutNode<E extends NodeEvent>(e: E): E extends unknown ? Omit<E, 'node'> : never {
  const { node: _node, ...event } = e;
  return event as E extends unknown ? Omit<E, 'node'> : never;
}

/**
 * One API node's tap on a station: a single stream from the station's origin node shared by every
 * subscriber here, re-opened when it breaks or the station moves to another node.
 */
class ClusterTap {
  private readonly subscribers = new Set<PacketTap>();
  private stopStream: (() => void) | null = null;
  private connectedTo: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly stationId: string,
    private readonly originClient: () => Promise<SfuNodeClient | null>,
    private readonly warn: (message: string) => void,
  ) {
    this.timer = setInterval(() => void this.check(), 2000);
    this.timer.unref();
    void this.check();
  }

  get empty(): boolean {
    return this.subscribers.size === 0;
  }

  add(onPacket: PacketTap): () => void {
    const entry: PacketTap = (p) => onPacket(p);
    this.subscribers.add(entry);
    return () => this.subscribers.delete(entry);
  }

  /** Drops the current stream and opens one to the station's origin as it is now. */
  reconnect(): void {
    this.drop();
    void this.check();
  }

  private drop(): void {
    this.stopStream?.();
    this.stopStream = null;
    this.connectedTo = null;
  }

  private async check(): Promise<void> {
    if (this.closed) return;
    let client: SfuNodeClient | null;
    try {
      client = await this.originClient();
    } catch (err) {
      this.warn(`tap ${this.stationId}: ${(err as Error).message}`);
      return;
    }
    if (this.closed || (client && client.url === this.connectedTo && this.stopStream)) return;
    this.drop();
    if (!client) return;
    const url = client.url;
    this.connectedTo = url;
    const stop = client.tap(
      this.stationId,
      (p) => {
        for (const s of this.subscribers) {
          try {
            s(p);
          } catch (err) {
            this.warn(`packet tap threw: ${(err as Error).message}`);
          }
        }
      },
      () => {
        if (this.stopStream !== stop) return;
        this.stopStream = null;
        this.connectedTo = null;
      },
    );
    this.stopStream = stop;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.drop();
  }
}
