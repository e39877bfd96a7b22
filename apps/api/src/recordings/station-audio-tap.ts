/** Where a station's Opus packets come from (the media engine's packet tap). */
export interface AudioTapSource {
  subscribe(stationId: string, onPacket: (payload: Buffer) => void): () => void;
}

/**
 * A station's Opus packets as the publisher sends them: what a recording is written from. The
 * recordings module attaches the media engine's packet tap (`MediaEngine.tap`) when it is wired.
 */
export class StationAudioTap {
  private source: AudioTapSource | null = null;

  attach(source: AudioTapSource): void {
    this.source = source;
  }

  get available(): boolean {
    return this.source !== null;
  }

  /** Calls `onPacket` with each Opus payload of the station until the returned function is called. */
  subscribe(stationId: string, onPacket: (payload: Buffer) => void): () => void {
    return this.source ? this.source.subscribe(stationId, onPacket) : () => undefined;
  }
}
