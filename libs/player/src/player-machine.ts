import type { ApiError } from './api.js';
import type { PlayerState } from './types.js';

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
  | 'access-needed';

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
  readonly [E in PlayerEvent]: { readonly to: PlayerState; readonly from: readonly PlayerState[] };
} = {
  connect: { to: 'connecting', from: ANY },
  'audio-playing': { to: 'live', from: ['connecting', 'live'] },
  'station-offline': { to: 'offline', from: RUNNING },
  stop: { to: 'idle', from: ANY },
  'autoplay-refused': { to: 'blocked', from: ['connecting', 'live'] },
  fail: { to: 'error', from: ANY },
  'domain-refused': { to: 'not-allowed', from: ['connecting'] },
  'access-needed': { to: 'private', from: ['connecting'] },
};

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

  constructor(
    private readonly onChange: (change: StateChange) => void,
    private readonly onIllegal: (t: IllegalTransition) => void,
  ) {}

  fire(event: PlayerEvent, error: ApiError | null): void {
    const { to, from } = TRANSITIONS[event];
    const previous = this.state;
    if (!from.includes(previous)) this.onIllegal({ event, from: previous });
    const errorChanged = error !== this.error;
    this.error = error;
    if (to === previous && !errorChanged) return;
    this.state = to;
    this.onChange({ state: to, previous, error });
  }
}
