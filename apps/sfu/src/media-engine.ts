import type { CapacityOptions } from './werift/capacity.js';

/**
 * The media seam: everything the API asks of the SFU goes through `MediaEngine`. Two
 * implementations sit side by side: `werift/` (the SFU in this process, also what every SFU node
 * runs) and `remote/` (an API node's view of the SFU nodes registered in Redis). Which one an API
 * process uses is decided once, when the app is wired.
 */

export interface IceServerConfig {
  urls: string | string[];
  username?: string;
  credential?: string;
}

export interface MediaEngineOptions {
  /** IP put in host candidates (in addition to the gathered ones; 127.0.0.1 is always added). */
  announcedAddress?: string;
  /** UDP ports for ICE when each session has a socket of its own (no `udpPort`). */
  portRange?: { min: number; max: number };
  /**
   * One UDP port for every WebRTC session of this engine (`RTC_UDP_PORT`), demultiplexed by ICE
   * ufrag then remote address; 0 = a free port chosen at start. Unset: a socket per session.
   */
  udpPort?: number;
  /** ICE-TCP (RFC 6544 passive candidates) on this one TCP port (`RTC_TCP_PORT`); needs `udpPort`. */
  tcpPort?: number;
  /** Default []. */
  iceServers?: IceServerConfig[];
  /** Listener shards (worker threads). Default os.availableParallelism(); 0 = listeners in the calling thread. */
  shards?: number;
  /** No RTP for this long => publisher gone (default 5000). */
  publisherTimeoutMs?: number;
  /** Consent/ICE failure or silence => listener removed within this (default 10000, at most 10000). */
  listenerTimeoutMs?: number;
  /**
   * Admission control: addListener throws CapacityError above this many listeners (engine-wide).
   * Below it, each shard also takes only as many listeners as its thread is measured to hold on this
   * machine (werift/capacity.ts; an in-thread shard, which shares its thread, keeps the prior's
   * ~720). Default: no fixed cap, the measured capacity alone; 0 = no limit at all (benchmarks that
   * look for the breaking point).
   */
  maxListeners?: number;
  /** How shards measure what they hold (target share of a core, the prior before measurements). */
  capacity?: CapacityOptions;
}

export interface SessionAnswer {
  sessionId: string;
  answerSdp: string;
}

export type SessionKind = 'publisher' | 'listener';

export type PublisherGoneReason = 'deleted' | 'timeout' | 'ice-failed' | 'replaced' | 'closed';

export type EngineEvent =
  | { type: 'publisher-media'; stationId: string; sessionId: string }
  | { type: 'publisher-gone'; stationId: string; sessionId: string; reason: PublisherGoneReason }
  | { type: 'listeners'; stationId: string; count: number }
  | { type: 'listener-gone'; stationId: string; sessionId: string; reason: string }
  /**
   * Publishers may have come or gone without their own events (this node took over the cluster's
   * lifecycle duties, or an SFU node vanished): the lifecycle re-checks every live station.
   */
  | { type: 'resync' };

export interface EngineStats {
  stations: number;
  publishers: number;
  listeners: number;
  /** Listener sessions created but not yet connected. */
  pendingListeners: number;
  /** Admission limit, null when unlimited. */
  maxListeners: number | null;
  shards: number;
  packetsIn: number;
  packetsOut: number;
  bytesOut: number;
  /** One port per node (`udpPort` set): the ports and what crossed them; absent with a socket per session. */
  net?: {
    udpPort: number;
    tcpPort: number | null;
    /** ICE sessions on the ports (publishers and listeners, every thread). */
    sessions: number;
    /** Sockets connected to one peer each, bound to the node's port. */
    links: number;
    tcpConnections: number;
    /** Datagrams read by the shared socket (a peer's first contact), handed to the thread owning the ufrag. */
    firstContact: number;
    /** Datagrams and connections refused: unknown ufrag, failed MESSAGE-INTEGRITY, not ICE. */
    dropped: number;
  };
  /** Loss recovery: packets asked of publishers (NACK), and sent again to listeners that NACKed. */
  recovery?: { nackedFromPublishers: number; retransmittedToListeners: number };
  /** Per shard figures (index 0.. shards-1, or a single in-thread shard). */
  perShard: {
    listeners: number;
    packetsOut: number;
    sendErrors: number;
    srtp?: { gcm: number; cm: number };
    /** Listeners admission lets this shard hold now, null when unlimited. */
    capacity?: number | null;
    /** Listeners its thread is measured to hold on this machine (admitted or not). */
    measuredCapacity?: number;
    /** CPU time of the shard's thread so far, where the OS reports it. */
    cpuSeconds?: number | null;
    /**
     * Consent checks (RFC 7675) the shard handled itself on one-port sessions: listeners' checks it
     * answered, and answers to its own checks that renewed a listener's consent.
     */
    consent?: { answered: number; granted: number };
  }[];
}

/** One SFU node as the cluster sees it. */
export interface ClusterNodeSummary {
  id: string;
  listeners: number;
  publishers: number;
  /** Stations this node pulls from their origin. */
  relays: number;
}

/** What an engine that spans several SFU nodes reports about them (health, metrics). */
export interface ClusterInfo {
  nodes: ClusterNodeSummary[];
  /** Origin-to-edge relay legs across the nodes. */
  relays: number;
  /** This API node aggregates listener counts and runs the stations' lifecycle. */
  leader: boolean;
}

/**
 * A station's publisher fed from outside WebRTC (the Icecast-protocol ingest): Opus packets pushed
 * one at a time, at the pace they should be heard (the caller paces). It takes over at its first
 * packet, goes live, times out without packets and is replaced exactly like a WHIP publisher.
 */
export interface PacketPublisher {
  readonly sessionId: string;
  /** Sends one Opus packet lasting `samples` 48 kHz samples (per channel) to the station now. */
  push(payload: Buffer, samples: number): void;
  /** Settles (never rejects) with why the engine dropped this publisher: timeout, replaced, closed, ... */
  readonly gone: Promise<PublisherGoneReason>;
  /** Stops publishing (as `unpublish`; the engine reports `publisher-gone` with reason 'deleted'). */
  close(): Promise<void>;
}

/** Called with every Opus payload the station's publisher sends, whatever its transport. */
export type PacketTap = (payload: Buffer) => void;

export interface MediaEngine {
  /**
   * Opens a publisher for the station. It takes over once its media flows (its first packet):
   * then the station's publisher, if any, goes with reason 'replaced' and every listener stays
   * connected. Until then the current publisher keeps going, and one that never sends times out
   * (`publisherTimeoutMs`) having changed nothing. So a client reconnecting before its stale session
   * timed out replaces it, and an offer that never connects cannot cut a live broadcast.
   * `hasSession` and `unpublish` know the session from the start.
   */
  publish(stationId: string, offerSdp: string): Promise<SessionAnswer>;
  /** A publisher that pushes Opus packets itself (see {@link PacketPublisher}), taking over as `publish`. */
  publishPackets(stationId: string): Promise<PacketPublisher>;
  /**
   * Subscribes to the station's Opus payloads as its publisher sends them (WHIP, studio, packets),
   * until the returned function is called. A tap outlives publishers: it hears the next one too.
   */
  tap(stationId: string, onPacket: PacketTap): () => void;
  /** false if the session is unknown or not the station's publisher. */
  unpublish(stationId: string, sessionId: string): Promise<boolean>;
  addListener(stationId: string, offerSdp: string): Promise<SessionAnswer>;
  /** false if unknown. */
  removeListener(stationId: string, sessionId: string): Promise<boolean>;
  /** Disconnect the publisher and every listener of the station. */
  closeStation(stationId: string): Promise<void>;
  /** Connected listeners of the station (exact, across shards and nodes). */
  listenerCount(stationId: string): number;
  /** Whether the session is alive, wherever it runs. */
  hasSession(stationId: string, sessionId: string): Promise<SessionKind | null>;
  stats(): EngineStats;
  /** Only engines that span SFU nodes have it. */
  clusterInfo?(): ClusterInfo;
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

/** Fan-out of engine events to subscribers; one listener that throws never stops the others. */
export class EngineEvents {
  private readonly subscribers = new Set<(e: EngineEvent) => void>();

  constructor(private readonly onError: (err: unknown) => void) {}

  on(listener: (e: EngineEvent) => void): () => void {
    this.subscribers.add(listener);
    return () => this.subscribers.delete(listener);
  }

  emit(e: EngineEvent): void {
    for (const s of this.subscribers) {
      try {
        s(e);
      } catch (err) {
        this.onError(err);
      }
    }
  }
}
