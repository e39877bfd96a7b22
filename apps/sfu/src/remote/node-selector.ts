/**
 * Placement: which SFU node takes a new session. Like LiveKit's node selector: filter out the nodes
 * that cannot take it (suspected dead, draining, at capacity), then sort the rest by load.
 */
import type { NodeInfo } from '../protocol/schemas.js';

export interface NodeSelectorOptions {
  /** A node that failed a call is avoided for this long (ms). */
  suspectMs?: number;
  /** Placements made here count as load this long, until the node's record shows them (ms). */
  pendingMs?: number;
}

export class NodeSelector {
  private readonly suspects = new Map<string, number>();
  private readonly recent = new Map<string, number[]>();
  private readonly suspectMs: number;
  private readonly pendingMs: number;

  constructor(o: NodeSelectorOptions = {}) {
    this.suspectMs = o.suspectMs ?? 10_000;
    this.pendingMs = o.pendingMs ?? 2000;
  }

  /** Candidates, freest first (ties by id, so placement is deterministic). */
  rank(nodes: Iterable<NodeInfo>, exclude: ReadonlySet<string> = new Set()): NodeInfo[] {
    const now = Date.now();
    return [...nodes]
      .filter((n) => !exclude.has(n.id) && !n.draining && this.usable(n.id, now))
      .filter((n) => n.maxListeners === null || n.listeners < n.maxListeners)
      .map((n) => ({ n, score: n.load + this.pending(n.id, now) }))
      .sort((a, b) => a.score - b.score || a.n.id.localeCompare(b.n.id))
      .map((x) => x.n);
  }

  /** Not suspected of being dead. */
  usable(nodeId: string, now = Date.now()): boolean {
    return (this.suspects.get(nodeId) ?? 0) < now;
  }

  /** A call to the node failed to connect: avoid it for a while. */
  suspect(nodeId: string): void {
    this.suspects.set(nodeId, Date.now() + this.suspectMs);
  }

  /** The node announced itself (again): it is trusted at once. */
  trust(nodeId: string): void {
    this.suspects.delete(nodeId);
  }

  /** A session was placed on the node: it weighs until the node's record includes it. */
  placed(nodeId: string): void {
    const times = this.recent.get(nodeId) ?? [];
    times.push(Date.now());
    this.recent.set(nodeId, times);
  }

  forget(nodeId: string): void {
    this.suspects.delete(nodeId);
    this.recent.delete(nodeId);
  }

  private pending(nodeId: string, now: number): number {
    const times = (this.recent.get(nodeId) ?? []).filter((t) => now - t < this.pendingMs);
    this.recent.set(nodeId, times);
    return times.length;
  }
}
