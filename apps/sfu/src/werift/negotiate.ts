import type { RTCPeerConnection } from '../boundary/werift.js';
import { SdpError } from '../media-engine.js';
import { mungeAnswer } from '../sdp.js';
import { announceCandidates } from './werift-config.js';

/** Which way the audio goes from the SFU's side of the session. */
export type SfuDirection = 'receive' | 'send';

/**
 * Answers a validated offer on a fresh peer connection: our Opus answer with the announced
 * address. Any failure closes the peer connection and becomes an SdpError, because werift throws
 * on offers it cannot use and an exception escaping a request handler would end the process.
 */
export async function negotiateAnswer(
  pc: RTCPeerConnection,
  offer: string,
  o: {
    sessionId: string;
    direction: SfuDirection;
    announcedAddress?: string;
    /** Runs between the offer and the answer (the node's one-port mux takes the ICE transports). */
    attach?: (pc: RTCPeerConnection) => void;
  },
): Promise<string> {
  try {
    await pc.setRemoteDescription({ type: 'offer', sdp: offer });
    o.attach?.(pc);
    await pc.setLocalDescription(await pc.createAnswer());
    const sdp = pc.localDescription?.sdp;
    if (!sdp) throw new Error('no local description');
    const ours = o.direction === 'receive' ? 'recvonly' : 'sendonly';
    if (!new RegExp(`^a=(${ours}|sendrecv)`, 'm').test(sdp)) {
      throw new SdpError(
        `could not negotiate a ${o.direction === 'receive' ? 'receiving' : 'sending'} audio track`,
      );
    }
    return announceCandidates(mungeAnswer(sdp, o.sessionId), o.announcedAddress);
  } catch (err) {
    await pc.close().catch(() => undefined);
    if (err instanceof SdpError) throw err;
    throw new SdpError(`SDP negotiation failed: ${(err as Error)?.message ?? String(err)}`);
  }
}
