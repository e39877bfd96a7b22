import { ApiError, PRIVATE_TAGS, PlayerApi, PlayerErrorTag, isAbort } from './api.js';
import { parseStationRef } from './attributes.js';
import { type AudioSink, isAutoplayRefusal, mediaElementSink } from './audio-sink.js';
import { type BackoffOptions, DEFAULT_BACKOFF, backoffDelay } from './backoff.js';
import { Emitter } from './emitter.js';
import {
  type IllegalTransition,
  type PlayerEvent,
  PlayerMachine,
  type PlayerTransport,
  type StateChange,
} from './player-machine.js';
import type {
  JoinAccess,
  JoinStationResponse,
  PlayerState,
  Station,
  StationLocator,
} from './types.js';
import { type ReceiverSession, type SessionState, connectWhep, hasWebRtc } from './whep.js';

export type { StateChange };

/** Station detail polling, as the station page does: status and counts stay current without sockets. */
export const STATION_POLL_MS = 2000;
/**
 * How long a listener without a grant still hears a station that just became private (the server
 * ends such sessions after the same 10 s; the player says so meanwhile).
 */
export const PRIVATE_NOTICE_MS = 10_000;

/** The network side of listening; swapped for a fake in tests. */
export interface ListeningTransport {
  getStation(locator: StationLocator, signal?: AbortSignal): Promise<Station>;
  /** `access`: what a private station admits by (an invite, its password, an earlier grant). */
  join(stationId: string, signal?: AbortSignal, access?: JoinAccess): Promise<JoinStationResponse>;
  connect(join: JoinStationResponse, signal?: AbortSignal): Promise<ReceiverSession>;
}

/** The real transport: REST against `apiBase` and WHEP with RTCPeerConnection. */
export function httpTransport(apiBase: string): ListeningTransport {
  const api = new PlayerApi(apiBase);
  return {
    getStation: (locator, signal) => api.getStation(locator, signal),
    join: (stationId, signal, access) => api.join(stationId, signal, access),
    connect: (join, signal) => {
      if (!hasWebRtc()) {
        return Promise.reject(
          new ApiError(
            'This browser cannot play live audio (no WebRTC).',
            0,
            PlayerErrorTag.Unsupported,
          ),
        );
      }
      return connectWhep(join, { signal });
    },
  };
}

export interface ListeningClientOptions {
  /** `username/station-slug`, a parsed address, or `{ id }`. */
  station?: string | StationLocator | null;
  /** Origin of the Radio Broadcaster API, e.g. `https://radio.example`; '' (default) = this page's origin. */
  apiBase?: string;
  /** Play through this element (recommended: mobile keeps it playing in the background). */
  audio?: HTMLMediaElement;
  /** Or through any sink; `audio` wins when both are given. Without either, use `client.track`. */
  sink?: AudioSink;
  transport?: ListeningTransport;
  pollIntervalMs?: number;
  backoff?: BackoffOptions;
  /** A connected session that receives no audio packets for this long is replaced. */
  stallTimeoutMs?: number;
  /** ICE 'disconnected' for this long counts as a drop (it often recovers by itself). */
  disconnectGraceMs?: number;
  /** Gives up on a session that has not connected after this long. */
  connectTimeoutMs?: number;
  /**
   * When WebRTC has not connected after this long (UDP blocked, no TURN, a lossy link), play the
   * station's HTTP stream through `audio` meanwhile: `/listen/{username}/{slug}.ogg` if the browser
   * plays Ogg/Opus (`canPlayType`), else `.mp3` if it plays MP3, as the join's signed URLs
   * (`listen`), which play even when the owner keeps the stream URL private. The WebRTC session
   * keeps trying until `connectTimeoutMs` (and its fresh-session retries, `joinRetries`); when it
   * connects, the audio switches to it and the stream stops (`upgraded`). Default 5000; 0 turns it off.
   */
  httpFallbackMs?: number;
  /**
   * While the HTTP stream plays because WebRTC did not connect, a fresh WebRTC session is tried in
   * the background after this long, then after twice as long, … (`upgradeAttempts` times in all);
   * the audio switches when one connects. Default 30000; 0 turns it off.
   */
  upgradeRetryMs?: number;
  /** How many background WebRTC attempts an HTTP listener makes (default 3). */
  upgradeAttempts?: number;
  /**
   * A session that never connects (its connection failed, or `connectTimeoutMs` passed) is replaced
   * at once by a fresh one (a new join and WHEP session) this many times (default 1). When that one
   * fails too, the HTTP stream plays if this browser can play it; otherwise the player stops and
   * reports it: state 'error' with PlayerErrorTag.JoinFailed, until `play()` tries again.
   */
  joinRetries?: number;
  random?: () => number;
  /** A state change the player's transition table does not allow (a bug): console.error by default. */
  onIllegalTransition?: (t: IllegalTransition) => void;
}

/** What the player says when the live connection could not be made, a fresh session included. */
export const JOIN_FAILED_MESSAGE =
  "Couldn't connect to the live audio: the connection didn't get through, twice. " +
  'Your network may be blocking or dropping it.';

export interface ListeningClientEvents {
  state: StateChange;
  /** Every station detail received (first load and each poll). */
  station: Station;
  /** The playable audio track changed (null when playback stopped). */
  track: MediaStreamTrack | null;
  /** A reconnect is scheduled after `delayMs`. */
  reconnect: { attempt: number; delayMs: number; reason: string };
  /** How the audio arrives now: 'webrtc', or 'http' after the fallback (until `upgraded`). */
  transport: ListeningTransportKind;
  /**
   * The station became private while this listener (without a grant) listens: listening ends at
   * `endsAt` (ms since the epoch); null when the notice is over.
   */
  privateNotice: { endsAt: number } | null;
}

export type ListeningTransportKind = PlayerTransport;

/**
 * The HTTP stream's containers, best first, each with the type `canPlayType` is asked about:
 * Ogg/Opus (the publisher's packets as they are), else MP3 (Safari before Opus in `<audio>`).
 */
export const HTTP_STREAM_CONTAINERS = [
  { extension: 'ogg', type: 'audio/ogg; codecs="opus"' },
  { extension: 'mp3', type: 'audio/mpeg' },
] as const;

/**
 * Listens to one station: loads and polls its detail, joins, negotiates WHEP, plays, reconnects with
 * backoff after drops, waits while the station is offline and resumes when it returns, and leaves cleanly
 * (WHEP DELETE). No DOM UI; safe to construct where there is no window (nothing happens until `start`).
 *
 * ```ts
 * const client = new ListeningClient({ station: 'alice/night-radio', audio: audioElement });
 * client.on('state', ({ state }) => render(state));
 * button.onclick = () => client.play();
 * ```
 */
export class ListeningClient extends Emitter<ListeningClientEvents> {
  private readonly transport: ListeningTransport;
  private readonly sink: AudioSink | null;
  private readonly opts: Required<
    Pick<
      ListeningClientOptions,
      | 'pollIntervalMs'
      | 'backoff'
      | 'stallTimeoutMs'
      | 'disconnectGraceMs'
      | 'connectTimeoutMs'
      | 'httpFallbackMs'
      | 'joinRetries'
      | 'upgradeRetryMs'
      | 'upgradeAttempts'
      | 'random'
    >
  >;

  private locator: StationLocator | null = null;
  /** The state and its error: every change goes through its transition table (player-machine.ts). */
  private readonly machine: PlayerMachine;
  private _station: Station | null = null;
  private _track: MediaStreamTrack | null = null;
  private started = false;
  private destroyed = false;
  private wantPlay = false;
  /** A terminal condition for this station (not found, not allowed, unsupported): no more calls. */
  private halted = false;
  /** What a private station admits by; the grant it gave is kept (and stored) to rejoin. */
  private access: JoinAccess = {};

  /** Bumped on station change: stale poll answers are dropped. */
  private stationGen = 0;
  /** Bumped whenever the session is torn down: stale session callbacks are dropped. */
  private sessionGen = 0;
  private session: ReceiverSession | null = null;
  /** The last join's signed HTTP stream URLs (they play even when the stream URL is private). */
  private listenUrls: JoinStationResponse['listen'] | null = null;
  private connecting: AbortController | null = null;
  private connected = false;
  private sinkStarted = false;
  private attempt = 0;
  /** Sessions in a row that never connected (reset when one connects, and by `play()`). */
  private joinFailures = 0;

  private pollTimer: ReturnType<typeof setTimeout> | undefined;
  private pollAbort: AbortController | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private watchTimer: ReturnType<typeof setInterval> | undefined;
  private disconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private connectTimer: ReturnType<typeof setTimeout> | undefined;
  private fallbackTimer: ReturnType<typeof setTimeout> | undefined;
  private noticeTimer: ReturnType<typeof setTimeout> | undefined;
  private _privateNoticeEndsAt: number | null = null;
  private readonly audio: HTMLMediaElement | null;
  private readonly apiBase: string;
  /**
   * The HTTP stream playing after a fallback: `detach` drops its listeners (the element keeps
   * playing whatever it plays next), `stop` also stops the element.
   */
  private http: { stop: () => void; detach: () => void } | null = null;
  /** The HTTP stream failed before it ever played in this join: WebRTC is the only way left. */
  private httpFailed = false;
  /** Background WebRTC attempts made while the HTTP stream plays. */
  private upgradeTries = 0;
  private upgradeTimer: ReturnType<typeof setTimeout> | undefined;
  /** WebRTC sessions that took over from the HTTP stream (for the curious: tests, benchmarks). */
  upgrades = 0;

  constructor(options: ListeningClientOptions = {}) {
    super();
    this.transport = options.transport ?? httpTransport(options.apiBase ?? '');
    this.sink = options.audio ? mediaElementSink(options.audio) : (options.sink ?? null);
    this.audio = options.audio ?? null;
    this.apiBase = (options.apiBase ?? '').replace(/\/+$/, '');
    this.opts = {
      pollIntervalMs: options.pollIntervalMs ?? STATION_POLL_MS,
      backoff: options.backoff ?? DEFAULT_BACKOFF,
      stallTimeoutMs: options.stallTimeoutMs ?? 8000,
      disconnectGraceMs: options.disconnectGraceMs ?? 2000,
      connectTimeoutMs: options.connectTimeoutMs ?? 10000,
      httpFallbackMs: options.httpFallbackMs ?? 5000,
      joinRetries: options.joinRetries ?? 1,
      upgradeRetryMs: options.upgradeRetryMs ?? 30_000,
      upgradeAttempts: options.upgradeAttempts ?? 3,
      random: options.random ?? Math.random,
    };
    this.machine = new PlayerMachine(
      (change) => {
        if (!this.destroyed) this.emit('state', change);
      },
      options.onIllegalTransition ??
        ((t) => console.error(`radio-player: ${t.event} from ${t.from} is not a transition`)),
      (transport) => {
        if (!this.destroyed) this.emit('transport', transport);
      },
    );
    if (options.station !== undefined) this.applyLocator(options.station);
  }

  get state(): PlayerState {
    return this.machine.state;
  }
  /** The failure behind the current state, if any. */
  get error(): ApiError | null {
    return this.machine.error;
  }
  /** The latest station detail. */
  get station(): Station | null {
    return this._station;
  }
  /** The received audio track while a session is up (wrap it in a MediaStream for an `<audio>`). */
  get track(): MediaStreamTrack | null {
    return this._track;
  }
  /** True while recovering from a drop (a reconnect is pending or under way). */
  get reconnecting(): boolean {
    return this.attempt > 0 && this.machine.state === 'connecting';
  }
  /** True while the audio comes from the HTTP stream (WebRTC has not connected, or could not). */
  get viaHttp(): boolean {
    return this.http !== null;
  }
  /** How the audio arrives now (or is about to): 'webrtc', or 'http' after the fallback. */
  get transportKind(): ListeningTransportKind {
    return this.machine.transport;
  }
  /** When listening ends (ms since the epoch) after the station became private, else null. */
  get privateNoticeEndsAt(): number | null {
    return this._privateNoticeEndsAt;
  }
  /** True between `play()` and `pause()` (also while waiting for an offline station). */
  get playing(): boolean {
    return this.wantPlay;
  }

  /** Loads the station and starts polling it. Idempotent; `play()` calls it. */
  start(): void {
    if (this.destroyed || this.started) return;
    this.started = true;
    if (!this.halted) this.pollNow();
  }

  /**
   * Starts (or resumes) listening. Call it from a user gesture when you can: it unlocks audio output
   * there and then, so a 'blocked' player starts.
   */
  play(): void {
    if (this.destroyed) return;
    this.start();
    if (this.halted) return;
    this.sink?.unlock();
    this.wantPlay = true;
    this.joinFailures = 0;
    this.httpFailed = false;
    if (this.session && this.connected) {
      this.startSink(this.sessionGen);
      return;
    }
    if (this._station && this._station.status !== 'live') {
      this.fire('station-offline', this.machine.error);
      return;
    }
    this.fire('connect', null);
    this.maybeConnect();
  }

  /**
   * Tries a private station again with an invite token or its password (the `private` state's
   * form): listening starts when it admits.
   */
  setAccess(access: { invite?: string; password?: string }): void {
    if (this.destroyed) return;
    this.access = compact({ ...access });
    if (this._station) storeGrant(this._station.id, null);
    if (this.machine.state === 'private') {
      this.halted = false;
      if (this.started) this.pollNow();
      this.play();
    }
  }

  /** Stops listening and leaves the session; keeps the station detail fresh. */
  pause(): void {
    if (this.destroyed) return;
    this.wantPlay = false;
    this.clearRetry();
    this.clearPrivateNotice();
    this.teardownSession();
    this.sink?.stop();
    if (this.halted) return;
    this.fire(this._station && this._station.status !== 'live' ? 'station-offline' : 'stop', null);
  }

  /** Switches station: the old session is left cleanly; playing continues on the new one if it was on. */
  setStation(station: string | StationLocator | null): void {
    if (this.destroyed) return;
    this.clearRetry();
    this.clearPrivateNotice();
    this.teardownSession();
    this.stopPolling();
    this.stationGen++;
    this._station = null;
    this.attempt = 0;
    this.halted = false;
    this.applyLocator(station);
    if (this.halted) return;
    this.fire(this.wantPlay ? 'connect' : 'stop', null);
    if (this.started) this.pollNow();
  }

  /** Leaves the session, stops every timer and drops every listener. */
  destroy(options: { keepalive?: boolean } = {}): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.wantPlay = false;
    this.clearRetry();
    this.clearPrivateNotice();
    this.stopPolling();
    this.teardownSession({ keepalive: options.keepalive });
    this.sink?.stop();
    this.removeAllListeners();
  }

  /** Leaves the current session with a keepalive request (for `pagehide`); `play()` rejoins. */
  leaveOnUnload(): void {
    if (this.session) this.teardownSession({ keepalive: true });
  }

  // ---- station detail --------------------------------------------------------------------------

  private applyLocator(station: string | StationLocator | null): void {
    const locator = typeof station === 'string' ? parseStationRef(station) : station;
    this.locator = locator;
    if (!locator) {
      this.halt(
        'fail',
        new ApiError(
          `Invalid station "${typeof station === 'string' ? station : ''}": expected username/station-slug.`,
          0,
          PlayerErrorTag.InvalidStation,
        ),
      );
    }
  }

  private pollNow(): void {
    clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    void this.poll();
  }

  private async poll(): Promise<void> {
    const locator = this._station ? { id: this._station.id } : this.locator;
    if (!locator || this.destroyed || this.halted) return;
    const gen = this.stationGen;
    this.pollAbort = new AbortController();
    try {
      const station = await this.transport.getStation(locator, this.pollAbort.signal);
      if (gen !== this.stationGen || this.destroyed) return;
      this.applyStation(station);
    } catch (err) {
      if (gen !== this.stationGen || this.destroyed || isAbort(err)) return;
      const e = toApiError(err);
      if (e.status === 404) {
        this.halt('fail', e);
        return;
      }
      // Transient: say so only when there is nothing better to show; the next poll retries.
      if (!this._station) this.fire('fail', e);
    } finally {
      if (gen === this.stationGen) this.pollAbort = null;
    }
    if (gen === this.stationGen && !this.destroyed && !this.halted) {
      this.pollTimer = setTimeout(() => void this.poll(), this.opts.pollIntervalMs);
    }
  }

  private applyStation(station: Station): void {
    const before = this._station?.id === station.id ? this._station.visibility : undefined;
    this._station = station;
    this.emit('station', station);
    if (this.halted) return;
    this.watchVisibility(before, station.visibility);
    // The publisher dropped and may come back within the grace period: keep listening.
    if (station.status === 'reconnecting' && (this.session || this.http)) return;
    if (station.status !== 'live') {
      this.clearRetry();
      this.teardownSession();
      this.fire('station-offline', this.machine.state === 'offline' ? this.machine.error : null);
      return;
    }
    // Live.
    if (this.wantPlay) {
      if (this.machine.state === 'offline' || this.machine.state === 'error') {
        this.attempt = 0;
        this.clearRetry();
        this.fire('connect', null);
      }
      this.maybeConnect();
    } else if (
      this.machine.state === 'offline' ||
      (this.machine.state === 'error' && this.machine.error?.tag !== PlayerErrorTag.JoinFailed)
    ) {
      this.fire('stop', null);
    }
  }

  /**
   * A station that turns private while this listener, let in without a grant, listens: the notice
   * (`privateNotice`), then at its end a rejoin, which the server refuses (the `private` state with
   * its password form) unless the listener has since been let in. Turned back: the notice ends.
   */
  private watchVisibility(before: Station['visibility'], now: Station['visibility']): void {
    if (now !== 'private') {
      this.clearPrivateNotice();
      return;
    }
    if (
      before === undefined ||
      before === 'private' ||
      this._privateNoticeEndsAt !== null ||
      this.access.grant ||
      !this.wantPlay ||
      !(this.session || this.http || this.connecting)
    )
      return;
    const endsAt = Date.now() + PRIVATE_NOTICE_MS;
    this._privateNoticeEndsAt = endsAt;
    this.noticeTimer = setTimeout(() => {
      this.noticeTimer = undefined;
      this._privateNoticeEndsAt = null;
      if (!this.destroyed) this.emit('privateNotice', null);
      if (this.halted || this.access.grant || !this.wantPlay) return;
      // the server ends it too; asking again now says why, whichever comes first
      this.teardownSession();
      this.sink?.stop();
      this.fire('connect', null);
      this.maybeConnect();
    }, PRIVATE_NOTICE_MS);
    this.emit('privateNotice', { endsAt });
  }

  private clearPrivateNotice(): void {
    if (this._privateNoticeEndsAt === null) return;
    clearTimeout(this.noticeTimer);
    this.noticeTimer = undefined;
    this._privateNoticeEndsAt = null;
    if (!this.destroyed) this.emit('privateNotice', null);
  }

  private stopPolling(): void {
    clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    this.pollAbort?.abort();
    this.pollAbort = null;
  }

  // ---- session ---------------------------------------------------------------------------------

  private maybeConnect(): void {
    if (
      !this.wantPlay ||
      this.destroyed ||
      this.halted ||
      this.session ||
      this.http ||
      this.connecting ||
      this.retryTimer !== undefined ||
      this._station?.status !== 'live'
    ) {
      return;
    }
    void this.connect(this._station.id);
  }

  private async connect(stationId: string): Promise<void> {
    const gen = ++this.sessionGen;
    const abort = (this.connecting = new AbortController());
    if (this.http) this.fire('upgrade-attempt', this.machine.error);
    else this.fire('connect', this.machine.state === 'connecting' ? this.machine.error : null);
    try {
      const access = { ...this.access, grant: this.access.grant ?? storedGrant(stationId) };
      const join = await this.transport.join(stationId, abort.signal, compact(access));
      if (gen !== this.sessionGen) return;
      this.listenUrls = join.listen;
      if (join.grant) {
        // admitted: the grant rejoins from now on (the same listener), the password is forgotten
        this.access = { grant: join.grant.token };
        storeGrant(stationId, join.grant.token);
      }
      const session = await this.transport.connect(join, abort.signal);
      if (gen !== this.sessionGen) {
        session.close();
        return;
      }
      this.connecting = null;
      this.session = session;
      this.connected = false;
      this.sinkStarted = !this.sink;
      session.onstatechange = (s) => this.onSessionState(gen, s);
      this._track = session.track;
      this.emit('track', session.track);
      this.connectTimer = setTimeout(() => {
        if (gen === this.sessionGen && !this.connected) this.onJoinFailed('connect timeout');
      }, this.opts.connectTimeoutMs);
      if (
        !this.http &&
        this.opts.httpFallbackMs > 0 &&
        this.opts.httpFallbackMs < this.opts.connectTimeoutMs
      ) {
        this.fallbackTimer = setTimeout(() => {
          if (gen === this.sessionGen && !this.connected) this.fallBackToHttp();
        }, this.opts.httpFallbackMs);
      }
      // the HTTP stream plays meanwhile: the sink starts when the session connects (the switch)
      if (!this.http) this.startSink(gen);
      // A change that happened before onstatechange was set (ICE connects in a few ms on a LAN).
      if (gen === this.sessionGen && session.state && session.state !== 'connecting') {
        this.onSessionState(gen, session.state);
      }
    } catch (err) {
      if (gen !== this.sessionGen || isAbort(err)) return;
      this.connecting = null;
      this.onConnectFailure(toApiError(err));
    }
  }

  private startSink(gen: number): void {
    const track = this._track;
    if (!this.sink || !track) {
      this.updateLive();
      return;
    }
    this.sink.start(track).then(
      () => {
        if (gen !== this.sessionGen) return;
        this.sinkStarted = true;
        this.updateLive();
      },
      (err: unknown) => {
        if (gen !== this.sessionGen) return;
        if (isAutoplayRefusal(err)) {
          // Don't hold a listener slot nobody hears: leave and wait for a click.
          this.wantPlay = false;
          this.teardownSession();
          this.sink?.stop();
          this.fire('autoplay-refused', null);
        }
        // Other errors (AbortError from a superseded play()) are not failures.
      },
    );
  }

  /** The station's HTTP stream URL when this browser can play it through `audio`, else null. */
  private httpStreamUrl(): string | null {
    const station = this._station;
    const audio = this.audio;
    if (!station || !audio || typeof audio.canPlayType !== 'function') return null;
    const playable = HTTP_STREAM_CONTAINERS.find((c) => audio.canPlayType(c.type) !== '');
    if (!playable) return null;
    const signed = this.listenUrls?.[playable.extension];
    if (signed) return signed;
    const user = encodeURIComponent(station.broadcaster.username);
    return `${this.apiBase}/listen/${user}/${encodeURIComponent(station.slug)}.${playable.extension}`;
  }

  /**
   * WebRTC has not connected in time: play the HTTP stream meanwhile. The WebRTC session, if one is
   * still trying, goes on (the switch happens when it connects: `upgrade`). When the stream stops
   * after it played, try again (WebRTC first); when it fails before it ever played and no WebRTC
   * session is left trying, neither way reaches this listener: the player says so and offers a retry
   * rather than going round WebRTC and HTTP for ever.
   */
  private fallBackToHttp(): void {
    const url = this.httpStreamUrl();
    const audio = this.audio;
    if (!url || !audio || !this.wantPlay || this.http || this.httpFailed) return;
    clearTimeout(this.fallbackTimer);
    this.fallbackTimer = undefined;
    // the silent WebRTC sink (its session has not connected) leaves the element to the stream
    this.sink?.stop();
    this.sinkStarted = false;
    let played = false;
    let http: { stop: () => void; detach: () => void } | null = null;
    const onPlaying = () => {
      played = true;
    };
    const onFail = () => {
      if (this.http !== http) return;
      if (played) return this.reconnect('the HTTP stream stopped');
      if (this.session || this.connecting) {
        // WebRTC is still trying: it may yet get through, into the sink again
        this.stopHttp();
        this.httpFailed = true;
        this.fire('http-failed', this.machine.error);
        this.startSink(this.sessionGen);
        return;
      }
      this.failJoin();
    };
    const detach = () => {
      audio.removeEventListener('playing', onPlaying);
      audio.removeEventListener('error', onFail);
      audio.removeEventListener('ended', onFail);
    };
    http = this.http = {
      detach,
      stop: () => {
        detach();
        audio.pause();
        audio.removeAttribute('src');
        audio.load();
      },
    };
    audio.addEventListener('playing', onPlaying);
    audio.addEventListener('error', onFail);
    audio.addEventListener('ended', onFail);
    audio.srcObject = null;
    audio.src = url;
    this.upgradeTries = 0;
    this.fire('http-fallback', this.machine.error);
    audio.play().then(
      () => {
        if (this.http !== http) return;
        this.fire('audio-playing', null);
      },
      (err: unknown) => {
        if (this.http !== http) return;
        if (isAutoplayRefusal(err)) {
          this.wantPlay = false;
          this.teardownSession();
          this.fire('autoplay-refused', null);
        } else onFail();
      },
    );
  }

  /** Stops the HTTP stream (nothing else). */
  private stopHttp(): void {
    clearTimeout(this.upgradeTimer);
    this.upgradeTimer = undefined;
    const http = this.http;
    if (!http) return;
    this.http = null;
    http.stop();
  }

  /**
   * A WebRTC session connected while the HTTP stream plays: its track takes the element over
   * (`srcObject` replaces the stream's `src` on the same element: never both heard), then the
   * stream's listeners go. The state stays live throughout.
   */
  private upgrade(gen: number): void {
    const http = this.http;
    const track = this._track;
    if (!http || !track || !this.sink) return;
    clearTimeout(this.upgradeTimer);
    this.upgradeTimer = undefined;
    // from here the stream's own events (the abort the switch causes) are not its failures
    http.detach();
    this.http = null;
    const switched = () => {
      // the stream's URL goes, quietly: srcObject plays now
      this.audio?.removeAttribute('src');
      this.sinkStarted = true;
      this.upgradeTries = 0;
      this.upgrades++;
      this.fire('upgraded', null);
    };
    this.sink.start(track).then(
      () => {
        if (gen === this.sessionGen) switched();
      },
      (err: unknown) => {
        if (gen !== this.sessionGen) return;
        if (isAutoplayRefusal(err)) {
          this.wantPlay = false;
          this.teardownSession();
          this.sink?.stop();
          this.fire('autoplay-refused', null);
        } else if ((err as { name?: unknown } | null)?.name === 'AbortError') {
          // a later start of the same track (play()) took over: it plays
          switched();
        } else this.reconnect('the switch to WebRTC failed');
      },
    );
  }

  /**
   * The WebRTC session behind the HTTP stream gave up: leave it, the stream plays on, and try a
   * fresh session in the background later (`upgradeRetryMs`, doubling, `upgradeAttempts` times).
   */
  private scheduleUpgrade(reason: string): void {
    this.teardownSession({ keepHttp: true });
    if (this.machine.transport === 'http') this.fire('upgrade-failed', this.machine.error);
    const { upgradeRetryMs, upgradeAttempts } = this.opts;
    if (upgradeRetryMs <= 0 || this.upgradeTries >= upgradeAttempts) return;
    const delayMs = upgradeRetryMs * 2 ** this.upgradeTries++;
    this.emit('reconnect', { attempt: this.upgradeTries, delayMs, reason: `upgrade: ${reason}` });
    this.upgradeTimer = setTimeout(() => {
      this.upgradeTimer = undefined;
      const station = this._station;
      if (!this.http || !this.wantPlay || this.destroyed || this.halted) return;
      if (this.session || this.connecting || station?.status !== 'live') return;
      this.joinFailures = 0;
      void this.connect(station.id);
    }, delayMs);
  }

  private updateLive(): void {
    if (this.connected && this.sinkStarted && this.wantPlay) this.fire('audio-playing', null);
  }

  private onSessionState(gen: number, s: SessionState): void {
    if (gen !== this.sessionGen) return;
    switch (s) {
      case 'connected':
        clearTimeout(this.disconnectTimer);
        clearTimeout(this.connectTimer);
        clearTimeout(this.fallbackTimer);
        this.disconnectTimer = this.fallbackTimer = undefined;
        this.connected = true;
        this.joinFailures = 0;
        this.httpFailed = false;
        this.startWatch(gen);
        if (this.http) this.upgrade(gen);
        else this.updateLive();
        break;
      case 'disconnected':
        if (this.disconnectTimer === undefined) {
          this.disconnectTimer = setTimeout(() => {
            this.disconnectTimer = undefined;
            if (gen === this.sessionGen) this.reconnect('disconnected');
          }, this.opts.disconnectGraceMs);
        }
        break;
      case 'failed':
      case 'closed':
        if (this.connected) this.reconnect(s);
        else this.onJoinFailed(`connection ${s}`);
        break;
      case 'connecting':
        break;
    }
  }

  /** Replaces a connected session whose audio stopped arriving. */
  private startWatch(gen: number): void {
    clearInterval(this.watchTimer);
    let last: number | undefined;
    let lastChange = Date.now();
    let flowing = false;
    this.watchTimer = setInterval(() => {
      const session = this.session;
      if (gen !== this.sessionGen || !session) return;
      void session.packetsReceived().then((packets) => {
        if (gen !== this.sessionGen || packets === undefined) return;
        const now = Date.now();
        if (packets !== last) {
          if (last !== undefined && !flowing) {
            flowing = true;
            this.attempt = 0; // audio flows: the next drop starts the backoff afresh
          }
          last = packets;
          lastChange = now;
        } else if (now - lastChange >= this.opts.stallTimeoutMs) {
          this.reconnect('no audio');
        }
      });
    }, 1000);
  }

  private onConnectFailure(e: ApiError): void {
    // wrong passwords are limited: never retried by themselves
    const passwordLimited = e.status === 429 && !!this.access.password;
    if ((e.tag && PRIVATE_TAGS.includes(e.tag)) || passwordLimited) {
      // a grant that no longer admits is dropped; the listener may enter the password (setAccess)
      if (this._station) storeGrant(this._station.id, null);
      this.access = {};
      this.wantPlay = false;
      this.halt('access-needed', e);
      return;
    }
    switch (e.tag) {
      case PlayerErrorTag.DomainNotAllowed:
        this.halt('domain-refused', e);
        return;
      case PlayerErrorTag.StationNotFound:
      case PlayerErrorTag.Unsupported:
        this.halt('fail', e);
        return;
      case PlayerErrorTag.StationNotActive:
        // The server says the station is off air: the station shown says so too, at once, not
        // only from the next poll (which, seeing it live again, connects again).
        if (this._station && this._station.status !== 'offline') {
          this._station = { ...this._station, status: 'offline' };
          this.emit('station', this._station);
        }
        this.teardownSession();
        this.fire('station-offline', e);
        return;
      case undefined:
      default:
        break;
    }
    if (e.status === 404) return this.halt('fail', e);
    const retryable = e.status === 0 || e.status === 401 || e.status === 429 || e.status >= 500;
    if (!retryable) return this.halt('fail', e);
    // a WebRTC attempt behind the HTTP stream that could not join: the stream plays on
    if (this.http) return this.scheduleUpgrade(e.message);
    this.scheduleRetry(e.message, e.retryAfterMs, e);
  }

  /**
   * A first session that never connected: a fresh one at once (a lost handshake on a bad network
   * usually goes through the second time), then the HTTP stream when this browser plays it (UDP
   * blocked, no TURN), else the player says so and waits for a click.
   */
  private onJoinFailed(reason: string): void {
    if (!this.wantPlay || this.destroyed || this.halted) return;
    if (this._station?.status !== 'live') {
      this.reconnect(reason);
      return;
    }
    if (this.http) {
      // the listener hears the stream: a fresh session at once (joinRetries), then later ones
      if (this.joinFailures < this.opts.joinRetries) {
        this.joinFailures++;
        this.teardownSession({ keepHttp: true });
        this.emit('reconnect', { attempt: this.joinFailures, delayMs: 0, reason });
        void this.connect(this._station.id);
      } else {
        this.joinFailures = 0;
        this.scheduleUpgrade(reason);
      }
      return;
    }
    if (this.attempt > 0) {
      // recovering from a drop: the backoff goes on (the HTTP stream when WebRTC fails outright)
      if (reason === 'connection failed' && this.httpStreamUrl() && !this.httpFailed) {
        this.teardownSession();
        this.fallBackToHttp();
        if (this.http) this.scheduleUpgrade(reason);
      } else this.reconnect(reason);
      return;
    }
    if (this.joinFailures < this.opts.joinRetries) {
      this.joinFailures++;
      this.teardownSession();
      this.emit('reconnect', { attempt: this.joinFailures, delayMs: 0, reason });
      this.fire('connect', null);
      this.maybeConnect();
      return;
    }
    this.joinFailures = 0;
    if (this.httpStreamUrl() && !this.httpFailed) {
      // no session left trying: the stream alone, WebRTC again later in the background
      this.teardownSession();
      this.fallBackToHttp();
      if (this.http) this.scheduleUpgrade(reason);
      return;
    }
    this.failJoin();
  }

  /** Neither WebRTC nor the HTTP stream reached this listener: say so and wait for a click. */
  private failJoin(): void {
    this.clearRetry();
    this.teardownSession();
    this.wantPlay = false;
    this.sink?.stop();
    this.fire('fail', new ApiError(JOIN_FAILED_MESSAGE, 0, PlayerErrorTag.JoinFailed));
  }

  private reconnect(reason: string): void {
    this.teardownSession();
    if (!this.wantPlay || this.destroyed || this.halted) return;
    if (this._station?.status === 'reconnecting') {
      // The session ended during the publisher's grace period: the station either went offline
      // (the server ends its listeners then) or is about to return. Ask now, and say what it says.
      this.fire('connect', null);
      this.pollNow();
      return;
    }
    if (this._station?.status !== 'live') {
      this.fire('station-offline', this.machine.error);
      return;
    }
    this.scheduleRetry(reason);
  }

  private scheduleRetry(reason: string, atLeastMs = 0, error = this.machine.error): void {
    this.clearRetry();
    const attempt = this.attempt++;
    const delayMs = Math.max(atLeastMs, backoffDelay(attempt, this.opts.backoff, this.opts.random));
    this.fire('connect', error);
    this.emit('reconnect', { attempt: attempt + 1, delayMs, reason });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.maybeConnect();
    }, delayMs);
  }

  private clearRetry(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  /** Leaves the WebRTC session, and stops the HTTP stream unless `keepHttp`. */
  private teardownSession({ keepalive = false, keepHttp = false } = {}): void {
    this.sessionGen++;
    this.connecting?.abort();
    this.connecting = null;
    clearInterval(this.watchTimer);
    clearTimeout(this.disconnectTimer);
    clearTimeout(this.connectTimer);
    clearTimeout(this.fallbackTimer);
    this.watchTimer = this.disconnectTimer = this.connectTimer = this.fallbackTimer = undefined;
    if (!keepHttp) this.stopHttp();
    this.connected = false;
    this.sinkStarted = false;
    const session = this.session;
    this.session = null;
    if (session) {
      session.onstatechange = null;
      session.close({ keepalive });
    }
    if (this._track) {
      this._track = null;
      if (!this.destroyed) this.emit('track', null);
    }
  }

  /** A terminal state for this station: no more calls until the station changes. */
  private halt(event: 'fail' | 'domain-refused' | 'access-needed', error: ApiError): void {
    this.halted = true;
    this.clearRetry();
    this.clearPrivateNotice();
    this.stopPolling();
    this.teardownSession();
    this.sink?.stop();
    this.fire(event, error);
  }

  private fire(event: PlayerEvent, error: ApiError | null): void {
    this.machine.fire(event, error);
  }
}

const GRANT_KEY = 'rb:listen-grant:';

/** The grant this browser was given for a private station (kept across visits), or undefined. */
function storedGrant(stationId: string): string | undefined {
  try {
    return globalThis.localStorage?.getItem(GRANT_KEY + stationId) ?? undefined;
  } catch {
    return undefined;
  }
}

function storeGrant(stationId: string, token: string | null): void {
  try {
    if (token) globalThis.localStorage?.setItem(GRANT_KEY + stationId, token);
    else globalThis.localStorage?.removeItem(GRANT_KEY + stationId);
  } catch {
    // storage refused (private mode, sandboxed frame): the grant lives for this page only
  }
}

/** Only the fields that are set. */
function compact(access: JoinAccess): JoinAccess {
  const out: JoinAccess = {};
  if (access.invite) out.invite = access.invite;
  if (access.password) out.password = access.password;
  if (access.grant) out.grant = access.grant;
  return out;
}

function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return ApiError.network(err);
}
