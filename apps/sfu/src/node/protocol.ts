/**
 * The contract between API nodes and standalone SFU nodes (cluster mode): Redis keys and channels,
 * the node registry record, the events a node publishes, and the internal HTTP API's shapes.
 *
 * Redis layout (`p` = EVENT_PREFIX):
 * - `p:sfu:nodes`              SET of node ids ever seen (a node is live only while its key exists)
 * - `p:sfu:node:{id}`          JSON {@link NodeInfo}, PX = node TTL (default 5 s), renewed every ~1.2 s
 * - `p:sfu:origin:{stationId}` the node id where the station's publisher is (its origin)
 * - `p:sfu:session:{id}`       JSON {@link SessionRecord}: which node holds a WHIP/WHEP session
 * - `p:sfu:leader`             the API node that aggregates listener counts (PX 5 s)
 * - `p:sfu:api:{id}`           an API node is alive (PX 5 s)
 * - channel `p:sfu:events`     JSON {@link NodeEvent}
 */

/** Header carrying the shared secret on every internal HTTP call. */
export const SFU_SECRET_HEADER = 'x-sfu-secret';

export const sfuKeys = (prefix: string) => ({
  nodes: `${prefix}:sfu:nodes`,
  node: (id: string) => `${prefix}:sfu:node:${id}`,
  origin: (stationId: string) => `${prefix}:sfu:origin:${stationId}`,
  session: (sessionId: string) => `${prefix}:sfu:session:${sessionId}`,
  leader: `${prefix}:sfu:leader`,
  api: (id: string) => `${prefix}:sfu:api:${id}`,
  events: `${prefix}:sfu:events`,
});

/** What a node registers about itself (renewed with its TTL). */
export interface NodeInfo {
  id: string;
  /** Internal HTTP base URL the API (and other nodes, for relays) call. */
  url: string;
  startedAt: number;
  /** When this record was written (ms since epoch). */
  at: number;
  /** Connected audience listeners (relay legs served to other nodes are not counted). */
  listeners: number;
  /** Stations whose publisher is on this node. */
  publishers: number;
  /** Relay legs this node pulls from origins (edge side). */
  relays: number;
  /** Relay legs this node serves to edges (origin side). */
  relayLegs: number;
  /** Placement score: listeners + relay legs served + publishers × publisher weight. Lower is freer. */
  load: number;
  /** Admission limit (SFU_MAX_LISTENERS), null when unlimited. */
  maxListeners: number | null;
  /** Audience listeners per station on this node (only stations with listeners). */
  stations: Record<string, number>;
}

export type NodeEventBody =
  | { type: 'publisher-media'; stationId: string; sessionId: string }
  | { type: 'publisher-gone'; stationId: string; sessionId: string; reason: string }
  | { type: 'listeners'; stationId: string; count: number }
  | { type: 'listener-gone'; stationId: string; sessionId: string; reason: string }
  | { type: 'node-up' }
  | { type: 'node-down' };

export type NodeEvent = NodeEventBody & { node: string };

export interface SessionRecord {
  stationId: string;
  nodeId: string;
  kind: 'publisher' | 'listener';
  /** Listener token that opened a WHEP session (DELETE must present it), if any. */
  token?: string | null;
  /** The API node that opened it: it runs the publisher's lifecycle (the leader does if it died). */
  api?: string;
}

// ---- internal HTTP API (all POST with JSON bodies except GET /v1/info) ----

export interface PublishRequest {
  stationId: string;
  offer: string;
}
export interface AddListenerRequest {
  stationId: string;
  offer: string;
  /** The station's origin when it is another node: this node pulls the station from it first. */
  origin?: { nodeId: string; url: string };
  /** Set by an edge node opening a relay leg: not an audience listener. */
  relay?: boolean;
  /** Node id of the edge asking for a relay leg. */
  from?: string;
}
export interface SessionRequest {
  stationId: string;
  sessionId: string;
}
export interface RestartIceRequest extends SessionRequest {
  offer: string;
}
export interface StationRequest {
  stationId: string;
}
export interface AnswerResponse {
  sessionId: string;
  answerSdp: string;
}
/** Error body: `error` is 'SdpError', 'CapacityError', 'NotFound', 'Unauthorized' or 'Error'. */
export interface ErrorResponse {
  error: string;
  message: string;
}
