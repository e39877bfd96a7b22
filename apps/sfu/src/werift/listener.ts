/** One listener PeerConnection on a shard, and the view of werift's ICE internals the shard reads. */
import type { Socket } from 'node:dgram';
import type { RTCPeerConnection, RTCRtpTransceiver } from '../boundary/werift.js';
import type { DatagramOut } from '../boundary/datagram-out.js';
import type { SrtpStreamSender } from '../boundary/srtp-sender.js';
import type { ConsentCredentials, ListenerConsent } from './listener-consent.js';

/** Minimal view of werift's ICE pair / connection internals used for the direct send path. */
export interface IcePair {
  localCandidate: { type: string };
  remoteCandidate: { host: string; port: number };
  protocol: { transport?: { type?: string; socket?: Socket } };
  packetsReceived: number;
  requestsReceived: number;
  responsesReceived: number;
}
/** werift's ICE Connection as the shard reads it (its credentials are the consent path's). */
export interface IceConnection extends Omit<ConsentCredentials, 'priority'> {
  nominated?: IcePair;
  /** Every candidate pair: a peer may keep sending its consent checks on a pair other than ours. */
  checkList?: IcePair[];
  state: string;
  consentFresh: boolean;
  iceLite?: boolean;
  send(data: Buffer): Promise<void>;
  /** Ends werift's own consent checks (RFC 7675); the shard's ListenerConsent takes over. */
  stopConsentLifecycle?: () => void;
}

/** What the peer has sent so far, on any candidate pair (STUN requests and answers, RTCP). */
export function activity(ice: IceConnection | null): number {
  const pairs = ice?.checkList ?? (ice?.nominated ? [ice.nominated] : []);
  let n = 0;
  for (const p of pairs) n += p.packetsReceived + p.requestsReceived + p.responsesReceived;
  return pairs.length ? n : -1;
}

export class Listener {
  connected = false;
  /** Frees this listener's handshake slot. */
  handshakeDone: () => void = () => undefined;
  removed = false;
  /**
   * The fan-out may send to it: connected, its ICE neither failed nor closed, consent fresh (checked
   * with its presence, not per packet).
   */
  sendable = false;
  sender: SrtpStreamSender | null = null;
  ice: IceConnection | null = null;
  pair: IcePair | null = null;
  socket: Socket | null = null;
  /** The fan-out's path to the selected pair (set with the pair). */
  out: DatagramOut | null = null;
  host = '';
  /** The selected pair's remote port (`port` is 0 on the mux's connected socket). */
  remotePort = 0;
  /** Consent checks on the mux's selected pair, answered and sent by the shard (null: werift's). */
  consent: ListenerConsent | null = null;
  lastActivity = Date.now();
  activity = -1;
  readonly createdAt = Date.now();
  constructor(
    readonly sessionId: string,
    readonly stationId: string,
    readonly pc: RTCPeerConnection,
    readonly transceiver: RTCRtpTransceiver,
  ) {}
}

/** One station's listeners on a shard: every session by id, and the connected ones in fan-out order. */
export class StationListeners {
  readonly all = new Map<string, Listener>();
  readonly connected: Listener[] = [];
}
