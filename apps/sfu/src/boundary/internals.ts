/**
 * The werift members private in its typings that code outside this folder needs, one accessor each, so
 * the contract suite (werift-contract.spec.ts) can pin every one on a real werift object.
 */
import type { RTCDtlsTransport, RTCPeerConnection } from './werift.js';

/** The ICE connection (werift's `Connection`) under a DTLS transport: `RTCIceTransport.connection`. */
export function iceConnectionOf<T extends object>(dtls: RTCDtlsTransport): T {
  return (dtls.iceTransport as unknown as { connection: T }).connection;
}

/** SRTP protection profiles a DTLS transport offers (`RTCDtlsTransport.srtpProfiles`), e.g. [0x0001]. */
export function offerSrtpProfiles(dtls: RTCDtlsTransport, profiles: number[]): void {
  (dtls as unknown as { srtpProfiles: number[] }).srtpProfiles = profiles;
}

const PAIR_STATES = ['frozen', 'waiting', 'in progress', 'succeeded', 'failed'];

/**
 * Where a peer connection's handshake stands, for logs of joins that did not connect: the ICE state
 * and each candidate pair's checks (state, requests sent + retransmissions / responses received),
 * then the DTLS state and the last handshake flight reached (RFC 6347 §4.2.4: the client sends
 * flights 1, 3, 5, the server 2, 4, 6). E.g. `ICE connected [succeeded 1+0/1], DTLS connecting at flight 5`.
 */
export function handshakeStep(pc: RTCPeerConnection): string {
  const dtls = pc.dtlsTransports[0] as
    (RTCDtlsTransport & { dtls?: { dtls?: { flight?: number } } }) | undefined;
  const ice = dtls && iceConnectionOf<{ checkList?: CheckedPair[] }>(dtls);
  const pairs = (ice?.checkList ?? [])
    .map(
      (p) =>
        `${PAIR_STATES[p.state] ?? p.state} ${p.requestsSent}+${p.retransmissionsSent}/${p.responsesReceived}`,
    )
    .join(', ');
  const flight = dtls?.dtls?.dtls?.flight;
  return (
    `ICE ${pc.iceConnectionState} [${pairs}], DTLS ${dtls?.state ?? 'none'}` +
    (flight !== undefined ? ` at flight ${flight}` : '')
  );
}

interface CheckedPair {
  state: number;
  requestsSent: number;
  retransmissionsSent: number;
  responsesReceived: number;
}
