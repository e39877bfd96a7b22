/**
 * Engine-agnostic media engine contract. The API talks to this interface only; the werift
 * implementation lives in `werift-engine.ts`, another engine (e.g. mediasoup) could implement it too.
 */

export interface IceServerConfig {
  urls: string | string[];
  username?: string;
  credential?: string;
}

export interface MediaEngineOptions {
  /** IP put in host candidates (in addition to the gathered ones; 127.0.0.1 is always added). */
  announcedAddress?: string;
  /** UDP ports for ICE. */
  portRange?: { min: number; max: number };
  /** Default []. */
  iceServers?: IceServerConfig[];
  /** Listener shards (worker threads). Default os.availableParallelism(); 0 = listeners in the calling thread. */
  shards?: number;
  /** No RTP for this long => publisher gone (default 5000). */
  publisherTimeoutMs?: number;
  /** Consent/ICE failure or silence => listener removed within this (default 10000, at most 10000). */
  listenerTimeoutMs?: number;
  /** Admission control: addListener throws CapacityError above this many listeners (engine-wide). */
  maxListeners?: number;
  /** Admission control: refuse joins while every shard's event-loop utilization is above this (default 0.95). */
  maxShardLoad?: number;
}

export interface SessionAnswer {
  sessionId: string;
  answerSdp: string;
}

export type PublisherGoneReason = 'deleted' | 'timeout' | 'ice-failed' | 'replaced' | 'closed';

export type EngineEvent =
  | { type: 'publisher-media'; stationId: string; sessionId: string }
  | { type: 'publisher-gone'; stationId: string; sessionId: string; reason: PublisherGoneReason }
  | { type: 'listeners'; stationId: string; count: number }
  | { type: 'listener-gone'; stationId: string; sessionId: string; reason: string };

export interface EngineStats {
  stations: number;
  publishers: number;
  listeners: number;
  /** Listener sessions created but not yet connected. */
  pendingListeners: number;
  shards: number;
  packetsIn: number;
  packetsOut: number;
  bytesOut: number;
  /** Per shard figures (index 0.. shards-1, or a single in-thread shard). */
  perShard: {
    listeners: number;
    packetsOut: number;
    sendErrors: number;
    srtp?: { gcm: number; cm: number };
  }[];
}

export interface MediaEngine {
  /** Attach (or replace) the publisher of a station. Replacing keeps every listener connected. */
  publish(stationId: string, offerSdp: string): Promise<SessionAnswer>;
  /** false if the session is unknown or not the station's publisher. */
  unpublish(stationId: string, sessionId: string): Promise<boolean>;
  addListener(stationId: string, offerSdp: string): Promise<SessionAnswer>;
  /** false if unknown. */
  removeListener(stationId: string, sessionId: string): Promise<boolean>;
  /** ICE restart (WHIP/WHEP PATCH): returns the new answer, or null if the session is unknown. */
  restartIce?(stationId: string, sessionId: string, offerSdp: string): Promise<string | null>;
  /** Disconnect the publisher and every listener of the station. */
  closeStation(stationId: string): Promise<void>;
  /** Connected listeners of the station (exact, across shards). */
  listenerCount(stationId: string): number;
  hasSession(stationId: string, sessionId: string): 'publisher' | 'listener' | null;
  stats(): EngineStats;
  on(listener: (e: EngineEvent) => void): () => void;
  close(): Promise<void>;
}

/** Malformed/oversized SDP, offer without audio, no Opus, ... (the API maps it to 400). */
export class SdpError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SdpError';
  }
}

/** Admission control refusal (the API maps it to 503). */
export class CapacityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CapacityError';
  }
}
