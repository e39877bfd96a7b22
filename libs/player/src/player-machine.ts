import type { ApiError } from './api.js';
import type { PlayerState } from './types.js';

/** How the audio reaches the listener: WebRTC, or the HTTP stream (the fallback). */
export type PlayerTransport = 'webrtc' | 'http';

/** What moves a player from one state to another (see {@link TRANSITIONS}). */
export type PlayerEvent =
  /** play(), a retry after a drop, a fresh join, a station that came back live, a new station. */
  | 'connect'
  /** The audio plays: the WebRTC session connected and the sink started, or the HTTP stream. */
  | 'audio-playing'
  /** The station is not live (or stopped being): wait for it. */
  | 'station-offline'
  /** pause(), or a new station while not playing, or a live station while not playing. */
  | 'stop'
  /** The browser refused to start audio without a user gesture. */
  | 'autoplay-refused'
  /** A failure for the listener to see: bad station, not found, a join that never got through. */
  | 'fail'
  /** The station owner does not allow playback on this site. */
  | 'domain-refused'
  /** A private station that needs an invite or its password. */
  | 'access-needed'
  /**
   * WebRTC has not connected after `httpFallbackMs`: the HTTP stream starts while the WebRTC
   * session keeps trying (`audio-playing` follows when the stream plays).
   */
  | 'http-fallback'
  /** The HTTP stream failed before it played; the WebRTC session still trying is all that is left. */
  | 'http-failed'
  /** While the HTTP stream plays, a fresh WebRTC session is tried in the background. */
  | 'upgrade-attempt'
  /** WebRTC connected while the HTTP stream played: the audio switched to WebRTC, the stream stopped. */
  | 'upgraded'
  /** The WebRTC session behind the HTTP stream gave up (it is tried again later): the stream plays on. */
  | 'upgrade-failed';

/** Every state a player can be in. */
export const PLAYER_STATES: readonly PlayerState[] = [
  'idle',
  'connecting',
  'live',
  'offline',
  'error',
  'blocked',
  'not-allowed',
  'private',
];
/** The states a player that may still connect by itself is in (none of the halted ones). */
const RUNNING = PLAYER_STATES.filter((s) => s !== 'not-allowed' && s !== 'private');
const ANY = PLAYER_STATES;

/** Every transition of the player: the state an event leads to, and the states it may come from. */
export const TRANSITIONS: {
  readonly [E in PlayerEvent]: {
    /** null: the state stays (only the transport changes, or nothing the listener sees). */
    readonly to: PlayerState | null;
    readonly from: readonly PlayerState[];
    /** How the audio arrives after this event, when the event changes it. */
    readonly transport?: PlayerTransport;
  };
} = {
  connect: { to: 'connecting', from: ANY, transport: 'webrtc' },
  'audio-playing': { to: 'live', from: ['connecting', 'live'] },
  'station-offline': { to: 'offline', from: RUNNING },
  stop: { to: 'idle', from: ANY },
  'autoplay-refused': { to: 'blocked', from: ['connecting', 'live'] },
  fail: { to: 'error', from: ANY },
  'domain-refused': { to: 'not-allowed', from: ['connecting'] },
  'access-needed': { to: 'private', from: ['connecting'] },
  'http-fallback': { to: null, from: ['connecting', 'live'], transport: 'http' },
  'http-failed': { to: null, from: ['connecting', 'live'], transport: 'webrtc' },
  'upgrade-attempt': { to: null, from: ['connecting', 'live'] },
  upgraded: { to: 'live', from: ['connecting', 'live'], transport: 'webrtc' },
  'upgrade-failed': { to: null, from: ['connecting', 'live'] },
};

/** The stop-like events: the audio, whichever way it came, has stopped. */
const STOPPING: readonly PlayerEvent[] = [
  'station-offline',
  'stop',
  'autoplay-refused',
  'fail',
  'domain-refused',
  'access-needed',
];

export interface StateChange {
  state: PlayerState;
  previous: PlayerState;
  /** Why: the failure behind `error`, `not-allowed`, `offline` after a refused join, or a reconnect. */
  error: ApiError | null;
}

/** An event that {@link TRANSITIONS} does not allow from the state the player was in. */
export interface IllegalTransition {
  event: PlayerEvent;
  from: PlayerState;
}

/**
 * The player's state and the failure behind it, changed only through {@link fire}. A transition
 * the table does not allow is reported (a bug in the client), then taken, so a player never sticks.
 */
export class PlayerMachine {
  state: PlayerState = 'idle';
  error: ApiError | null = null;
  /** How the audio arrives (or will): 'http' from `http-fallback` until `upgraded` or a new start. */
  transport: PlayerTransport = 'webrtc';

  constructor(
    private readonly onChange: (change: StateChange) => void,
    private readonly onIllegal: (t: IllegalTransition) => void,
    private readonly onTransport: (t: PlayerTransport) => void = () => undefined,
  ) {}

  fire(event: PlayerEvent, error: ApiError | null): void {
    const { from, transport } = TRANSITIONS[event];
    const previous = this.state;
    const to = TRANSITIONS[event].to ?? previous;
    if (!from.includes(previous)) this.onIllegal({ event, from: previous });
    const next = transport ?? (STOPPING.includes(event) ? 'webrtc' : this.transport);
    const transportChanged = next !== this.transport;
    const changed = to !== previous || error !== this.error;
    // both set before either is told, so each listener sees the player as it now is
    this.transport = next;
    this.error = error;
    this.state = to;
    if (transportChanged) this.onTransport(next);
    if (changed) this.onChange({ state: to, previous, error });
  }
}
