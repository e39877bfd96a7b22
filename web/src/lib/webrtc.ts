import { iceServersFromLinks, type IceServer } from '@radiobroadcaster/contracts';
import { ApiError, NetworkError } from './api-error';

/**
 * One WHIP/WHEP signalling exchange: POST the offer as application/sdp with a bearer token, expect
 * 201 with the answer, a Location to DELETE when leaving, and the ICE servers of its `Link` headers.
 */
export async function exchangeSdp(
  url: string,
  token: string,
  offerSdp: string,
): Promise<{ answer: string; location: string | null; iceServers: IceServer[] }> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      credentials: 'include',
      headers: { 'Content-Type': 'application/sdp', Authorization: `Bearer ${token}` },
      body: offerSdp,
    });
  } catch (cause) {
    throw new NetworkError(cause);
  }
  const text = await res.text().catch(() => '');
  if (!res.ok) throw new ApiError(res.status, res.statusText, text);
  const location = res.headers.get('Location');
  // `url` is usually relative ('/whip/{id}'), so resolve it against the document first.
  const base = new URL(url, document.baseURI);
  return {
    answer: text,
    location: location ? new URL(location, base).toString() : null,
    iceServers: iceServersFromLinks(res.headers.get('Link')),
  };
}

/** Ends a WHIP/WHEP session; failures are ignored because the server also times sessions out. */
export async function deleteSession(location: string | null, token: string): Promise<void> {
  if (!location) return;
  try {
    await fetch(location, {
      method: 'DELETE',
      credentials: 'include',
      headers: { Authorization: `Bearer ${token}` },
      keepalive: true,
    });
  } catch {
    // Best effort.
  }
}

const OPUS_STEREO_PARAMS = { stereo: '1', 'sprop-stereo': '1', maxaveragebitrate: '128000' };

/**
 * Asks for stereo Opus at 128 kb/s: adds `stereo=1;sprop-stereo=1;maxaveragebitrate=128000` to the
 * Opus fmtp line of an offer (or adds the line when the browser wrote none).
 */
export function mungeOpusStereo(sdp: string): string {
  const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
  const lines = sdp.split(eol);
  const rtpmap = lines.find((l) => /^a=rtpmap:\d+ opus\/48000/i.test(l));
  if (!rtpmap) return sdp;
  const pt = /^a=rtpmap:(\d+)/.exec(rtpmap)![1];
  const fmtpIndex = lines.findIndex((l) => l.startsWith(`a=fmtp:${pt} `));
  if (fmtpIndex >= 0) {
    const [head, params = ''] = lines[fmtpIndex].split(/ (.*)/s);
    const map = new Map<string, string>();
    for (const kv of params.split(';').filter(Boolean)) {
      const [k, v = ''] = kv.split('=');
      map.set(k.trim(), v.trim());
    }
    for (const [k, v] of Object.entries(OPUS_STEREO_PARAMS)) map.set(k, v);
    lines[fmtpIndex] = `${head} ${[...map].map(([k, v]) => `${k}=${v}`).join(';')}`;
  } else {
    const params = Object.entries(OPUS_STEREO_PARAMS)
      .map(([k, v]) => `${k}=${v}`)
      .join(';');
    lines.splice(lines.indexOf(rtpmap) + 1, 0, `a=fmtp:${pt} ${params}`);
  }
  return lines.join(eol);
}
