import { networkInterfaces } from 'node:os';
import { RTCPeerConnection, RTCRtpCodecParameters } from '../boundary/werift.js';
import type { IceServerConfig } from '../media-engine.js';
import { OPUS_FMTP } from '../sdp.js';

/** What a shard or the main thread needs to build peer connections (structured-clone friendly). */
export interface PeerSettings {
  announcedAddress?: string;
  portRange?: { min: number; max: number };
  iceServers: IceServerConfig[];
}

/**
 * Opus only (werift's default codec list fails to negotiate with Chromium's WHEP offers), no header
 * extensions (werift's transport-cc bookkeeping grows without bound; no publisher extensions leak),
 * NACK as the only RTCP feedback (answered from the shards' packet cache), iceServers [] by default (werift would otherwise ask a public STUN server), and
 * loopback always a host candidate (werift never gathers it).
 */
export function createPeer(settings: PeerSettings): RTCPeerConnection {
  const additional = ['127.0.0.1'];
  const announced = settings.announcedAddress;
  if (announced && isLocalAddress(announced) && !additional.includes(announced)) {
    additional.push(announced);
  }
  return new RTCPeerConnection({
    codecs: {
      audio: [
        new RTCRtpCodecParameters({
          mimeType: 'audio/opus',
          clockRate: 48000,
          channels: 2,
          payloadType: 111,
          rtcpFeedback: [{ type: 'nack' }],
          parameters: OPUS_FMTP,
        }),
      ],
      video: [],
    },
    headerExtensions: { audio: [], video: [] },
    iceServers: settings.iceServers.map((s) => ({ ...s })),
    icePortRange: settings.portRange ? [settings.portRange.min, settings.portRange.max] : undefined,
    iceAdditionalHostAddresses: additional,
    iceUseIpv6: false,
  });
}

export function isLocalAddress(ip: string): boolean {
  return Object.values(networkInterfaces()).some((list) =>
    (list ?? []).some((i) => i.address === ip),
  );
}

/**
 * An announced address that is not a local interface (public IP behind 1:1 NAT): add a host candidate
 * with that IP for every host candidate's port in the answer.
 */
export function announceCandidates(sdp: string, announced: string | undefined): string {
  if (!announced || isLocalAddress(announced)) return sdp;
  const lines = sdp.split('\r\n');
  const out: string[] = [];
  const seen = new Set<string>();
  for (const line of lines) {
    out.push(line);
    const m = /^a=candidate:(\S+) (\d+) udp (\d+) (\S+) (\d+) typ host(.*)$/i.exec(line);
    if (!m || m[4].includes(':')) continue;
    const key = `${m[2]}/${m[5]}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const priority = Math.max(1, Number(m[3]) - 1);
    out.push(`a=candidate:a${m[1]} ${m[2]} udp ${priority} ${announced} ${m[5]} typ host`);
  }
  return out.join('\r\n');
}
