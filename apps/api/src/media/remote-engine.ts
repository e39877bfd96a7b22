/**
 * Cluster mode (`SFU_MODE=remote`): the API's `MediaEngine` is a placement layer over the standalone
 * SFU nodes registered in Redis (apps/sfu/src/node). WHIP/WHEP signalling stays on the API, which
 * forwards each SDP offer to the node it picks over the node's internal HTTP API:
 *
 * - a publisher goes to the station's origin node when that node is live (sticky), otherwise to the
 *   least-loaded live node, which becomes the origin (`{prefix}:sfu:origin:{stationId}`);
 * - a listener goes to the least-loaded live node; when that is not the origin, the request names the
 *   origin and the node pulls the station from it once (relay) before adding the listener;
 * - `viewerCount` is the sum of every live node's count; counts arrive as node events and are
 *   reconciled with the nodes' registry records (TTL), so a dead node stops counting when its record
 *   expires. One API node (the leader, a Redis lock) turns changes of the sum into `listeners`
 *   events, so the bus carries each change once.
 */
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import {
  CapacityError,
  NodeCallError,
  NodeUnreachableError,
  SfuNodeClient,
  sfuKeys,
  type EngineEvent,
  type EngineStats,
  type MediaEngine,
  type NodeEvent,
  type NodeInfo,
  type SessionAnswer,
  type SessionRecord,
} from '@radiobroadcaster/sfu';
import { Redis } from 'ioredis';

export interface RemoteEngineOptions {
  redisUrl: string;
  prefix: string;
  secret: string;
  /** How often the registry is read (ms). */
  refreshMs?: number;
  /** A node that failed a call is avoided for this long (ms). */
  suspectMs?: number;
}

export interface PublisherRecord {
  sessionId: string;
  tokenId: string;
  userId: string;
}

const SESSION_TTL_S = 24 * 3600;

/** The extra operations MediaService, metrics and health use in cluster mode. */
export interface ClusterEngine extends MediaEngine {
  readonly cluster: true;
  lookupSession(sessionId: string): Promise<SessionRecord | null>;
  setListenerToken(sessionId: string, token: string | null): Promise<void>;
  currentPublisher(stationId: string): Promise<PublisherRecord | null>;
  setPublisher(stationId: string, rec: PublisherRecord): Promise<void>;
  /** The session is a publisher on a live node. */
  publisherLive(stationId: string, sessionId: string): Promise<boolean>;
  liveNodes(): NodeInfo[];
  relayCount(): number;
  isLeader(): boolean;
}

export function isClusterEngine(e: MediaEngine): e is ClusterEngine {
  return (e as Partial<ClusterEngine>).cluster === true;
}

interface Count {
  n: number;
  /** Local receive time of the last event for this (node, station). */
  eventAt: number;
}

export class RemoteEngine implements ClusterEngine {
  readonly cluster = true as const;
  private readonly logger = new Logger('RemoteEngine');
  private readonly id = randomUUID();
  private readonly redis: Redis;
  private readonly sub: Redis;
  private readonly keys: ReturnType<typeof sfuKeys>;
  private readonly subscribers = new Set<(e: EngineEvent) => void>();
  private readonly nodes = new Map<string, NodeInfo>();
  private readonly suspects = new Map<string, number>();
  private readonly clients = new Map<string, SfuNodeClient>();
  /** nodeId -> stationId -> audience count */
  private readonly counts = new Map<string, Map<string, Count>>();
  /** Totals last emitted as `listeners` events (leader only). */
  private readonly emitted = new Map<string, number>();
  /** Placements made here that the registry may not show yet: nodeId -> times. */
  private readonly recent = new Map<string, number[]>();
  /** Sessions this API node created: sessionId -> record. */
  private readonly own = new Map<string, SessionRecord>();
  private leader = false;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private readonly refreshMs: number;
  private readonly suspectMs: number;

  constructor(private readonly o: RemoteEngineOptions) {
    this.keys = sfuKeys(o.prefix);
    this.refreshMs = o.refreshMs ?? 1000;
    this.suspectMs = o.suspectMs ?? 10_000;
    const opts = { maxRetriesPerRequest: 2 };
    this.redis = new Redis(o.redisUrl, opts);
    this.sub = new Redis(o.redisUrl, opts);
    for (const c of [this.redis, this.sub])
      c.on('error', (err: Error) => this.logger.warn(`redis: ${err.message}`));
    this.sub.on('message', (_channel: string, message: string) => this.onNodeEvent(message));
  }

  async start(): Promise<void> {
    await this.sub.subscribe(this.keys.events);
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.refreshMs);
    this.timer.unref();
  }

  // ---------------------------------------------------------------- registry

  private client(node: NodeInfo): SfuNodeClient {
    let c = this.clients.get(node.url);
    if (!c) {
      c = new SfuNodeClient(node.url, this.o.secret);
      this.clients.set(node.url, c);
    }
    return c;
  }

  private async refresh(): Promise<void> {
    if (this.closed) return;
    try {
      const ids = await this.redis.smembers(this.keys.nodes);
      const raws = ids.length ? await this.redis.mget(ids.map((id) => this.keys.node(id))) : [];
      const seen = new Set<string>();
      const now = Date.now();
      ids.forEach((id, i) => {
        const raw = raws[i];
        if (!raw) return;
        const info = JSON.parse(raw) as NodeInfo;
        seen.add(id);
        this.nodes.set(id, info);
        // Reconcile counts with the node's own record, unless an event is fresher.
        let m = this.counts.get(id);
        if (!m) this.counts.set(id, (m = new Map()));
        for (const [stationId, c] of m) {
          if (!(stationId in info.stations) && now - c.eventAt > 2000) m.delete(stationId);
        }
        for (const [stationId, n] of Object.entries(info.stations)) {
          const c = m.get(stationId);
          if (!c || now - c.eventAt > 2000) m.set(stationId, { n, eventAt: c?.eventAt ?? 0 });
        }
      });
      for (const id of [...this.nodes.keys()]) if (!seen.has(id)) this.nodeGone(id);
      await this.redis.set(this.keys.api(this.id), '1', 'PX', Math.max(3000, this.refreshMs * 5));
      await this.electLeader();
      this.flushTotals();
    } catch (err) {
      this.logger.warn(`registry refresh: ${(err as Error).message}`);
    }
  }

  /** A node's record expired (or it said goodbye): its listeners stop counting, its publishers are gone. */
  private nodeGone(id: string): void {
    if (!this.nodes.delete(id)) return;
    this.logger.warn(`SFU node ${id} left the cluster`);
    this.counts.delete(id);
    for (const [sessionId, rec] of [...this.own]) {
      if (rec.nodeId !== id) continue;
      this.own.delete(sessionId);
      if (rec.kind === 'publisher') {
        this.emit({
          type: 'publisher-gone',
          stationId: rec.stationId,
          sessionId,
          reason: 'ice-failed',
        });
      } else {
        this.emit({
          type: 'listener-gone',
          stationId: rec.stationId,
          sessionId,
          reason: 'node-failed',
        });
      }
    }
  }

  private async electLeader(): Promise<void> {
    const ttl = Math.max(3000, this.refreshMs * 5);
    const got = await this.redis.set(this.keys.leader, this.id, 'PX', ttl, 'NX');
    if (got === 'OK') {
      this.leader = true;
      return;
    }
    const holder = await this.redis.get(this.keys.leader);
    this.leader = holder === this.id;
    if (this.leader) await this.redis.pexpire(this.keys.leader, ttl);
  }

  isLeader(): boolean {
    return this.leader;
  }

  liveNodes(): NodeInfo[] {
    return [...this.nodes.values()];
  }

  relayCount(): number {
    let n = 0;
    for (const node of this.nodes.values()) n += node.relays;
    return n;
  }

  private usable(now = Date.now()): NodeInfo[] {
    return this.liveNodes().filter((n) => (this.suspects.get(n.id) ?? 0) < now);
  }

  private suspect(nodeId: string): void {
    this.suspects.set(nodeId, Date.now() + this.suspectMs);
  }

  private score(n: NodeInfo, now: number): number {
    const times = (this.recent.get(n.id) ?? []).filter((t) => now - t < 2000);
    this.recent.set(n.id, times);
    return n.load + times.length;
  }

  /** Free nodes, least loaded first (ties by id, so placement is deterministic). */
  private ranked(exclude: Set<string>): NodeInfo[] {
    const now = Date.now();
    return this.usable(now)
      .filter((n) => !exclude.has(n.id))
      .filter((n) => n.maxListeners === null || n.listeners < n.maxListeners)
      .map((n) => ({ n, s: this.score(n, now) }))
      .sort((a, b) => a.s - b.s || a.n.id.localeCompare(b.n.id))
      .map((x) => x.n);
  }

  private placed(nodeId: string): void {
    const times = this.recent.get(nodeId) ?? [];
    times.push(Date.now());
    this.recent.set(nodeId, times);
  }

  /** Reads a node's figures right away (after a publish, which weighs more than a listener). */
  private async reload(node: NodeInfo): Promise<void> {
    try {
      this.nodes.set(node.id, await this.client(node).info());
    } catch {
      this.placed(node.id);
    }
  }

  private async originOf(stationId: string): Promise<NodeInfo | null> {
    const id = await this.redis.get(this.keys.origin(stationId));
    if (!id) return null;
    const node = this.nodes.get(id);
    return node && (this.suspects.get(id) ?? 0) < Date.now() ? node : null;
  }

  // ---------------------------------------------------------------- node events

  private onNodeEvent(message: string): void {
    let e: NodeEvent;
    try {
      e = JSON.parse(message) as NodeEvent;
    } catch {
      return;
    }
    switch (e.type) {
      case 'node-up':
        this.suspects.delete(e.node);
        void this.refresh();
        break;
      case 'node-down':
        this.nodeGone(e.node);
        this.flushTotals();
        break;
      case 'listeners': {
        let m = this.counts.get(e.node);
        if (!m) this.counts.set(e.node, (m = new Map()));
        if (e.count > 0) m.set(e.stationId, { n: e.count, eventAt: Date.now() });
        else m.set(e.stationId, { n: 0, eventAt: Date.now() });
        this.flushTotals();
        break;
      }
      case 'publisher-media':
        void this.onPublisherEvent(e);
        break;
      case 'publisher-gone':
        void this.onPublisherEvent(e);
        break;
      case 'listener-gone': {
        this.own.delete(e.sessionId);
        if (this.leader) void this.redis.del(this.keys.session(e.sessionId)).catch(() => 0);
        this.emit({ ...e, node: undefined } as unknown as EngineEvent);
        break;
      }
    }
  }

  /**
   * The API node that opened a publisher session runs its lifecycle (live, grace, offline); when that
   * API node is gone, the leader does.
   */
  private async onPublisherEvent(
    e: Extract<NodeEvent, { type: 'publisher-media' | 'publisher-gone' }>,
  ): Promise<void> {
    try {
      let mine = this.own.get(e.sessionId)?.kind === 'publisher';
      if (!mine && this.leader) {
        const raw = await this.redis.get(this.keys.session(e.sessionId));
        const rec = raw ? (JSON.parse(raw) as SessionRecord) : null;
        mine =
          rec?.kind === 'publisher' &&
          !!rec.api &&
          (await this.redis.exists(this.keys.api(rec.api))) === 0;
      }
      if (e.type === 'publisher-gone') {
        this.own.delete(e.sessionId);
        if (this.leader) await this.redis.del(this.keys.session(e.sessionId));
        // 'replaced': a newer publisher (maybe through another API node) took over; not a drop.
        if (e.reason === 'replaced') return;
      }
      if (!mine) return;
      if (e.type === 'publisher-media') {
        this.emit({ type: e.type, stationId: e.stationId, sessionId: e.sessionId });
      } else {
        this.emit({
          type: e.type,
          stationId: e.stationId,
          sessionId: e.sessionId,
          reason: e.reason as never,
        });
      }
    } catch (err) {
      this.logger.warn(`${e.type} for ${e.stationId}: ${(err as Error).message}`);
    }
  }

  private totals(): Map<string, number> {
    const t = new Map<string, number>();
    for (const [nodeId, m] of this.counts) {
      if (!this.nodes.has(nodeId)) continue;
      for (const [stationId, c] of m) t.set(stationId, (t.get(stationId) ?? 0) + c.n);
    }
    return t;
  }

  /** Leader: one `listeners` event per change of a station's cluster-wide count. */
  private flushTotals(): void {
    const totals = this.totals();
    for (const stationId of new Set([...totals.keys(), ...this.emitted.keys()])) {
      const n = totals.get(stationId) ?? 0;
      if ((this.emitted.get(stationId) ?? 0) === n) continue;
      if (n === 0) this.emitted.delete(stationId);
      else this.emitted.set(stationId, n);
      if (this.leader) this.emit({ type: 'listeners', stationId, count: n });
    }
  }

  on(listener: (e: EngineEvent) => void): () => void {
    this.subscribers.add(listener);
    return () => this.subscribers.delete(listener);
  }

  private emit(e: EngineEvent): void {
    const clean = { ...e } as EngineEvent & { node?: string };
    delete clean.node;
    for (const s of this.subscribers) {
      try {
        s(clean);
      } catch (err) {
        this.logger.warn(`event listener threw: ${(err as Error).message}`);
      }
    }
  }

  // ---------------------------------------------------------------- sessions

  private async record(sessionId: string, rec: SessionRecord): Promise<void> {
    this.own.set(sessionId, rec);
    await this.redis.set(this.keys.session(sessionId), JSON.stringify(rec), 'EX', SESSION_TTL_S);
  }

  async lookupSession(sessionId: string): Promise<SessionRecord | null> {
    const raw = await this.redis.get(this.keys.session(sessionId));
    if (!raw) return null;
    const rec = JSON.parse(raw) as SessionRecord;
    return this.nodes.has(rec.nodeId) ? rec : null;
  }

  async setListenerToken(sessionId: string, token: string | null): Promise<void> {
    const rec = this.own.get(sessionId);
    if (!rec) return;
    rec.token = token;
    await this.redis.set(this.keys.session(sessionId), JSON.stringify(rec), 'EX', SESSION_TTL_S);
  }

  async currentPublisher(stationId: string): Promise<PublisherRecord | null> {
    const raw = await this.redis.get(`${this.keys.origin(stationId)}:publisher`);
    return raw ? (JSON.parse(raw) as PublisherRecord) : null;
  }

  async setPublisher(stationId: string, rec: PublisherRecord): Promise<void> {
    await this.redis.set(
      `${this.keys.origin(stationId)}:publisher`,
      JSON.stringify(rec),
      'EX',
      SESSION_TTL_S,
    );
  }

  async publisherLive(stationId: string, sessionId: string): Promise<boolean> {
    const rec = await this.lookupSession(sessionId);
    return rec?.kind === 'publisher' && rec.stationId === stationId;
  }

  private async nodeOfSession(stationId: string, sessionId: string): Promise<NodeInfo | null> {
    const rec = this.own.get(sessionId) ?? (await this.lookupSession(sessionId));
    if (!rec || rec.stationId !== stationId) return null;
    return this.nodes.get(rec.nodeId) ?? null;
  }

  // ---------------------------------------------------------------- MediaEngine

  async publish(stationId: string, offerSdp: string): Promise<SessionAnswer> {
    const tried = new Set<string>();
    const origin = await this.originOf(stationId);
    const candidates = origin ? [origin] : this.ranked(tried);
    if (candidates.length === 0) throw new CapacityError('no SFU node available');
    let lastErr: unknown;
    for (const node of candidates) {
      try {
        const answer = await this.client(node).publish(stationId, offerSdp);
        await this.redis.set(this.keys.origin(stationId), node.id);
        await this.record(answer.sessionId, {
          stationId,
          nodeId: node.id,
          kind: 'publisher',
          api: this.id,
        });
        await this.reload(node);
        return answer;
      } catch (err) {
        if (!(err instanceof NodeUnreachableError)) throw err;
        this.suspect(node.id);
        lastErr = err;
      }
    }
    // The origin is unreachable: the station moves to another node.
    if (origin) {
      for (const node of this.ranked(new Set([origin.id]))) {
        try {
          const answer = await this.client(node).publish(stationId, offerSdp);
          await this.redis.set(this.keys.origin(stationId), node.id);
          await this.record(answer.sessionId, {
            stationId,
            nodeId: node.id,
            kind: 'publisher',
            api: this.id,
          });
          return answer;
        } catch (err) {
          if (!(err instanceof NodeUnreachableError)) throw err;
          this.suspect(node.id);
          lastErr = err;
        }
      }
    }
    throw new CapacityError(`no SFU node reachable (${(lastErr as Error)?.message})`);
  }

  async unpublish(stationId: string, sessionId: string): Promise<boolean> {
    const node = await this.nodeOfSession(stationId, sessionId);
    if (!node) return false;
    try {
      return await this.client(node).unpublish(stationId, sessionId);
    } catch (err) {
      if (err instanceof NodeUnreachableError) return false;
      throw err;
    }
  }

  async addListener(stationId: string, offerSdp: string): Promise<SessionAnswer> {
    const origin = await this.originOf(stationId);
    const tried = new Set<string>();
    let lastErr: unknown;
    for (let attempt = 0; attempt < 4; attempt++) {
      const node = this.ranked(tried)[0];
      if (!node) break;
      tried.add(node.id);
      const viaRelay = origin && origin.id !== node.id;
      try {
        const answer = await this.client(node).addListener(
          stationId,
          offerSdp,
          viaRelay ? { origin: { nodeId: origin.id, url: origin.url } } : {},
        );
        this.placed(node.id);
        await this.record(answer.sessionId, { stationId, nodeId: node.id, kind: 'listener' });
        return answer;
      } catch (err) {
        lastErr = err;
        if (err instanceof NodeUnreachableError) this.suspect(node.id);
        else if (err instanceof NodeCallError && err.tag === 'RelayError') {
          this.logger.warn(err.message);
        } else if (!(err instanceof CapacityError)) throw err;
      }
    }
    if (lastErr instanceof CapacityError || !lastErr)
      throw new CapacityError('every SFU node is at capacity');
    throw new CapacityError(`no SFU node could take the listener: ${(lastErr as Error).message}`);
  }

  async removeListener(stationId: string, sessionId: string): Promise<boolean> {
    const node = await this.nodeOfSession(stationId, sessionId);
    this.own.delete(sessionId);
    await this.redis.del(this.keys.session(sessionId)).catch(() => 0);
    if (!node) return false;
    try {
      return await this.client(node).removeListener(stationId, sessionId, 3000);
    } catch (err) {
      if (err instanceof NodeUnreachableError) {
        this.suspect(node.id);
        return true;
      }
      throw err;
    }
  }

  async restartIce(stationId: string, sessionId: string, offerSdp: string): Promise<string | null> {
    const node = await this.nodeOfSession(stationId, sessionId);
    return node ? this.client(node).restartIce(stationId, sessionId, offerSdp) : null;
  }

  async closeStation(stationId: string): Promise<void> {
    await Promise.all(
      this.liveNodes().map((n) =>
        this.client(n)
          .closeStation(stationId)
          .catch(() => undefined),
      ),
    );
    await this.redis
      .del(this.keys.origin(stationId), `${this.keys.origin(stationId)}:publisher`)
      .catch(() => 0);
  }

  listenerCount(stationId: string): number {
    return this.totals().get(stationId) ?? 0;
  }

  hasSession(stationId: string, sessionId: string): 'publisher' | 'listener' | null {
    const rec = this.own.get(sessionId);
    return rec && rec.stationId === stationId ? rec.kind : null;
  }

  stats(): EngineStats {
    let publishers = 0;
    let listeners = 0;
    const stations = new Set<string>();
    for (const n of this.nodes.values()) {
      publishers += n.publishers;
      listeners += n.listeners;
      for (const s of Object.keys(n.stations)) stations.add(s);
    }
    return {
      stations: stations.size,
      publishers,
      listeners,
      pendingListeners: 0,
      shards: 0,
      packetsIn: 0,
      packetsOut: 0,
      bytesOut: 0,
      perShard: [],
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.redis.del(this.keys.api(this.id)).catch(() => 0);
    if (this.leader) await this.redis.del(this.keys.leader).catch(() => 0);
    this.redis.disconnect();
    this.sub.disconnect();
  }
}
