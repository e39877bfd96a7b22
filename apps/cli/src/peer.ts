/** werift PeerConnection set-up shared by the publisher and the listener. */
import {
  handshakeStep,
  RTCPeerConnection,
  RTCRtpCodecParameters,
} from '@radiobroadcaster/sfu/client';
import type { IceServer } from '@radiobroadcaster/contracts';
import { postSdpOffer } from './api.js';

/** In-band FEC both ways (we encode it, and ask for it), stereo, up to 128 kbit/s. */
export const OPUS_FMTP =
  'minptime=10;useinbandfec=1;stereo=1;sprop-stereo=1;maxaveragebitrate=128000';
export const OPUS_PAYLOAD_TYPE = 111;

export interface PeerOptions {
  /** Default `[]`: no STUN (offline machines, loopback). */
  iceServers?: IceServer[];
  /** Default `['127.0.0.1']`: werift never gathers loopback on its own. */
  iceAdditionalHostAddresses?: string[];
  /** Restrict the local UDP port range, e.g. [40000, 40100]. */
  icePortRange?: [number, number];
}

/**
 * Opus only (48 kHz, 2 channels, stereo, 128 kbit/s allowed, in-band FEC), with NACK: a publisher
 * resends what the SFU asks for from werift's send history, a listener asks for what it lost.
 */
export function opusCodec(): RTCRtpCodecParameters {
  return new RTCRtpCodecParameters({
    mimeType: 'audio/opus',
    clockRate: 48000,
    channels: 2,
    payloadType: OPUS_PAYLOAD_TYPE,
    parameters: OPUS_FMTP,
    rtcpFeedback: [{ type: 'nack' }],
  });
}

export function createPeer(opts: PeerOptions = {}): RTCPeerConnection {
  return new RTCPeerConnection({
    iceServers: opts.iceServers ?? [],
    iceAdditionalHostAddresses: opts.iceAdditionalHostAddresses ?? ['127.0.0.1'],
    ...(opts.icePortRange ? { icePortRange: opts.icePortRange } : {}),
    codecs: { audio: [opusCodec()], video: [] },
    headerExtensions: { audio: [], video: [] },
  });
}

/** Creates the offer, applies it, and waits until every ICE candidate is in the local description. */
export async function createCompleteOffer(
  pc: RTCPeerConnection,
  timeoutMs = 5000,
): Promise<string> {
  const offer = await pc.createOffer();
  await pc.setLocalDescription(offer);
  if (pc.iceGatheringState !== 'complete') {
    await waitForEvent(
      pc.iceGatheringStateChange,
      (s) => s === 'complete',
      timeoutMs,
      'ICE gathering',
    );
  }
  const sdp = pc.localDescription?.sdp;
  if (!sdp) throw new Error('no local description after setLocalDescription');
  return sdp;
}

interface Subscribable<T extends unknown[]> {
  subscribe(cb: (...args: T) => void): { unSubscribe: () => void };
}

/** Resolves when `event` fires with a value accepted by `accept`, rejects after `timeoutMs` or on `reject`. */
export function waitForEvent<T extends unknown[]>(
  event: Subscribable<T>,
  accept: (...args: T) => boolean,
  timeoutMs: number,
  what: string,
  reject?: (...args: T) => string | undefined,
): Promise<T> {
  return new Promise<T>((resolve, fail) => {
    const timer = setTimeout(() => {
      sub.unSubscribe();
      fail(new Error(`${what} timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    const sub = event.subscribe((...args: T) => {
      const why = reject?.(...args);
      if (why !== undefined) {
        clearTimeout(timer);
        sub.unSubscribe();
        fail(new Error(`${what}: ${why}`));
      } else if (accept(...args)) {
        clearTimeout(timer);
        sub.unSubscribe();
        resolve(args);
      }
    });
  });
}

/** Waits for connectionState "connected" (fails on "failed" or "closed"). */
export async function waitConnected(pc: RTCPeerConnection, timeoutMs: number): Promise<void> {
  if (pc.connectionState === 'connected') return;
  try {
    await waitForEvent(
      pc.connectionStateChange,
      (s) => s === 'connected',
      timeoutMs,
      'WebRTC connection',
      (s) => (s === 'failed' || s === 'closed' ? `connection ${s}` : undefined),
    );
  } catch (err) {
    throw new Error(`${(err as Error).message} (${handshakeStep(pc)})`);
  }
}

/**
 * WHIP/WHEP negotiation: our complete offer POSTed to `url`, the answer applied, then "connected".
 * `onAnswer` gets the session's Location as soon as it exists, so a failure after it can still
 * DELETE the session.
 */
export async function negotiateOverHttp(
  pc: RTCPeerConnection,
  url: string,
  token: string | undefined,
  connectTimeoutMs: number,
  onAnswer: (location: string) => void,
): Promise<void> {
  const { answer, location } = await postSdpOffer(url, await createCompleteOffer(pc), token);
  onAnswer(location);
  await pc.setRemoteDescription({ type: 'answer', sdp: answer });
  await waitConnected(pc, connectTimeoutMs);
}

/**
 * Calls `onLost` when the connection fails or closes, including when the server ends the session
 * (its DTLS close_notify: werift's connection state does not show that, only the DTLS transport's).
 */
export function onConnectionLost(
  pc: RTCPeerConnection,
  onLost: (state: 'failed' | 'closed') => void,
): void {
  pc.connectionStateChange.subscribe((s) => {
    if (s === 'failed' || s === 'closed') onLost(s);
  });
  for (const t of pc.getTransceivers()) {
    t.dtlsTransport.onStateChange.subscribe((s) => {
      if (s === 'closed' && pc.connectionState !== 'closed') onLost('closed');
    });
  }
}
