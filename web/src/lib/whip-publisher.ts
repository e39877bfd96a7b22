import { deleteSession, exchangeSdp, iceGatheringComplete, mungeOpusStereo } from './webrtc';

export type PublisherState = 'connecting' | 'connected' | 'disconnected' | 'failed' | 'closed';

/**
 * Publishes one audio track to `POST /whip/{stationId}` (RFC 9725) with a station token, asking for
 * stereo Opus at 128 kb/s.
 */
export class WhipPublisher {
  private pc: RTCPeerConnection | null = null;
  private location: string | null = null;

  constructor(
    private readonly stationId: string,
    private readonly getToken: () => string,
    private readonly onState: (state: PublisherState) => void,
  ) {}

  async start(track: MediaStreamTrack, stream: MediaStream): Promise<void> {
    await this.stop();
    const pc = new RTCPeerConnection();
    this.pc = pc;
    pc.addTransceiver(track, { direction: 'sendonly', streams: [stream] });
    pc.addEventListener('connectionstatechange', () => {
      if (this.pc !== pc) return;
      const s = pc.connectionState;
      if (s === 'connecting' || s === 'connected' || s === 'disconnected' || s === 'failed') {
        this.onState(s);
      }
    });
    this.onState('connecting');
    const offer = await pc.createOffer();
    await pc.setLocalDescription({ type: 'offer', sdp: mungeOpusStereo(offer.sdp ?? '') });
    await iceGatheringComplete(pc);
    const { answer, location } = await exchangeSdp(
      `/whip/${encodeURIComponent(this.stationId)}`,
      this.getToken(),
      pc.localDescription!.sdp,
    );
    if (this.pc !== pc) {
      await deleteSession(location, this.getToken());
      return;
    }
    this.location = location;
    await pc.setRemoteDescription({ type: 'answer', sdp: answer });
  }

  async stop(): Promise<void> {
    const pc = this.pc;
    this.pc = null;
    const location = this.location;
    this.location = null;
    if (pc) pc.close();
    await deleteSession(location, this.getToken());
    if (pc) this.onState('closed');
  }
}
