import { deleteSession, exchangeSdp, mungeOpusStereo } from './webrtc';

export type PublisherState = 'connecting' | 'connected' | 'disconnected' | 'failed' | 'closed';

/**
 * Publishes one audio track to `POST /whip/{stationId}` (RFC 9725) with a station token, asking for
 * stereo Opus at 128 kb/s. The offer goes out before ICE gathering starts, so that the relays the
 * answer names in its `Link` headers (TURN, with this session's credentials) are in place when it
 * does: a browser that may not use UDP except through a relay publishes too. The endpoint learns
 * the browser's candidates from its connectivity checks.
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
    const sdp = mungeOpusStereo(offer.sdp ?? '');
    const { answer, location, iceServers } = await exchangeSdp(
      `/whip/${encodeURIComponent(this.stationId)}`,
      this.getToken(),
      sdp,
    );
    if (this.pc !== pc) {
      await deleteSession(location, this.getToken());
      return;
    }
    this.location = location;
    if (iceServers.length) pc.setConfiguration({ ...pc.getConfiguration(), iceServers });
    await pc.setLocalDescription({ type: 'offer', sdp });
    await pc.setRemoteDescription({ type: 'answer', sdp: answer });
  }

  /** The page is going away: end the session with a request that outlives it. */
  leaveOnUnload(): void {
    void deleteSession(this.location, this.getToken());
    this.location = null;
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
