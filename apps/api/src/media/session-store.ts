/**
 * What signalling remembers about WHIP/WHEP sessions: each station's current publisher, each
 * session's station and token, which listener tokens were used, the listener slots counted against
 * the caps per IP and per station. In memory when the SFU runs in this process; in Redis in cluster
 * mode, where any API node may be asked about a session another one opened.
 */
import type { SessionKind } from '@radiobroadcaster/sfu';
import { slotsByAddress } from './viewer-count.js';

/** The station's publisher: the last one whose media flowed, or one opened while none was live. */
export interface PublisherRecord {
  sessionId: string;
  /** The station token it was opened with: a reconnect with the same token replaces it. */
  tokenId: string;
  userId: string;
}

/** A listener's place in the caps per IP and per station. */
export interface ListenerSlot {
  id: string;
  ip: string;
  stationId: string;
}

export interface SessionRecord {
  stationId: string;
  kind: SessionKind;
  /** SHA-256 of the listener token that opened it: DELETE must present the same token. */
  tokenHash: string | null;
  slot: ListenerSlot | null;
  /**
   * Publishers: who opened it, so it becomes the station's {@link PublisherRecord} once its media
   * flows (a publisher opened while another is live takes over only then).
   */
  publisher?: Omit<PublisherRecord, 'sessionId'>;
}

/** 0 = no cap. */
export interface ListenerCaps {
  perIp: number;
  perStation: number;
}

export type Admission = 'ok' | 'ip-full' | 'station-full';

/** Records outlive any real session only by this much (they are deleted when it ends). */
export const RECORD_TTL_MS = 24 * 3600 * 1000;

export abstract class SessionStore {
  abstract publisher(stationId: string): Promise<PublisherRecord | null>;
  abstract setPublisher(stationId: string, rec: PublisherRecord): Promise<void>;
  abstract clearPublisher(stationId: string): Promise<void>;

  abstract session(sessionId: string): Promise<SessionRecord | null>;
  abstract putSession(sessionId: string, rec: SessionRecord): Promise<void>;
  /** Removes the record and frees its listener slot; only one caller gets it. */
  abstract takeSession(sessionId: string): Promise<SessionRecord | null>;

  /** true the first time a listener token id is presented (within `ttlMs`). */
  abstract claimToken(tokenId: string, ttlMs: number): Promise<boolean>;
  abstract releaseToken(tokenId: string): Promise<void>;

  /** Takes a listener slot unless the IP or the station is at its cap. */
  abstract admitListener(slot: ListenerSlot, caps: ListenerCaps): Promise<Admission>;
  abstract releaseListener(slot: ListenerSlot): Promise<void>;
  /** The station's listener slots by address (see viewer-count.ts). */
  abstract listenersByAddress(stationId: string): Promise<Map<string, number>>;

  /** true for the first caller of `key` within `ttlMs`: a lifecycle step taken once. */
  abstract once(key: string, ttlMs: number): Promise<boolean>;

  abstract close(): Promise<void>;
}

/** One process: plain maps (the SFU is in this process too, so nothing outlives it). */
export class InMemorySessionStore extends SessionStore {
  private readonly publishers = new Map<string, PublisherRecord>();
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly marks = new Map<string, number>();
  private readonly slots = new Map<string, Set<string>>();

  async publisher(stationId: string): Promise<PublisherRecord | null> {
    return this.publishers.get(stationId) ?? null;
  }
  async setPublisher(stationId: string, rec: PublisherRecord): Promise<void> {
    this.publishers.set(stationId, rec);
  }
  async clearPublisher(stationId: string): Promise<void> {
    this.publishers.delete(stationId);
  }

  async session(sessionId: string): Promise<SessionRecord | null> {
    return this.sessions.get(sessionId) ?? null;
  }
  async putSession(sessionId: string, rec: SessionRecord): Promise<void> {
    this.sessions.set(sessionId, rec);
  }
  async takeSession(sessionId: string): Promise<SessionRecord | null> {
    const rec = this.sessions.get(sessionId);
    if (!rec) return null;
    this.sessions.delete(sessionId);
    if (rec.slot) await this.releaseListener(rec.slot);
    return rec;
  }

  async claimToken(tokenId: string, ttlMs: number): Promise<boolean> {
    return this.mark(`token:${tokenId}`, ttlMs);
  }
  async releaseToken(tokenId: string): Promise<void> {
    this.marks.delete(`token:${tokenId}`);
  }

  async admitListener(slot: ListenerSlot, caps: ListenerCaps): Promise<Admission> {
    const ip = this.slotSet(`ip:${slot.ip}`);
    const station = this.slotSet(`station:${slot.stationId}`);
    if (caps.perIp > 0 && ip.size >= caps.perIp) return 'ip-full';
    if (caps.perStation > 0 && station.size >= caps.perStation) return 'station-full';
    ip.add(slot.id);
    station.add(slot.id);
    return 'ok';
  }
  async releaseListener(slot: ListenerSlot): Promise<void> {
    for (const key of [`ip:${slot.ip}`, `station:${slot.stationId}`]) {
      const set = this.slots.get(key);
      set?.delete(slot.id);
      if (set?.size === 0) this.slots.delete(key);
    }
  }

  async listenersByAddress(stationId: string): Promise<Map<string, number>> {
    return slotsByAddress(this.slots.get(`station:${stationId}`) ?? []);
  }

  async once(key: string, ttlMs: number): Promise<boolean> {
    return this.mark(`once:${key}`, ttlMs);
  }

  async close(): Promise<void> {
    this.publishers.clear();
    this.sessions.clear();
    this.marks.clear();
    this.slots.clear();
  }

  private mark(key: string, ttlMs: number, now = Date.now()): boolean {
    const until = this.marks.get(key);
    if (until !== undefined && until > now) return false;
    if (this.marks.size > 100_000) {
      for (const [k, t] of this.marks) if (t <= now) this.marks.delete(k);
    }
    this.marks.set(key, now + ttlMs);
    return true;
  }

  private slotSet(key: string): Set<string> {
    let set = this.slots.get(key);
    if (!set) this.slots.set(key, (set = new Set()));
    return set;
  }
}
