/**
 * The part of mediasoup's API the mediasoup engine uses, typed here: mediasoup is an optional
 * dependency loaded only by dynamic import, so the SFU compiles (tsc) whether or not it is installed.
 * Field names and shapes follow mediasoup 3.15's own declarations.
 */

export interface MsEmitter {
  on(event: string, listener: (...args: never[]) => void): unknown;
  once(event: string, listener: (...args: never[]) => void): unknown;
}

export interface MsRtpCodecCapability {
  kind: 'audio' | 'video';
  mimeType: string;
  preferredPayloadType?: number;
  clockRate: number;
  channels?: number;
  parameters?: Record<string, string | number>;
  rtcpFeedback?: { type: string; parameter?: string }[];
}

export interface MsRtpHeaderExtension {
  kind: 'audio' | 'video';
  uri: string;
  preferredId: number;
  direction?: 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';
}

export interface MsRtpCapabilities {
  codecs?: MsRtpCodecCapability[];
  headerExtensions?: MsRtpHeaderExtension[];
}

export interface MsRtpCodecParameters {
  mimeType: string;
  payloadType: number;
  clockRate: number;
  channels?: number;
  parameters?: Record<string, string | number>;
  rtcpFeedback?: { type: string; parameter?: string }[];
}

export interface MsRtpParameters {
  mid?: string;
  codecs: MsRtpCodecParameters[];
  headerExtensions?: { uri: string; id: number }[];
  encodings?: { ssrc?: number }[];
  rtcp?: { cname?: string; reducedSize?: boolean };
}

export interface MsIceCandidate {
  foundation: string;
  priority: number;
  address: string;
  protocol: 'udp' | 'tcp';
  port: number;
  type: 'host';
  tcpType?: 'passive';
}

export interface MsDtlsParameters {
  role?: 'auto' | 'client' | 'server';
  fingerprints: { algorithm: string; value: string }[];
}

export interface MsProducer extends MsEmitter {
  readonly id: string;
  readonly closed: boolean;
  send(rtpPacket: Buffer): void;
  close(): void;
}

export interface MsConsumer extends MsEmitter {
  readonly id: string;
  readonly closed: boolean;
  readonly rtpParameters: MsRtpParameters;
  close(): void;
}

export interface MsTransport extends MsEmitter {
  readonly id: string;
  readonly closed: boolean;
  produce(options: { kind: 'audio'; rtpParameters: MsRtpParameters }): Promise<MsProducer>;
  consume(options: {
    producerId: string;
    rtpCapabilities: MsRtpCapabilities;
    paused?: boolean;
    mid?: string;
    /**
     * Store sent packets and answer the remote's NACKs (mediasoup's default: video only; without it
     * `nack` is stripped from an audio consumer's codec).
     */
    enableRtx?: boolean;
  }): Promise<MsConsumer>;
  close(): void;
}

export interface MsWebRtcTransport extends MsTransport {
  readonly iceParameters: { usernameFragment: string; password: string };
  readonly iceCandidates: MsIceCandidate[];
  readonly dtlsParameters: MsDtlsParameters;
  readonly iceState: 'new' | 'connected' | 'completed' | 'disconnected' | 'closed';
  readonly dtlsState: 'new' | 'connecting' | 'connected' | 'failed' | 'closed';
  connect(options: { dtlsParameters: MsDtlsParameters }): Promise<void>;
}

export interface MsDirectTransport extends MsTransport {
  sendRtcp(rtcpPacket: Buffer): void;
}

export interface MsListenInfo {
  protocol: 'udp' | 'tcp';
  ip: string;
  announcedAddress?: string;
  port?: number;
}

export interface MsWebRtcServer {
  readonly id: string;
  close(): void;
}

export interface MsRouter {
  readonly id: string;
  readonly closed: boolean;
  readonly rtpCapabilities: MsRtpCapabilities;
  createWebRtcTransport(options: {
    webRtcServer: MsWebRtcServer;
    enableUdp?: boolean;
    enableTcp?: boolean;
    preferUdp?: boolean;
    iceConsentTimeout?: number;
  }): Promise<MsWebRtcTransport>;
  createDirectTransport(options?: { maxMessageSize?: number }): Promise<MsDirectTransport>;
  pipeToRouter(options: { producerId: string; router: MsRouter }): Promise<unknown>;
  close(): void;
}

export interface MsWorker extends MsEmitter {
  readonly pid: number;
  readonly closed: boolean;
  readonly died: boolean;
  createRouter(options: { mediaCodecs: MsRtpCodecCapability[] }): Promise<MsRouter>;
  createWebRtcServer(options: { listenInfos: MsListenInfo[] }): Promise<MsWebRtcServer>;
  getResourceUsage(): Promise<{ ru_utime: number; ru_stime: number; ru_maxrss: number }>;
  close(): void;
}

export interface MediasoupModule {
  version: string;
  createWorker(options?: {
    logLevel?: 'debug' | 'warn' | 'error' | 'none';
    logTags?: string[];
    rtcMinPort?: number;
    rtcMaxPort?: number;
    disableLiburing?: boolean;
  }): Promise<MsWorker>;
}
