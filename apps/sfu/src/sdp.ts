import { randomUUID } from 'node:crypto';
import { SdpError } from './media-engine.js';

/** Offers larger than this are refused (a normal audio offer is 1–6 KiB). */
export const MAX_SDP_BYTES = 64 * 1024;
/** Opus parameters we put in every answer: stereo music at up to 510 kbit/s. */
export const OPUS_FMTP =
  'minptime=10;useinbandfec=1;stereo=1;sprop-stereo=1;maxaveragebitrate=510000';

export type OfferRole = 'publisher' | 'listener';

interface MediaSection {
  kind: string;
  port: number;
  lines: string[];
}

function splitSections(sdp: string): { session: string[]; media: MediaSection[] } {
  const lines = sdp.split(/\r?\n/).filter((l) => l.length > 0);
  const session: string[] = [];
  const media: MediaSection[] = [];
  for (const line of lines) {
    if (line.startsWith('m=')) {
      const parts = line.slice(2).split(' ');
      media.push({ kind: parts[0] ?? '', port: Number(parts[1]), lines: [line] });
    } else if (media.length > 0) {
      media[media.length - 1].lines.push(line);
    } else {
      session.push(line);
    }
  }
  return { session, media };
}

/**
 * Checks an offer before werift sees it. Throws SdpError with a human readable reason.
 * werift throws (or worse, leaves half-built state) on many malformed inputs, which could end the process.
 */
export function validateOffer(offerSdp: unknown, role: OfferRole): string {
  if (typeof offerSdp !== 'string') throw new SdpError('SDP offer must be a string');
  if (Buffer.byteLength(offerSdp, 'utf8') > MAX_SDP_BYTES) {
    throw new SdpError(`SDP offer too large (max ${MAX_SDP_BYTES} bytes)`);
  }
  const sdp = offerSdp.trim();
  if (!sdp.startsWith('v=0')) throw new SdpError('malformed SDP: must start with v=0');
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(sdp)) {
    throw new SdpError('malformed SDP: control characters');
  }
  const { session, media } = splitSections(sdp);
  if (!session.some((l) => l.startsWith('o='))) throw new SdpError('malformed SDP: no o= line');
  for (const line of [...session, ...media.flatMap((m) => m.lines)]) {
    if (!/^[a-z]=/.test(line)) throw new SdpError(`malformed SDP line: ${line.slice(0, 40)}`);
  }
  const kinds = new Map<string, number>();
  for (const m of media) kinds.set(m.kind, (kinds.get(m.kind) ?? 0) + 1);
  for (const [kind, n] of kinds) {
    // One audio section is all we use; a player may add one video or data section it won't get.
    // Hundreds of sections cost a socket-free but CPU-heavy answer each (a cheap denial of service).
    if (n > 1) throw new SdpError(`SDP offer has ${n} ${kind} sections; at most one is accepted`);
  }
  const audio = media.filter((m) => m.kind === 'audio' && m.port !== 0);
  if (audio.length === 0) throw new SdpError('SDP offer has no audio section');
  const m = audio[0];
  const mline = m.lines[0].split(' ');
  if (!/^UDP\/TLS\/RTP\/SAVPF?$/i.test(mline[2] ?? '')) {
    throw new SdpError('audio section must use UDP/TLS/RTP/SAVPF (DTLS-SRTP)');
  }
  const hasOpus = m.lines.some((l) => /^a=rtpmap:\d+ opus\/48000(\/2)?$/i.test(l.trim()));
  if (!hasOpus) throw new SdpError('SDP offer has no Opus (opus/48000/2) audio codec');
  const attr = (name: string) =>
    m.lines.some((l) => l.startsWith(`a=${name}`)) ||
    session.some((l) => l.startsWith(`a=${name}`));
  if (!attr('ice-ufrag:') || !attr('ice-pwd:'))
    throw new SdpError('SDP offer lacks ICE credentials');
  if (!attr('fingerprint:')) throw new SdpError('SDP offer lacks a DTLS fingerprint');
  const dir = ['sendrecv', 'sendonly', 'recvonly', 'inactive'].find((d) =>
    m.lines.some((l) => l.trim() === `a=${d}`),
  );
  const direction = dir ?? 'sendrecv';
  if (role === 'publisher' && !(direction === 'sendonly' || direction === 'sendrecv')) {
    throw new SdpError(`publisher offer must send audio (direction is ${direction})`);
  }
  if (role === 'listener' && !(direction === 'recvonly' || direction === 'sendrecv')) {
    throw new SdpError(`listener offer must receive audio (direction is ${direction})`);
  }
  // Normalise line endings: werift's parser expects CRLF or LF consistently.
  return sdp.split(/\r?\n/).join('\r\n') + '\r\n';
}

/**
 * Post-processes a werift answer: Opus fmtp with stereo=1 and maxaveragebitrate, an msid for the
 * audio track (werift omits it, browsers then fire ontrack without a stream).
 */
export function mungeAnswer(answerSdp: string, streamId: string = randomUUID()): string {
  const { session, media } = splitSections(answerSdp.trim());
  const out: string[] = [...session];
  for (const m of media) {
    if (m.kind !== 'audio') {
      out.push(...m.lines);
      continue;
    }
    const opusPts = m.lines
      .map((l) => /^a=rtpmap:(\d+) opus\/48000/i.exec(l))
      .filter((x): x is RegExpExecArray => x !== null)
      .map((x) => x[1]);
    const lines = m.lines.map((l) => {
      const fm = /^a=fmtp:(\d+) (.*)$/.exec(l);
      if (!fm || !opusPts.includes(fm[1])) return l;
      return `a=fmtp:${fm[1]} ${mergeFmtp(fm[2], OPUS_FMTP)}`;
    });
    for (const pt of opusPts) {
      if (!lines.some((l) => l.startsWith(`a=fmtp:${pt} `))) {
        const idx = lines.findIndex((l) => l.startsWith(`a=rtpmap:${pt} `));
        lines.splice(idx + 1, 0, `a=fmtp:${pt} ${OPUS_FMTP}`);
      }
    }
    if (!lines.some((l) => l.startsWith('a=msid:'))) {
      const at = lines.findIndex((l) => l.startsWith('a=rtpmap:'));
      lines.splice(at < 0 ? lines.length : at, 0, `a=msid:${streamId} ${streamId}-audio`);
    }
    out.push(...lines);
  }
  return out.join('\r\n') + '\r\n';
}

function mergeFmtp(existing: string, wanted: string): string {
  const params = new Map<string, string>();
  for (const part of existing.split(';')) {
    const [k, v] = part.split('=');
    if (k && k.trim()) params.set(k.trim(), (v ?? '').trim());
  }
  for (const part of wanted.split(';')) {
    const [k, v] = part.split('=');
    if (k === 'maxaveragebitrate') {
      const cur = Number(params.get(k) ?? 0);
      if (cur < 128000) params.set(k, v);
    } else if (!params.has(k) || k === 'stereo' || k === 'sprop-stereo') {
      params.set(k, v);
    }
  }
  return [...params].map(([k, v]) => (v === '' ? k : `${k}=${v}`)).join(';');
}
