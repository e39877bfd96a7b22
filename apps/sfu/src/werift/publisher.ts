/** One publisher of a station: its WebRTC PeerConnection or packet feed, and its stream rewrite. */
import {
  GenericNack,
  RtcpTransportLayerFeedback,
  type RTCPeerConnection,
  type RTCRtpTransceiver,
} from '../boundary/werift.js';
import type { PublisherGoneReason } from '../media-engine.js';
import type { NackRequester } from '../nack.js';

export interface Publisher {
  readonly sessionId: string;
  readonly stationId: string;
  /** WebRTC publishers; packet publishers (see publishPackets) have none. */
  readonly pc?: RTCPeerConnection;
  /** Packet publishers: sequence number and timestamp of their next packet (before the deltas). */
  next?: { seq: number; ts: number };
  readonly onGone?: (reason: PublisherGoneReason) => void;
  /** WebRTC publishers: asks for what they lost on the way to us (RFC 4585 generic NACK). */
  readonly nack?: NackRequester;
  /** WebRTC publishers: their RTP stream's SSRC (what the NACKs name). */
  ssrc?: number;
  readonly createdAt: number;
  lastRtpAt: number;
  gotMedia: boolean;
  seqDelta: number;
  tsDelta: number;
  gone: boolean;
}

/** A publisher that has sent nothing yet: WebRTC (`pc`, `nack`) or packets (`next`, `onGone`). */
export function newPublisher(
  sessionId: string,
  stationId: string,
  kind: Pick<Publisher, 'pc' | 'nack' | 'next' | 'onGone'>,
): Publisher {
  return {
    sessionId,
    stationId,
    ...kind,
    createdAt: Date.now(),
    lastRtpAt: 0,
    gotMedia: false,
    seqDelta: 0,
    tsDelta: 0,
    gone: false,
  };
}

/** One RTCP generic NACK to the publisher for `lost` (its own sequence numbers). */
export function sendNack(
  t: RTCRtpTransceiver,
  mediaSourceSsrc: number | undefined,
  lost: number[],
): void {
  if (!mediaSourceSsrc) return;
  const feedback = new GenericNack({ senderSsrc: t.receiver.rtcpSsrc, mediaSourceSsrc, lost });
  t.receiver.dtlsTransport
    .sendRtcp([new RtcpTransportLayerFeedback({ feedback })])
    .catch(() => undefined);
}
