/**
 * The werift members private in its typings that code outside this folder needs, one accessor each, so
 * the contract suite (werift-contract.spec.ts) can pin every one on a real werift object.
 */
import type { RTCDtlsTransport } from './werift.js';

/** The ICE connection (werift's `Connection`) under a DTLS transport: `RTCIceTransport.connection`. */
export function iceConnectionOf<T extends object>(dtls: RTCDtlsTransport): T {
  return (dtls.iceTransport as unknown as { connection: T }).connection;
}

/** SRTP protection profiles a DTLS transport offers (`RTCDtlsTransport.srtpProfiles`), e.g. [0x0001]. */
export function offerSrtpProfiles(dtls: RTCDtlsTransport, profiles: number[]): void {
  (dtls as unknown as { srtpProfiles: number[] }).srtpProfiles = profiles;
}
