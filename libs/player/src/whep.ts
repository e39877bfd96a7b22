import {
  deleteSdpSession,
  postSdpOffer,
  addOpusNack,
  setOpusParams,
} from '@radiobroadcaster/contracts/whip-client';
import { ApiError, request } from './api.js';
import type { JoinStationResponse } from './types.js';

export type SessionState = 'connecting' | 'connected' | 'disconnected' | 'failed' | 'closed';

/** One listening session: a receive-only WebRTC connection and the WHEP resource that represents it. */
export interface ReceiverSession {
  /** The received audio track (the server's answer has no msid, so no stream comes with it). */
  readonly track: MediaStreamTrack;
  /** Called on every connection state change. */
  onstatechange: ((state: SessionState) => void) | null;
  /**
   * The state now. On a fast network ICE often connects before the caller gets the session and sets
   * `onstatechange`, so that change is only visible here.
   */
  readonly state?: SessionState;
  /** Audio RTP packets received so far, for stall detection; undefined when stats are unavailable. */
  packetsReceived(): Promise<number | undefined>;
  /** Closes the connection and DELETEs the WHEP resource (best effort; never throws). */
  close(options?: { keepalive?: boolean }): void;
}

export interface WhepOptions {
  signal?: AbortSignal;
  /** How long to wait for ICE gathering before sending the offer with what we have. */
  iceGatheringTimeoutMs?: number;
}

/** WebRTC is there (not in old embedded webviews, not on a server). */
export function hasWebRtc(): boolean {
  return typeof RTCPeerConnection === 'function';
}

/**
 * WHEP: a recvonly-audio offer POSTed with the join token, 201 + answer + Location. Candidates are
 * gathered first (no trickle). Rejects with ApiError for HTTP failures.
 */
export async function connectWhep(
  join: JoinStationResponse,
  options: WhepOptions = {},
): Promise<ReceiverSession> {
  const pc = new RTCPeerConnection({ iceServers: join.iceServers, bundlePolicy: 'max-bundle' });
  const transceiver = pc.addTransceiver('audio', { direction: 'recvonly' });
  let location: string | null = null;
  let closed = false;
  let state: SessionState = 'connecting';

  const session: ReceiverSession = {
    track: transceiver.receiver.track,
    onstatechange: null,
    get state() {
      return state;
    },
    async packetsReceived() {
      try {
        const report = await pc.getStats(transceiver.receiver.track);
        let packets: number | undefined;
        report.forEach((s: { type?: string; kind?: string; packetsReceived?: number }) => {
          if (s.type === 'inbound-rtp' && s.kind !== 'video')
            packets = s.packetsReceived ?? packets;
        });
        return packets;
      } catch {
        return undefined;
      }
    },
    close({ keepalive = false } = {}) {
      if (closed) return;
      closed = true;
      pc.oniceconnectionstatechange = null;
      pc.onconnectionstatechange = null;
      const dtls = transceiver.receiver.transport;
      if (dtls) dtls.onstatechange = null;
      pc.close();
      if (location) {
        deleteSdpSession(location, {
          token: join.token,
          init: { mode: 'cors', credentials: 'omit', keepalive },
        }).catch(() => undefined);
      }
    },
  };

  // Connected means ICE and DTLS both up (the connection state): ICE alone connects before the DTLS
  // handshake, which a lossy network may still lose, and audio needs both. Browsers without a
  // connection state (none current) fall back to ICE's.
  const onChange = () => {
    const s: string = pc.connectionState ?? pc.iceConnectionState;
    const mapped: SessionState =
      s === 'connected' || s === 'completed'
        ? 'connected'
        : s === 'disconnected' || s === 'failed' || s === 'closed'
          ? s
          : 'connecting';
    if (mapped === state) return;
    state = mapped;
    session.onstatechange?.(mapped);
  };
  if (typeof pc.connectionState === 'string') pc.onconnectionstatechange = onChange;
  else pc.oniceconnectionstatechange = onChange;

  try {
    const offer = await pc.createOffer();
    await pc.setLocalDescription({ type: 'offer', sdp: preferStereo(offer.sdp ?? '') });
    await iceGatheringComplete(pc, options.iceGatheringTimeoutMs ?? 1500, options.signal);
    const res = await postSdpOffer(join.whepUrl, pc.localDescription?.sdp ?? '', {
      token: join.token,
      send: request,
      init: { signal: options.signal },
    });
    location = res.location;
    const answer = res.answer;
    if (options.signal?.aborted) throw abortError();
    await pc.setRemoteDescription({ type: 'answer', sdp: answer });
    // The server ended the session (DTLS close_notify, e.g. its SFU node is shutting down): ICE would
    // only notice seconds later, so say 'closed' now and the player joins again at once.
    const dtls = transceiver.receiver.transport;
    if (dtls) {
      dtls.onstatechange = () => {
        if (dtls.state !== 'closed' || closed) return;
        state = 'closed';
        session.onstatechange?.('closed');
      };
    }
  } catch (err) {
    session.close();
    if (err instanceof ApiError || (err as { name?: string }).name === 'AbortError') throw err;
    throw new ApiError(`WebRTC negotiation failed: ${(err as Error).message}`, 0, 'NETWORK_ERROR');
  }
  return session;
}

function abortError(): Error {
  const e = new Error('aborted');
  e.name = 'AbortError';
  return e;
}

function iceGatheringComplete(
  pc: RTCPeerConnection,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  if (pc.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      pc.removeEventListener('icegatheringstatechange', onChange);
      signal?.removeEventListener('abort', onAbort);
    };
    const onChange = () => {
      if (pc.iceGatheringState === 'complete') {
        done();
        resolve();
      }
    };
    const onAbort = () => {
      done();
      reject(abortError());
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, timeoutMs);
    pc.addEventListener('icegatheringstatechange', onChange);
    signal?.addEventListener('abort', onAbort);
  });
}

/**
 * Asks for stereo Opus (music): `stereo=1` on our Opus fmtp tells the sender we decode two channels;
 * and for retransmissions of lost packets (NACK), which Chromium then requests on a lossy link.
 */
export function preferStereo(sdp: string): string {
  return addOpusNack(setOpusParams(sdp, { stereo: '1' }, { replace: false }));
}
