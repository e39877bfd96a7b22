/**
 * `@radiobroadcaster/player`: the framework-free listening client. Importing this entry defines no
 * element and touches no DOM; `@radiobroadcaster/player/element` exports the element class and
 * `@radiobroadcaster/player/register` (or the built `player.js` / `player.mjs`) defines `<radio-player>`.
 */
export { ListeningClient, STATION_POLL_MS, httpTransport } from './client.js';
export type {
  ListeningClientEvents,
  ListeningClientOptions,
  ListeningTransport,
} from './client.js';
export {
  TRANSITIONS,
  type IllegalTransition,
  type PlayerEvent,
  type PlayerTransport,
  type StateChange,
} from './player-machine.js';
export { ApiError, PlayerApi, PlayerErrorTag, PRIVATE_TAGS } from './api.js';
export { mediaElementSink, type AudioSink } from './audio-sink.js';
export { DEFAULT_BACKOFF, backoffDelay, type BackoffOptions } from './backoff.js';
export {
  normalizeTheme,
  parseAutoplay,
  parseStationRef,
  stationPageUrl,
  type Theme,
} from './attributes.js';
export { OFF_AIR, broadcasterLabel } from './labels.js';
export { connectWhep, type ReceiverSession, type SessionState } from './whep.js';
export type {
  IceServer,
  JoinStationResponse,
  NowPlaying,
  PlayerState,
  Station,
  StationLocator,
  StationRef,
  StationStatus,
} from './types.js';
export { LevelViz, prefersReducedMotion } from './level-viz.js';
