/**
 * WHIP/WHEP stay our signalling with the mediasoup engine: an SDP offer in, an SDP answer out.
 * mediasoup takes parameters (ICE, DTLS, RTP), not SDP, so the offer's audio section is read into
 * them here and the answer is written from the transport mediasoup made (ICE-lite, its candidates
 * on the worker's WebRtcServer, its DTLS fingerprints). Audio only: Opus is all a station carries;
 * other sections of the offer are rejected (port 0) in the answer.
 */
import { SdpError } from '../media-engine.js';
import { OPUS_FMTP } from '../sdp.js';
import type {
  MsDtlsParameters,
  MsRtpCapabilities,
  MsRtpParameters,
  MsWebRtcTransport,
} from './ms-types.js';

/** Header extensions mediasoup 3.15 handles for audio that we accept from offers. */
const AUDIO_EXTENSIONS = new Set([
  'urn:ietf:params:rtp-hdrext:sdes:mid',
  'urn:ietf:params:rtp-hdrext:ssrc-audio-level',
  'http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time',
]);

interface Section {
  kind: string;
  port: number;
  proto: string;
  formats: string[];
  lines: string[];
}

export interface ParsedOffer {
  sessionLines: string[];
  sections: Section[];
  /** Index of the audio section we answer. */
  audioIndex: number;
  mid: string;
  direction: 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';
  dtls: MsDtlsParameters;
  /** a=setup of the offer: actpass, active or passive. */
  setup: string;
  opus: { payloadType: number; fmtp: Record<string, string>; nack: boolean; transportCc: boolean };
  extensions: { uri: string; id: number }[];
  ssrc: number | null;
  cname: string | null;
}

function split(sdp: string): { sessionLines: string[]; sections: Section[] } {
  const sessionLines: string[] = [];
  const sections: Section[] = [];
  for (const line of sdp.split(/\r?\n/)) {
    if (!line) continue;
    if (line.startsWith('m=')) {
      const [kind = '', port = '0', proto = '', ...formats] = line.slice(2).split(' ');
      sections.push({ kind, port: Number(port), proto, formats, lines: [] });
    } else if (sections.length > 0) sections[sections.length - 1]!.lines.push(line);
    else sessionLines.push(line);
  }
  return { sessionLines, sections };
}

function attr(lines: string[], name: string): string | undefined {
  const prefix = `a=${name}:`;
  return lines.find((l) => l.startsWith(prefix))?.slice(prefix.length);
}

/** Reads an offer that validateOffer already accepted. Throws SdpError when mediasoup cannot use it. */
export function parseOffer(sdp: string): ParsedOffer {
  const { sessionLines, sections } = split(sdp);
  const audioIndex = sections.findIndex((s) => s.kind === 'audio' && s.port !== 0);
  const audio = sections[audioIndex];
  if (!audio) throw new SdpError('SDP offer has no audio section');
  const all = [...audio.lines, ...sessionLines];
  const fp = attr(all, 'fingerprint');
  const m = fp
    ? /^(sha-(?:1|224|256|384|512))\s+([0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2})+)$/.exec(fp.trim())
    : null;
  if (!m) throw new SdpError('SDP offer has an unusable DTLS fingerprint');
  const setup = (attr(all, 'setup') ?? 'actpass').trim();
  if (!['actpass', 'active', 'passive'].includes(setup)) {
    throw new SdpError(`SDP offer has an unknown a=setup (${setup})`);
  }
  // The answer's role is the other side of the offer's; an actpass offerer becomes the DTLS client.
  const remoteRole = setup === 'passive' ? 'server' : 'client';
  let opusPt = -1;
  for (const l of audio.lines) {
    const r = /^a=rtpmap:(\d+) opus\/48000(\/2)?$/i.exec(l.trim());
    if (r) {
      opusPt = Number(r[1]);
      break;
    }
  }
  if (opusPt < 0 || opusPt > 127)
    throw new SdpError('SDP offer has no Opus (opus/48000/2) audio codec');
  const fmtp: Record<string, string> = {};
  for (const l of audio.lines) {
    if (!l.startsWith(`a=fmtp:${opusPt} `)) continue;
    for (const part of l.slice(`a=fmtp:${opusPt} `.length).split(';')) {
      const [k, v] = part.split('=');
      if (k?.trim()) fmtp[k.trim()] = (v ?? '').trim();
    }
  }
  const fb = audio.lines.filter(
    (l) => l.startsWith(`a=rtcp-fb:${opusPt} `) || l.startsWith('a=rtcp-fb:* '),
  );
  const extensions: { uri: string; id: number }[] = [];
  for (const l of audio.lines) {
    const e = /^a=extmap:(\d+)(?:\/\w+)? (\S+)/.exec(l);
    if (e && AUDIO_EXTENSIONS.has(e[2]!)) extensions.push({ id: Number(e[1]), uri: e[2]! });
  }
  let ssrc: number | null = null;
  let cname: string | null = null;
  for (const l of audio.lines) {
    const s = /^a=ssrc:(\d+) cname:(\S+)/.exec(l);
    if (s) {
      ssrc = Number(s[1]);
      cname = s[2]!;
      break;
    }
  }
  const direction = (['sendrecv', 'sendonly', 'recvonly', 'inactive'] as const).find((d) =>
    audio.lines.includes(`a=${d}`),
  );
  return {
    sessionLines,
    sections,
    audioIndex,
    mid: (attr(audio.lines, 'mid') ?? '0').trim(),
    direction: direction ?? 'sendrecv',
    dtls: { role: remoteRole, fingerprints: [{ algorithm: m[1]!, value: m[2]!.toUpperCase() }] },
    setup,
    opus: {
      payloadType: opusPt,
      fmtp,
      nack: fb.some((l) => / nack$/.test(l.trim())),
      transportCc: fb.some((l) => / transport-cc$/.test(l.trim())),
    },
    extensions,
    ssrc,
    cname,
  };
}

/** What a publisher's offer sends, as mediasoup's `produce` takes it. */
export function producerParameters(offer: ParsedOffer): MsRtpParameters {
  const hasMid = offer.extensions.some((e) => e.uri === 'urn:ietf:params:rtp-hdrext:sdes:mid');
  if (offer.ssrc === null && !hasMid) {
    throw new SdpError('publisher offer signals neither an a=ssrc nor the MID header extension');
  }
  return {
    mid: offer.mid,
    codecs: [
      {
        mimeType: 'audio/opus',
        payloadType: offer.opus.payloadType,
        clockRate: 48000,
        channels: 2,
        parameters: offer.opus.fmtp,
        rtcpFeedback: offer.opus.nack ? [{ type: 'nack' }] : [],
      },
    ],
    headerExtensions: offer.extensions,
    encodings: offer.ssrc !== null ? [{ ssrc: offer.ssrc }] : [{}],
    rtcp: { cname: offer.cname ?? undefined, reducedSize: true },
  };
}

/** What a listener's offer can receive, as mediasoup's `consume` takes it. */
export function listenerCapabilities(offer: ParsedOffer): MsRtpCapabilities {
  return {
    codecs: [
      {
        kind: 'audio',
        mimeType: 'audio/opus',
        preferredPayloadType: offer.opus.payloadType,
        clockRate: 48000,
        channels: 2,
        parameters: {},
        rtcpFeedback: offer.opus.nack ? [{ type: 'nack' }] : [],
      },
    ],
    headerExtensions: offer.extensions.map((e) => ({
      kind: 'audio' as const,
      uri: e.uri,
      preferredId: e.id,
      direction: 'sendrecv' as const,
    })),
  };
}

/**
 * The answer to `offer` for `transport`: ICE-lite, mediasoup's candidates and fingerprints, and the
 * Opus codec with the offer's payload type. `send` = what the SFU sends on it (the listener's consumer:
 * its SSRC, CNAME and whether it answers NACKs), or null for a publisher (NACK when the offer has it:
 * the producer asks for what it lost).
 */
export function buildAnswer(
  offer: ParsedOffer,
  transport: MsWebRtcTransport,
  send: { ssrc: number; cname: string; streamId: string; nack: boolean } | null,
): string {
  const out: string[] = [
    'v=0',
    `o=- ${Date.now()} 2 IN IP4 127.0.0.1`,
    's=-',
    't=0 0',
    `a=group:BUNDLE ${offer.mid}`,
    'a=ice-lite',
    'a=msid-semantic: WMS *',
  ];
  const ice = transport.iceParameters;
  const fingerprint =
    transport.dtlsParameters.fingerprints.find((f) => f.algorithm === 'sha-256') ??
    transport.dtlsParameters.fingerprints[0]!;
  const first = transport.iceCandidates[0];
  offer.sections.forEach((s, i) => {
    const mid = attr(s.lines, 'mid');
    if (i !== offer.audioIndex) {
      out.push(`m=${s.kind} 0 ${s.proto} ${s.formats.join(' ')}`, 'c=IN IP4 0.0.0.0');
      if (mid !== undefined) out.push(`a=mid:${mid}`);
      out.push('a=inactive');
      return;
    }
    const pt = offer.opus.payloadType;
    out.push(
      `m=audio ${first?.port ?? 9} ${s.proto} ${pt}`,
      `c=IN IP4 ${first?.address ?? '0.0.0.0'}`,
      `a=ice-ufrag:${ice.usernameFragment}`,
      `a=ice-pwd:${ice.password}`,
      `a=fingerprint:${fingerprint.algorithm} ${fingerprint.value}`,
      `a=setup:${offer.dtls.role === 'client' ? 'passive' : 'active'}`,
      `a=mid:${offer.mid}`,
      send ? 'a=sendonly' : 'a=recvonly',
      'a=rtcp-mux',
      'a=rtcp-rsize',
      `a=rtpmap:${pt} opus/48000/2`,
      `a=fmtp:${pt} ${OPUS_FMTP}`,
    );
    if (send ? send.nack : offer.opus.nack) out.push(`a=rtcp-fb:${pt} nack`);
    for (const e of offer.extensions) out.push(`a=extmap:${e.id} ${e.uri}`);
    if (send) {
      out.push(`a=msid:${send.streamId} ${send.streamId}-audio`);
      out.push(`a=ssrc:${send.ssrc} cname:${send.cname}`);
    }
    for (const c of transport.iceCandidates) {
      const tcp = c.protocol === 'tcp' ? ` tcptype ${c.tcpType ?? 'passive'}` : '';
      out.push(
        `a=candidate:${c.foundation} 1 ${c.protocol} ${c.priority} ${c.address} ${c.port} typ host${tcp}`,
      );
    }
    out.push('a=end-of-candidates');
  });
  return out.join('\r\n') + '\r\n';
}
