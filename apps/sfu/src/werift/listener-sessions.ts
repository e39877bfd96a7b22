/** The engine's listener sessions: which station and shard each is on, from admission to gone. */
import type { EngineEvent, SessionAnswer } from '../media-engine.js';
import { randomUUID } from 'node:crypto';
import { validateOffer } from '../sdp.js';
import type { Admission } from './admission.js';
import type { ShardHandle } from './shard-handles.js';
import type { StationBook } from './stations.js';

export interface ListenerSession {
  stationId: string;
  shard: ShardHandle;
}

export class ListenerSessions {
  private readonly sessions = new Map<string, ListenerSession>();

  constructor(
    private readonly stations: StationBook,
    private readonly admission: Admission,
    private readonly emit: (e: EngineEvent) => void,
  ) {}

  /** Sessions placed on shards (pending and connected). */
  get size(): number {
    return this.sessions.size;
  }

  /** Whether a session of the station is still open. */
  onStation(stationId: string): boolean {
    for (const s of this.sessions.values()) if (s.stationId === stationId) return true;
    return false;
  }

  has(stationId: string, sessionId: string): boolean {
    return this.sessions.get(sessionId)?.stationId === stationId;
  }

  async add(stationId: string, offerSdp: string): Promise<SessionAnswer> {
    validateOffer(offerSdp, 'listener');
    const shard = this.admission.pick(this.sessions.size);
    const sessionId = randomUUID();
    this.stations.station(stationId, true);
    this.sessions.set(sessionId, { stationId, shard });
    shard.sessions++;
    try {
      const answerSdp = await shard.add(stationId, sessionId, offerSdp);
      if (!this.sessions.has(sessionId)) {
        await shard.remove(stationId, sessionId).catch(() => false);
        throw new Error('listener removed during set-up');
      }
      return { sessionId, answerSdp };
    } catch (err) {
      if (this.sessions.get(sessionId)) {
        this.sessions.delete(sessionId);
        shard.sessions--;
      }
      const st = this.stations.get(stationId);
      if (st) this.stations.maybeDropStation(st);
      throw err;
    }
  }

  async remove(stationId: string, sessionId: string): Promise<boolean> {
    const s = this.sessions.get(sessionId);
    if (!s || s.stationId !== stationId) return false;
    this.sessions.delete(sessionId);
    s.shard.sessions--;
    await s.shard.remove(stationId, sessionId).catch(() => false);
    return true;
  }

  /** The shard let the session go (timeout, ICE failure...). */
  gone(stationId: string, sessionId: string, reason: string): void {
    const s = this.sessions.get(sessionId);
    if (s && s.stationId === stationId) {
      this.sessions.delete(sessionId);
      s.shard.sessions--;
      this.emit({ type: 'listener-gone', stationId, sessionId, reason });
    }
  }

  /** Shard `index` died: its sessions are gone. */
  shardFailed(index: number): void {
    for (const [sessionId, s] of [...this.sessions]) {
      if (s.shard.index !== index) continue;
      this.sessions.delete(sessionId);
      this.emit({
        type: 'listener-gone',
        stationId: s.stationId,
        sessionId,
        reason: 'shard-failed',
      });
    }
  }

  /** The station closed: its sessions are gone (the shards close their PeerConnections). */
  stationClosed(stationId: string): void {
    for (const [sessionId, s] of [...this.sessions]) {
      if (s.stationId !== stationId) continue;
      this.sessions.delete(sessionId);
      s.shard.sessions--;
      this.emit({ type: 'listener-gone', stationId, sessionId, reason: 'station-closed' });
    }
  }

  clear(): void {
    this.sessions.clear();
  }
}
