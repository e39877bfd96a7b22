import {
  deleteSdpSession,
  postSdpOffer,
  addOpusNack,
  setOpusParams,
} from '@radiobroadcaster/contracts/whip-client';
import type { IceServer } from '@radiobroadcaster/contracts';
import { ApiError, NetworkError } from './api-error';

/** The studio's fetch for WHIP: its session cookie goes along; failures read as the app's API errors. */
async function send(url: string, init: RequestInit): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, credentials: 'include' });
  } catch (cause) {
    throw new NetworkError(cause);
  }
  if (!res.ok) throw new ApiError(res.status, res.statusText, await res.text().catch(() => ''));
  return res;
}

/**
 * One WHIP/WHEP signalling exchange (the shared client, @radiobroadcaster/contracts/whip-client): POST
 * the offer as application/sdp with a bearer token, expect 201 with the answer, a Location to DELETE
 * when leaving, and the ICE servers of its `Link` headers.
 */
export async function exchangeSdp(
  url: string,
  token: string,
  offerSdp: string,
): Promise<{ answer: string; location: string | null; iceServers: IceServer[] }> {
  const { answer, location, iceServers } = await postSdpOffer(url, offerSdp, { token, send });
  return { answer, location, iceServers };
}

/** Ends a WHIP/WHEP session; failures are ignored because the server also times sessions out. */
export async function deleteSession(location: string | null, token: string): Promise<void> {
  if (!location) return;
  await deleteSdpSession(location, {
    token,
    init: { credentials: 'include', keepalive: true },
  }).catch(
    () => undefined, // best effort
  );
}

/**
 * Asks for stereo Opus at 128 kb/s: adds `stereo=1;sprop-stereo=1;maxaveragebitrate=128000` to the
 * Opus fmtp line of an offer (or adds the line when the browser wrote none).
 */
export function mungeOpusStereo(sdp: string): string {
  return addOpusNack(
    setOpusParams(sdp, { stereo: '1', 'sprop-stereo': '1', maxaveragebitrate: '128000' }),
  );
}
