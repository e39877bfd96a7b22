/**
 * Origin → edge relay of one station, run on the edge node.
 *
 * In-leg: a werift PeerConnection (recvonly) opened as a WHEP-style listener session on the origin
 * node's engine (`POST {origin}/v1/listeners {relay: true}`), i.e. server-to-server WebRTC.
 * Out-leg: a werift PeerConnection (sendonly) published into this node's own engine with
 * `engine.publish`, over loopback. Every RTP packet received on the in-leg is written to the out-leg
 * as it is (payload untouched; werift only sets its own SSRC and payload type), so the edge engine
 * fans the station out to its local listeners exactly as the origin would.
 */
import { MediaStreamTrack, type RTCPeerConnection, type RtpPacket } from '../boundary/werift.js';
import type { MediaEngine } from '../media-engine.js';
import type { SfuNodeClient } from '../protocol/client.js';
import type { NodeRef } from '../protocol/schemas.js';
import { createPeer, type PeerSettings } from '../werift/werift-config.js';

export type RelayState = 'starting' | 'up' | 'broken' | 'closed';

export interface RelayOptions {
  engine: MediaEngine;
  settings: PeerSettings;
  stationId: string;
  origin: NodeRef;
  originClient: SfuNodeClient;
  connectTimeoutMs?: number;
  /** The in-leg failed (origin died or dropped us): the node decides whether to rebuild. */
  onBroken: (relay: Relay, why: string) => void;
}

export class Relay {
  state: RelayState = 'starting';
  packetsIn = 0;
  packetsOut = 0;
  /** The out-leg's publisher session in the local engine (events about it are not the station's). */
  outSessionId: string | null = null;
  /** The in-leg's listener session on the origin. */
  legSessionId: string | null = null;
  readonly origin: NodeRef;
  private pcIn?: RTCPeerConnection;
  private pcOut?: RTCPeerConnection;
  private track?: MediaStreamTrack;
  private outReady = false;
  private reopening?: Promise<void>;

  constructor(private readonly o: RelayOptions) {
    this.origin = o.origin;
  }

  get stationId(): string {
    return this.o.stationId;
  }

  async start(): Promise<void> {
    try {
      await Promise.all([this.openOut(), this.openIn()]);
      if (this.state === 'starting') this.state = 'up';
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  private async openIn(): Promise<void> {
    const pc = createPeer(this.o.settings);
    this.pcIn = pc;
    const t = pc.addTransceiver('audio', { direction: 'recvonly' });
    t.onTrack.subscribe((track) => {
      track.onReceiveRtp.subscribe((rtp) => this.forward(rtp));
    });
    await pc.setLocalDescription(await pc.createOffer());
    await waitGathered(pc, 3000);
    const { sessionId, answerSdp } = await this.o.originClient.addListener(
      this.o.stationId,
      pc.localDescription!.sdp,
      { relay: true },
    );
    this.legSessionId = sessionId;
    if (this.state === 'closed') throw new Error('relay closed during set-up');
    await pc.setRemoteDescription({ type: 'answer', sdp: answerSdp });
    await waitConnected(pc, this.o.connectTimeoutMs ?? 10_000);
    pc.connectionStateChange.subscribe((s) => {
      if ((s === 'failed' || s === 'closed') && this.state !== 'closed') {
        this.state = 'broken';
        this.o.onBroken(this, `in-leg ${s}`);
      }
    });
  }

  private async openOut(): Promise<void> {
    this.outReady = false;
    const pc = createPeer(this.o.settings);
    const track = new MediaStreamTrack({ kind: 'audio' });
    pc.addTransceiver(track, { direction: 'sendonly' });
    this.pcOut = pc;
    this.track = track;
    await pc.setLocalDescription(await pc.createOffer());
    const { sessionId, answerSdp } = await this.o.engine.publish(
      this.o.stationId,
      pc.localDescription!.sdp,
    );
    this.outSessionId = sessionId;
    if (this.state === 'closed') {
      await this.o.engine.unpublish(this.o.stationId, sessionId).catch(() => false);
      throw new Error('relay closed during set-up');
    }
    await pc.setRemoteDescription({ type: 'answer', sdp: answerSdp });
    await waitConnected(pc, this.o.connectTimeoutMs ?? 10_000);
    this.outReady = true;
  }

  private forward(rtp: RtpPacket): void {
    if (this.state === 'closed') return;
    this.packetsIn++;
    if (this.outReady && this.track) {
      this.track.writeRtp(rtp);
      this.packetsOut++;
    } else if (!this.outReady && !this.reopening && this.state === 'up') {
      // The local publisher session timed out while the origin was silent: open a new one.
      this.reopening = this.reopenOut().finally(() => (this.reopening = undefined));
    }
  }

  /** The local engine dropped the out-leg's publisher session (e.g. 5 s without media). */
  outGone(sessionId: string): void {
    if (sessionId !== this.outSessionId) return;
    this.outReady = false;
    this.outSessionId = null;
    const pc = this.pcOut;
    this.pcOut = undefined;
    this.track = undefined;
    void pc?.close().catch(() => undefined);
  }

  private async reopenOut(): Promise<void> {
    try {
      await this.openOut();
    } catch (err) {
      console.warn(`[sfu-node] relay ${this.o.stationId}: out-leg reopen failed`, err);
    }
  }

  /** Tears both legs down: the local relay publisher, the leg on the origin, the peer connections. */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.outReady = false;
    const tasks: Promise<unknown>[] = [];
    if (this.outSessionId) {
      tasks.push(this.o.engine.unpublish(this.o.stationId, this.outSessionId).catch(() => false));
    }
    if (this.legSessionId) {
      tasks.push(
        this.o.originClient
          .removeListener(this.o.stationId, this.legSessionId, 2000)
          .catch(() => false),
      );
    }
    tasks.push(this.pcIn?.close().catch(() => undefined) ?? Promise.resolve());
    tasks.push(this.pcOut?.close().catch(() => undefined) ?? Promise.resolve());
    await Promise.all(tasks);
  }
}

function waitGathered(pc: RTCPeerConnection, timeoutMs: number): Promise<void> {
  if (pc.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      sub.unSubscribe();
      resolve();
    }, timeoutMs);
    const sub = pc.iceGatheringStateChange.subscribe((s) => {
      if (s === 'complete') {
        clearTimeout(timer);
        sub.unSubscribe();
        resolve();
      }
    });
  });
}

function waitConnected(pc: RTCPeerConnection, timeoutMs: number): Promise<void> {
  if (pc.connectionState === 'connected') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.unSubscribe();
      reject(new Error(`relay leg did not connect within ${timeoutMs} ms`));
    }, timeoutMs);
    const sub = pc.connectionStateChange.subscribe((s) => {
      if (s === 'connected') {
        clearTimeout(timer);
        sub.unSubscribe();
        resolve();
      } else if (s === 'failed' || s === 'closed') {
        clearTimeout(timer);
        sub.unSubscribe();
        reject(new Error(`relay leg ${s}`));
      }
    });
  });
}
