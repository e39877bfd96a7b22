/**
 * A `MediaEngine` for unit tests: sessions are entries in a map, answers are strings, every call is
 * recorded, and the test makes the engine fail or report events as the real ones would.
 */
import {
  EngineEvents,
  type ClusterInfo,
  type EngineEvent,
  type EngineStats,
  type MediaEngine,
  type PacketPublisher,
  type PacketTap,
  type PublisherGoneReason,
  type SessionAnswer,
  type SessionKind,
} from '@radiobroadcaster/sfu';

export class FakeMediaEngine implements MediaEngine {
  readonly calls: { method: keyof MediaEngine; args: unknown[] }[] = [];
  readonly sessions = new Map<string, { stationId: string; kind: SessionKind }>();
  /** Thrown by the next publish or addListener. */
  failNext: Error | null = null;
  clusterInfo?: () => ClusterInfo;
  private readonly events = new EngineEvents((err) => {
    throw err;
  });
  private seq = 0;
  private readonly taps = new Set<{ stationId: string; fn: PacketTap }>();
  private readonly goneHooks = new Map<string, (reason: PublisherGoneReason) => void>();

  constructor(opts: { cluster?: ClusterInfo } = {}) {
    const cluster = opts.cluster;
    if (cluster) this.clusterInfo = () => cluster;
  }

  /** Calls of one method, by their arguments. */
  callsOf(method: keyof MediaEngine): unknown[][] {
    return this.calls.filter((c) => c.method === method).map((c) => c.args);
  }

  async publish(stationId: string, offerSdp: string): Promise<SessionAnswer> {
    return this.open('publish', 'publisher', stationId, offerSdp);
  }

  /** Packets pushed by a packet publisher go to the station's taps at once. */
  async publishPackets(stationId: string): Promise<PacketPublisher> {
    const { sessionId } = this.open('publishPackets', 'publisher', stationId, '');
    const gone = new Promise<PublisherGoneReason>((r) => this.goneHooks.set(sessionId, r));
    return {
      sessionId,
      gone,
      push: (payload) => {
        if (this.sessions.has(sessionId)) this.packet(stationId, payload);
      },
      close: async () => {
        await this.unpublish(stationId, sessionId);
      },
    };
  }

  tap(stationId: string, onPacket: PacketTap): () => void {
    const entry = { stationId, fn: onPacket };
    this.taps.add(entry);
    return () => this.taps.delete(entry);
  }

  /** The station's publisher sent `payload`, as the real engine would report it to taps. */
  packet(stationId: string, payload: Buffer): void {
    for (const t of this.taps) if (t.stationId === stationId) t.fn(payload);
  }

  async unpublish(stationId: string, sessionId: string): Promise<boolean> {
    this.calls.push({ method: 'unpublish', args: [stationId, sessionId] });
    if (this.sessions.get(sessionId)?.kind !== 'publisher') return false;
    this.end(sessionId, 'deleted');
    return true;
  }

  async addListener(stationId: string, offerSdp: string): Promise<SessionAnswer> {
    return this.open('addListener', 'listener', stationId, offerSdp);
  }

  async removeListener(stationId: string, sessionId: string): Promise<boolean> {
    this.calls.push({ method: 'removeListener', args: [stationId, sessionId] });
    const s = this.sessions.get(sessionId);
    if (s?.kind !== 'listener' || s.stationId !== stationId) return false;
    this.sessions.delete(sessionId);
    return true;
  }

  async closeStation(stationId: string): Promise<void> {
    this.calls.push({ method: 'closeStation', args: [stationId] });
    for (const [id, s] of [...this.sessions]) if (s.stationId === stationId) this.end(id, 'closed');
  }

  listenerCount(stationId: string): number {
    return [...this.sessions.values()].filter(
      (s) => s.kind === 'listener' && s.stationId === stationId,
    ).length;
  }

  async hasSession(stationId: string, sessionId: string): Promise<SessionKind | null> {
    const s = this.sessions.get(sessionId);
    return s && s.stationId === stationId ? s.kind : null;
  }

  stats(): EngineStats {
    const all = [...this.sessions.values()];
    return {
      stations: new Set(all.map((s) => s.stationId)).size,
      publishers: all.filter((s) => s.kind === 'publisher').length,
      listeners: all.filter((s) => s.kind === 'listener').length,
      pendingListeners: 0,
      maxListeners: null,
      shards: 0,
      packetsIn: 0,
      packetsOut: 0,
      bytesOut: 0,
      perShard: [],
    };
  }

  on(listener: (e: EngineEvent) => void): () => void {
    return this.events.on(listener);
  }

  /** Reports an event as the engine would. */
  emit(e: EngineEvent): void {
    this.events.emit(e);
  }

  /** The session ends by itself (ICE failure, timeout, …): gone from the engine, with its event. */
  end(sessionId: string, reason: PublisherGoneReason = 'timeout'): void {
    const s = this.sessions.get(sessionId);
    if (!s) return;
    this.sessions.delete(sessionId);
    if (s.kind === 'publisher') {
      this.goneHooks.get(sessionId)?.(reason);
      this.goneHooks.delete(sessionId);
      this.emit({ type: 'publisher-gone', stationId: s.stationId, sessionId, reason });
    } else {
      this.emit({ type: 'listener-gone', stationId: s.stationId, sessionId, reason });
    }
  }

  async close(): Promise<void> {
    this.sessions.clear();
  }

  private open(
    method: 'publish' | 'publishPackets' | 'addListener',
    kind: SessionKind,
    stationId: string,
    offerSdp: string,
  ): SessionAnswer {
    this.calls.push({ method, args: [stationId, offerSdp] });
    const fail = this.failNext;
    if (fail) {
      this.failNext = null;
      throw fail;
    }
    const sessionId = `00000000-0000-4000-8000-${String(++this.seq).padStart(12, '0')}`;
    this.sessions.set(sessionId, { stationId, kind });
    return { sessionId, answerSdp: `v=0 answer for ${sessionId}` };
  }
}
