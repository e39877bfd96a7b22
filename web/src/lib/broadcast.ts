import { api } from './api';
import { type AudioSource, canCaptureDisplay } from './input-devices';
import { LevelMeter } from './level-meter';
import { freshStationToken, msUntilRefresh, rememberStationToken } from './station-tokens';
import { WhipPublisher, type PublisherState } from './whip-publisher';

export type BroadcastState = 'idle' | 'capturing' | 'connecting' | 'live' | 'reconnecting';

/** The station being broadcast, with what the on-air bar shows about it. */
export interface BroadcastTarget {
  id: string;
  name: string;
  slug: string;
  username: string;
}

export interface BroadcastSnapshot {
  state: BroadcastState;
  station: BroadcastTarget | null;
  /** When audio first reached the server (ms since the epoch), for the elapsed time. */
  liveSince: number | null;
  sourceLabel: string | null;
  /** Why the last attempt stopped or failed, in plain words. */
  message: string | null;
}

export const MESSAGES = {
  noAudioTrack:
    'The source you chose has no audio. Share again and pick a browser tab or your entire screen with “Share audio” switched on — windows usually have no audio.',
  noSystemAudio:
    "This browser can't capture the audio of a tab, window or screen. Use Chrome or Edge on a computer, or choose Microphone.",
  displayCancelled: 'Sharing was cancelled. Nothing is on air.',
  micBlocked:
    'Microphone access was blocked. Allow it in the browser’s site settings and try again.',
  micMissing: 'No microphone was found.',
  deviceBusy: 'That input is in use by another application, or was unplugged. Choose another one.',
  sourceEnded: 'The shared source stopped, so the broadcast ended.',
  connectionLost: 'The connection to the server was lost. Press Go live to try again.',
  tokenFailed: 'Could not renew the permission to publish. Check your connection.',
} as const;

const IDLE: BroadcastSnapshot = {
  state: 'idle',
  station: null,
  liveSince: null,
  sourceLabel: null,
  message: null,
};

async function capture(source: AudioSource, deviceId: string): Promise<MediaStream> {
  if (source === 'microphone') {
    if (!navigator.mediaDevices?.getUserMedia) throw new Error(MESSAGES.micMissing);
    try {
      return await navigator.mediaDevices.getUserMedia({
        audio: {
          ...(deviceId ? { deviceId: { exact: deviceId } } : {}),
          // Music, not a call: no processing that pumps or filters it.
          echoCancellation: false,
          noiseSuppression: false,
          autoGainControl: false,
          channelCount: { ideal: 2 },
        },
        video: false,
      });
    } catch (err) {
      const name = err instanceof DOMException ? err.name : '';
      if (name === 'NotAllowedError' || name === 'SecurityError')
        throw new Error(MESSAGES.micBlocked);
      if (name === 'NotFoundError' || name === 'OverconstrainedError')
        throw new Error(deviceId ? MESSAGES.deviceBusy : MESSAGES.micMissing);
      if (name === 'NotReadableError' || name === 'AbortError')
        throw new Error(MESSAGES.deviceBusy);
      throw err;
    }
  }
  if (!canCaptureDisplay()) throw new Error(MESSAGES.noSystemAudio);
  let stream: MediaStream;
  try {
    // Chrome only offers audio alongside video; the video track is never sent.
    stream = await navigator.mediaDevices.getDisplayMedia({
      video: true,
      audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false },
      systemAudio: 'include',
      windowAudio: 'system',
    } as DisplayMediaStreamOptions);
  } catch (err) {
    const name = err instanceof DOMException ? err.name : '';
    if (name === 'NotAllowedError' || name === 'AbortError')
      throw new Error(MESSAGES.displayCancelled);
    if (name === 'NotSupportedError' || name === 'TypeError')
      throw new Error(MESSAGES.noSystemAudio);
    throw err;
  }
  if (stream.getAudioTracks().length === 0) {
    stream.getTracks().forEach((t) => t.stop());
    throw new Error(MESSAGES.noAudioTrack);
  }
  return stream;
}

/**
 * The browser studio's one broadcast: capture, publish over WHIP, keep the station token fresh,
 * measure the level. It lives above the routes, so moving around the site keeps the station on air;
 * React reads it through `subscribe`/`snapshot`.
 */
export class Broadcast {
  readonly meter = new LevelMeter();
  private state: BroadcastSnapshot = IDLE;
  private readonly subscribers = new Set<() => void>();
  private stream: MediaStream | null = null;
  private publisher: WhipPublisher | null = null;
  private token = '';
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  /** Bumped by every start and stop, so a slow attempt that was overtaken gives up quietly. */
  private attempt = 0;

  constructor(
    private readonly onStationChange: (stationId: string) => void,
    private readonly onError: (err: unknown, title: string) => void,
  ) {}

  subscribe = (fn: () => void): (() => void) => {
    this.subscribers.add(fn);
    return () => void this.subscribers.delete(fn);
  };

  snapshot = (): BroadcastSnapshot => this.state;

  /** On air, or on the way there: leaving the page would cut the station. */
  get busy(): boolean {
    return this.state.state !== 'idle';
  }

  async start(station: BroadcastTarget, source: AudioSource, deviceId = ''): Promise<void> {
    await this.teardown();
    const attempt = ++this.attempt;
    this.set({ ...IDLE, state: 'capturing', station });
    let stream: MediaStream;
    try {
      stream = await capture(source, deviceId);
    } catch (err) {
      if (attempt === this.attempt)
        this.set({ ...IDLE, message: err instanceof Error ? err.message : String(err) });
      return;
    }
    if (attempt !== this.attempt) {
      stream.getTracks().forEach((t) => t.stop());
      return;
    }
    this.stream = stream;
    const track = stream.getAudioTracks()[0]!;
    track.addEventListener('ended', () => {
      if (attempt === this.attempt) void this.stop(MESSAGES.sourceEnded);
    });
    this.meter.start(stream);
    this.set({
      state: 'connecting',
      sourceLabel: track.label || (source === 'microphone' ? 'Microphone' : 'Shared audio'),
    });
    try {
      const token = await freshStationToken(station.id);
      this.token = token.token;
      const publisher = new WhipPublisher(
        station.id,
        () => this.token,
        (s) => {
          if (attempt === this.attempt) this.onPublisherState(s);
        },
      );
      this.publisher = publisher;
      await publisher.start(track, new MediaStream([track]));
      this.scheduleRefresh(station.id, token.expiresAt);
      this.onStationChange(station.id);
    } catch (err) {
      if (attempt !== this.attempt) return;
      await this.teardown();
      this.set({ ...IDLE });
      this.onError(err, 'Could not go live');
    }
  }

  /** Stops publishing from this browser (the station goes offline once the server notices). */
  async stop(why?: string): Promise<void> {
    this.attempt++;
    const stationId = this.state.station?.id;
    await this.teardown();
    this.set({ ...IDLE, message: why ?? null });
    if (stationId) this.onStationChange(stationId);
  }

  /** The tab is closing: tell the server at once instead of letting the connection time out. */
  leaveOnUnload(): void {
    this.publisher?.leaveOnUnload();
  }

  private onPublisherState(s: PublisherState): void {
    switch (s) {
      case 'connected':
        this.set({ state: 'live', liveSince: this.state.liveSince ?? Date.now() });
        break;
      case 'disconnected':
        this.set({ state: 'reconnecting' });
        break;
      case 'failed':
        void this.stop(MESSAGES.connectionLost);
        break;
      case 'connecting':
      case 'closed':
        break;
    }
  }

  private scheduleRefresh(stationId: string, expiresAt: string): void {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(
      async () => {
        try {
          const next = await api.stations.refreshToken(stationId);
          rememberStationToken(stationId, next);
          this.token = next.token;
          this.scheduleRefresh(stationId, next.expiresAt);
        } catch (err) {
          this.onError(err, MESSAGES.tokenFailed);
          this.scheduleRefresh(stationId, new Date(Date.now() + 70_000).toISOString());
        }
      },
      msUntilRefresh({ token: this.token, expiresAt }),
    );
  }

  private async teardown(): Promise<void> {
    clearTimeout(this.refreshTimer);
    this.meter.stop();
    const publisher = this.publisher;
    this.publisher = null;
    this.stream?.getTracks().forEach((t) => t.stop());
    this.stream = null;
    await publisher?.stop();
  }

  private set(patch: Partial<BroadcastSnapshot>): void {
    this.state = { ...this.state, ...patch };
    for (const fn of this.subscribers) fn();
  }
}
