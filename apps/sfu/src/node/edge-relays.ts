/**
 * The relays a node pulls as an edge: one per station whose publisher is on another node (its
 * origin), started on the first listener, rebuilt when the origin moves, torn down a while after
 * the last listener left.
 */
import type { MediaEngine } from '../media-engine.js';
import { SfuNodeClient } from '../protocol/client.js';
import type { NodeRef } from '../protocol/schemas.js';
import type { PeerSettings } from '../werift/werift-config.js';
import type { NodeRegistration } from './node-registration.js';
import { Relay } from './relay.js';

export interface EdgeRelaysDeps {
  readonly nodeId: string;
  readonly engine: MediaEngine;
  readonly settings: () => PeerSettings;
  readonly secret: string;
  readonly relayLingerMs: number;
  readonly registration: NodeRegistration;
  /** Whether the station still has audience listeners on this node. */
  readonly hasAudience: (stationId: string) => boolean;
}

export class EdgeRelays {
  /** Relays this node pulls, by station. */
  private readonly relays = new Map<string, Relay>();
  private readonly relayStarts = new Map<string, Promise<Relay>>();
  private readonly lingerTimers = new Map<string, NodeJS.Timeout>();
  private readonly clients = new Map<string, SfuNodeClient>();

  constructor(private readonly deps: EdgeRelaysDeps) {}

  get size(): number {
    return this.relays.size;
  }

  has(stationId: string): boolean {
    return this.relays.has(stationId);
  }

  /** The relay whose out-leg (the engine publisher it feeds) is `sessionId`. */
  outLeg(stationId: string, sessionId: string): Relay | undefined {
    const r = this.relays.get(stationId);
    return r && r.outSessionId === sessionId ? r : undefined;
  }

  private client(url: string): SfuNodeClient {
    let c = this.clients.get(url);
    if (!c) {
      c = new SfuNodeClient(url, this.deps.secret);
      this.clients.set(url, c);
    }
    return c;
  }

  ensure(stationId: string, origin: NodeRef): Promise<Relay> {
    const existing = this.relays.get(stationId);
    if (existing && existing.state !== 'closed' && existing.origin.nodeId === origin.nodeId)
      return Promise.resolve(existing);
    const starting = this.relayStarts.get(stationId);
    if (starting) return starting;
    const p = (async () => {
      if (existing) await this.drop(stationId);
      const relay = new Relay({
        engine: this.deps.engine,
        settings: this.deps.settings(),
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

  async drop(stationId: string): Promise<void> {
    const relay = this.relays.get(stationId);
    if (!relay) return;
    this.relays.delete(stationId);
    await relay.close();
  }

  /** A relay whose station moved to another origin (or whose in-leg broke) is rebuilt. */
  async checkOrigins(): Promise<void> {
    const { registration, nodeId } = this.deps;
    for (const [stationId, relay] of this.relays) {
      const origin = await registration.origin(stationId);
      if (!origin) continue;
      const moved = origin !== relay.origin.nodeId;
      if (!moved && relay.state !== 'broken') continue;
      const info = await registration.node(origin);
      if (!info) continue;
      console.warn(`[sfu-node] relay ${stationId}: rebuilding from ${origin}`);
      await this.drop(stationId);
      if (origin === nodeId || !this.deps.hasAudience(stationId)) continue;
      await this.ensure(stationId, { nodeId: origin, url: info.url }).catch((err) =>
        console.warn(`[sfu-node] relay ${stationId}: ${(err as Error).message}`),
      );
    }
  }

  /** The station's last listener left: its relay goes after the linger time unless one comes back. */
  scheduleTeardown(stationId: string): void {
    if (!this.relays.has(stationId) || this.lingerTimers.has(stationId)) return;
    this.lingerTimers.set(
      stationId,
      setTimeout(() => {
        this.lingerTimers.delete(stationId);
        if (this.deps.hasAudience(stationId)) return;
        void this.drop(stationId);
      }, this.deps.relayLingerMs),
    );
  }

  cancelTeardown(stationId: string): void {
    const t = this.lingerTimers.get(stationId);
    if (t) clearTimeout(t);
    this.lingerTimers.delete(stationId);
  }

  async close(): Promise<void> {
    for (const t of this.lingerTimers.values()) clearTimeout(t);
    await Promise.all([...this.relays.keys()].map((s) => this.drop(s)));
  }
}
