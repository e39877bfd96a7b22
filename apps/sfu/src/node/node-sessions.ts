/**
 * Who is on a node: its publishers (live and waiting for their first media), its audience
 * listeners, and the relay legs it serves to edges; and the per-station audience counts it
 * publishes to the cluster.
 */
import type { MediaEngine } from '../media-engine.js';
import type { NodeEventBody } from '../protocol/schemas.js';

export class NodeSessions {
  /** stationId -> publisher session whose media flows (real publishers only). */
  readonly publishers = new Map<string, string>();
  /** Publishers opened here that have not sent media yet (they take over when they do): sessionId -> stationId. */
  readonly waiting = new Map<string, string>();
  /** stationId -> audience listener sessions on this node (pending or connected). */
  readonly audience = new Map<string, Set<string>>();
  /** Relay legs this node serves to edges: sessionId -> stationId. */
  readonly servedLegs = new Map<string, string>();
  /** The audience count last published per station. */
  private readonly published = new Map<string, number>();
  private readonly countTimers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly engine: MediaEngine,
    private readonly emit: (body: NodeEventBody) => Promise<void>,
    /** The station's last audience listener on this node left. */
    private readonly onAudienceEmpty: (stationId: string) => void,
  ) {}

  /** Publishers on this node: live ones and those waiting for their first media. */
  get publisherCount(): number {
    return this.publishers.size + this.waiting.size;
  }

  hasAudience(stationId: string): boolean {
    return (this.audience.get(stationId)?.size ?? 0) > 0;
  }

  addAudience(stationId: string, sessionId: string): void {
    let set = this.audience.get(stationId);
    if (!set) this.audience.set(stationId, (set = new Set()));
    set.add(sessionId);
  }

  stationIds(): Set<string> {
    return new Set([
      ...this.audience.keys(),
      ...this.servedLegs.values(),
      ...this.published.keys(),
    ]);
  }

  /** Connected listeners of the station on this engine, minus the relay legs served to edges. */
  audienceCount(stationId: string): number {
    let legs = 0;
    for (const s of this.servedLegs.values()) if (s === stationId) legs++;
    return Math.max(0, this.engine.listenerCount(stationId) - legs);
  }

  /** Coalesced: publish the station's audience count on this node when it changed. */
  scheduleCount(stationId: string): void {
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

  dropAudience(stationId: string, sessionId: string): boolean {
    const set = this.audience.get(stationId);
    if (!set?.delete(sessionId)) return false;
    if (set.size === 0) {
      this.audience.delete(stationId);
      this.onAudienceEmpty(stationId);
    }
    this.scheduleCount(stationId);
    return true;
  }

  /** The station closed: nobody is on it here any more. */
  dropStation(stationId: string): void {
    this.audience.delete(stationId);
    for (const [s, st] of this.servedLegs) if (st === stationId) this.servedLegs.delete(s);
  }

  /** ...and its publishers are gone (after the engine closed it). */
  dropPublishers(stationId: string): void {
    this.publishers.delete(stationId);
    for (const [s, st] of this.waiting) if (st === stationId) this.waiting.delete(s);
  }

  stopCounts(): void {
    for (const t of this.countTimers.values()) clearTimeout(t);
  }
}
