/**
 * The protocol between API nodes and SFU nodes, in one place: the registry record a node keeps in
 * Redis, the events it publishes, and its internal HTTP API (route table with request and response
 * schemas). Both sides validate what they receive against these schemas.
 */
import { z } from 'zod';
import { MAX_SDP_BYTES } from '../sdp.js';

/** Header carrying the shared secret on every internal HTTP call. */
export const SFU_SECRET_HEADER = 'x-sfu-secret';

const Id = z.string().min(1).max(200);
const Count = z.number().int().nonnegative();
const Sdp = z.string().min(1).max(MAX_SDP_BYTES);

/** The SFU engine a node runs (MEDIA_ENGINE). */
export const NodeEngine = z.enum(['werift', 'mediasoup']);
export type NodeEngine = z.infer<typeof NodeEngine>;

/** What a node registers about itself (renewed with its TTL). */
export const NodeInfo = z.object({
  id: Id,
  /** Its SFU engine; a record without one is from a node that ran werift (before mediasoup). */
  engine: NodeEngine.optional(),
  /** Internal HTTP base URL the API (and other nodes, for relays) call. */
  url: z.string().url(),
  startedAt: z.number(),
  /** When this record was written (ms since epoch). */
  at: z.number(),
  /** Connected audience listeners (relay legs served to other nodes are not counted). */
  listeners: Count,
  /** Stations whose publisher is on this node. */
  publishers: Count,
  /** Relay legs this node pulls from origins (edge side). */
  relays: Count,
  /** Relay legs this node serves to edges (origin side). */
  relayLegs: Count,
  /** Placement score: listeners + relay legs served + publishers × publisher weight. Lower is freer. */
  load: z.number().nonnegative(),
  /** Admission limit (SFU_MAX_LISTENERS), null when unlimited. */
  maxListeners: z.number().int().positive().nullable(),
  /** Audience listeners per station on this node (only stations with listeners). */
  stations: z.record(z.string(), Count),
  /** Shutting down: takes no new session; its listeners are sent to other nodes. */
  draining: z.boolean().optional(),
});
export type NodeInfo = z.infer<typeof NodeInfo>;

/**
 * Every SFU node of a cluster runs one engine: the oldest live node's (earliest `startedAt`, then
 * the smaller id). The API nodes ignore a node on another engine; when the last node of the old
 * engine has left, the oldest remaining node's engine is the cluster's (so a cluster can be moved
 * from one engine to the other by replacing its nodes). null when no node is live.
 */
export function clusterEngine(
  infos: Iterable<NodeInfo>,
): { engine: NodeEngine; node: string } | null {
  let oldest: NodeInfo | null = null;
  for (const n of infos) {
    if (
      !oldest ||
      n.startedAt < oldest.startedAt ||
      (n.startedAt === oldest.startedAt && n.id < oldest.id)
    )
      oldest = n;
  }
  return oldest ? { engine: oldest.engine ?? 'werift', node: oldest.id } : null;
}

/** A node in a request: the station's origin an edge pulls from. */
export const NodeRef = z.object({ nodeId: Id, url: z.string().url() });
export type NodeRef = z.infer<typeof NodeRef>;

const PublisherGoneReason = z.enum(['deleted', 'timeout', 'ice-failed', 'replaced', 'closed']);

/** Published by a node on the events channel (`node` is the sender). */
export const NodeEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('publisher-media'), node: Id, stationId: Id, sessionId: Id }),
  z.object({
    type: z.literal('publisher-gone'),
    node: Id,
    stationId: Id,
    sessionId: Id,
    reason: PublisherGoneReason,
  }),
  z.object({ type: z.literal('listeners'), node: Id, stationId: Id, count: Count }),
  z.object({
    type: z.literal('listener-gone'),
    node: Id,
    stationId: Id,
    sessionId: Id,
    reason: z.string().max(100),
  }),
  z.object({ type: z.literal('node-up'), node: Id }),
  z.object({ type: z.literal('node-down'), node: Id }),
  z.object({ type: z.literal('node-draining'), node: Id }),
]);
export type NodeEvent = z.infer<typeof NodeEvent>;
/** An event as a node writes it, before it adds its id. */
export type NodeEventBody = NodeEvent extends infer E
  ? E extends NodeEvent
    ? Omit<E, 'node'>
    : never
  : never;

// ---- internal HTTP API ----

export const PublishRequest = z.object({ stationId: Id, offer: Sdp });
export const AddListenerRequest = z.object({
  stationId: Id,
  offer: Sdp,
  /** The station's origin when it is another node: this node pulls the station from it first. */
  origin: NodeRef.optional(),
  /** Set by an edge node opening a relay leg: not an audience listener. */
  relay: z.boolean().optional(),
});
export type AddListenerRequest = z.infer<typeof AddListenerRequest>;
export const SessionRequest = z.object({ stationId: Id, sessionId: Id });
export const StationRequest = z.object({ stationId: Id });
export const AnswerResponse = z.object({ sessionId: Id, answerSdp: z.string().min(1) });
export const OkResponse = z.object({ ok: z.boolean() });
/**
 * Error body: `error` is 'SdpError', 'CapacityError', 'RelayError', 'Draining' (503 with
 * `Retry-After`: the node is shutting down, place the session elsewhere), 'BadRequest', 'NotFound',
 * 'Unauthorized' or 'Error'.
 */
export const ErrorResponse = z.object({ error: z.string(), message: z.string() });

const NoBody = z.undefined();

/** Every route of a node's internal API: GET without a body, POST with a JSON body. */
export const nodeRoutes = {
  info: { method: 'GET', path: '/v1/info', request: NoBody, response: NodeInfo },
  publish: {
    method: 'POST',
    path: '/v1/publish',
    request: PublishRequest,
    response: AnswerResponse,
  },
  unpublish: {
    method: 'POST',
    path: '/v1/unpublish',
    request: SessionRequest,
    response: OkResponse,
  },
  addListener: {
    method: 'POST',
    path: '/v1/listeners',
    request: AddListenerRequest,
    response: AnswerResponse,
  },
  removeListener: {
    method: 'POST',
    path: '/v1/listeners/remove',
    request: SessionRequest,
    response: OkResponse,
  },
  closeStation: {
    method: 'POST',
    path: '/v1/close-station',
    request: StationRequest,
    response: OkResponse,
  },
} as const;

export type NodeRoutes = typeof nodeRoutes;

/** Header of the streaming routes carrying their JSON parameters (the body is the stream). */
export const SFU_PARAMS_HEADER = 'x-sfu-params';

/** What a packet publisher's response streams back, one JSON object per line. */
export const PacketPublisherMessage = z.union([
  z.object({ sessionId: Id }),
  z.object({ gone: PublisherGoneReason }),
]);
export type PacketPublisherMessage = z.infer<typeof PacketPublisherMessage>;

/**
 * Streaming routes (POST, parameters in {@link SFU_PARAMS_HEADER}):
 * - `publishPackets`: the request body is the publisher's packets as frames (`packet-frames.ts`);
 *   the response is NDJSON: `{sessionId}` once attached, `{gone}` when the engine drops it.
 *   Closing the request stops the publisher.
 * - `tap`: the response is the station's packets as frames until either side closes.
 */
export const nodeStreams = {
  publishPackets: { method: 'POST', path: '/v1/publish-packets', params: StationRequest },
  tap: { method: 'POST', path: '/v1/tap', params: StationRequest },
} as const;
export type NodeStreamName = keyof typeof nodeStreams;
export type NodeRouteName = keyof NodeRoutes;
export type NodeRequest<R extends NodeRouteName> = z.infer<NodeRoutes[R]['request']>;
export type NodeResponse<R extends NodeRouteName> = z.infer<NodeRoutes[R]['response']>;
