/**
 * `@radiobroadcaster/sfu/client`: what a WebRTC client of this SFU needs (the CLI's `whip`/`whep`, the
 * tests' peers): werift exactly as the SFU runs it (the pinned version, with the SFU's patches applied
 * on import) and the NACK requester a listener uses to ask for lost packets. Nothing else in the SFU is
 * public to clients; import werift through here, never directly.
 */

export {
  classes,
  createTurnClient,
  GenericNack,
  Message,
  methods,
  parseMessage,
  RtcpTransportLayerFeedback,
  RTCPeerConnection,
  RTCRtpCodecParameters,
  RtpHeader,
  RtpPacket,
  type RTCRtpSender,
} from './boundary/werift.js';
export { handshakeStep } from './boundary/internals.js';
export { NackRequester } from './nack.js';
