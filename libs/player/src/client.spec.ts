import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { ApiError } from './api.js';
import type { AudioSink } from './audio-sink.js';
import { ListeningClient, type ListeningTransport } from './client.js';
import {
  type IllegalTransition,
  PLAYER_STATES,
  PlayerMachine,
  TRANSITIONS,
} from './player-machine.js';
import type { JoinStationResponse, PlayerState, Station, StationLocator } from './types.js';
import type { ReceiverSession, SessionState } from './whep.js';

const STATION_ID = '00000000-0000-4000-8000-000000000001';

function makeStation(overrides: Partial<Station> = {}): Station {
  return {
    id: STATION_ID,
    name: 'Night Radio',
    slug: 'night-radio',
    description: '',
    broadcasterId: '00000000-0000-4000-8000-0000000000aa',
    broadcaster: {
      id: '00000000-0000-4000-8000-0000000000aa',
      username: 'alice',
      name: 'Alice',
      avatarUrl: null,
    },
    isActive: true,
    status: 'live',
    viewerCount: 3,
    nowPlaying: { track: 'Song', artist: 'Band', album: 'Record' },
    createdAt: '2026-01-01T00:00:00.000Z',
    lastActiveAt: '2026-01-01T00:00:00.000Z',
    coverUrl: null,
    schedule: '',
    ...overrides,
  };
}

function apiError(status: number, tag?: string, retryAfterMs?: number): ApiError {
  return new ApiError(`API call failed: ${status}`, status, tag, retryAfterMs);
}

class FakeSession implements ReceiverSession {
  readonly track = { id: `track-${Math.random()}` } as unknown as MediaStreamTrack;
  onstatechange: ((state: SessionState) => void) | null = null;
  state: SessionState = 'connecting';
  packets = 0;
  closed: { keepalive?: boolean } | null = null;
  packetsReceived(): Promise<number | undefined> {
    return Promise.resolve(this.packets);
  }
  close(options: { keepalive?: boolean } = {}): void {
    this.closed ??= options;
  }
  set(state: SessionState): void {
    this.state = state;
    this.onstatechange?.(state);
  }
}

/** A scripted server: station detail, join answers and WHEP sessions. */
class FakeTransport implements ListeningTransport {
  station: Station | ApiError = makeStation();
  joinFailures: ApiError[] = [];
  getStationCalls: StationLocator[] = [];
  joins: string[] = [];
  sessions: FakeSession[] = [];
  /** ICE already connected when the session is handed over (a fast LAN). */
  connectedOnArrival = false;

  getStation(locator: StationLocator): Promise<Station> {
    this.getStationCalls.push(locator);
    const s = this.station;
    return s instanceof ApiError ? Promise.reject(s) : Promise.resolve({ ...s });
  }
  join(stationId: string): Promise<JoinStationResponse> {
    this.joins.push(stationId);
    const failure = this.joinFailures.shift();
    if (failure) return Promise.reject(failure);
    return Promise.resolve({
      stationId,
      whepUrl: `https://api.example/whep/${stationId}`,
      token: 't',
      expiresAt: '2030-01-01T00:00:00.000Z',
      iceServers: [],
      listen: {
        ogg: `https://api.example/listen/u/s.ogg?t=${stationId}`,
        mp3: `https://api.example/listen/u/s.mp3?t=${stationId}`,
      },
    });
  }
  connect(): Promise<ReceiverSession> {
    const s = new FakeSession();
    if (this.connectedOnArrival) s.set('connected');
    this.sessions.push(s);
    return Promise.resolve(s);
  }
  get last(): FakeSession {
    return this.sessions[this.sessions.length - 1];
  }
}

class FakeSink implements AudioSink {
  refuse = false;
  started: MediaStreamTrack[] = [];
  stopped = 0;
  unlocked = 0;
  start(track: MediaStreamTrack): Promise<void> {
    this.started.push(track);
    if (this.refuse) {
      const e = new Error('play() failed because the user did not interact');
      e.name = 'NotAllowedError';
      return Promise.reject(e);
    }
    return Promise.resolve();
  }
  unlock(): void {
    this.unlocked++;
  }
  stop(): void {
    this.stopped++;
  }
}

/** Transitions the table refused during a test: every path through the client must be in it. */
let illegal: IllegalTransition[] = [];

const flush = () => jest.advanceTimersByTimeAsync(0);

function setup(station: string = 'alice/night-radio') {
  const transport = new FakeTransport();
  const sink = new FakeSink();
  const client = new ListeningClient({
    station,
    transport,
    sink,
    random: () => 0,
    onIllegalTransition: (t) => illegal.push(t),
  });
  const states: PlayerState[] = [];
  client.on('state', ({ state }) => states.push(state));
  return { transport, sink, client, states };
}

/** Plays until the session is connected and live. */
async function goLive(ctx: ReturnType<typeof setup>): Promise<FakeSession> {
  ctx.client.play();
  await flush();
  ctx.transport.last.set('connected');
  await flush();
  expect(ctx.client.state).toBe('live');
  return ctx.transport.last;
}

beforeEach(() => {
  jest.useFakeTimers();
  illegal = [];
});
afterEach(() => {
  jest.useRealTimers();
  // every state change the client made was one its transition table allows
  expect(illegal).toEqual([]);
});

describe('PlayerMachine', () => {
  it('takes the transitions of its table and tells the listener what changed', () => {
    const changes: string[] = [];
    const refused: IllegalTransition[] = [];
    const m = new PlayerMachine(
      (c) => changes.push(`${c.previous}->${c.state}`),
      (t) => refused.push(t),
    );
    m.fire('connect', null);
    m.fire('audio-playing', null);
    m.fire('audio-playing', null); // live -> live with the same error: no change
    m.fire('stop', null);
    expect(changes).toEqual(['idle->connecting', 'connecting->live', 'live->idle']);
    expect(refused).toEqual([]);
  });

  it('reports a transition its table does not allow (and still takes it: a player never sticks)', () => {
    const refused: IllegalTransition[] = [];
    const m = new PlayerMachine(
      () => undefined,
      (t) => refused.push(t),
    );
    m.fire('audio-playing', null); // idle: audio cannot play before connecting
    m.fire('stop', null);
    m.fire('access-needed', null); // only a join (connecting) learns that a station is private
    expect(refused).toEqual([
      { event: 'audio-playing', from: 'idle' },
      { event: 'access-needed', from: 'idle' },
    ]);
    expect(m.state).toBe('private');
  });

  it('has every player state as the target of some event', () => {
    const targets = new Set(
      Object.values(TRANSITIONS)
        .map((t) => t.to)
        .filter((to) => to !== null),
    );
    expect([...targets].sort()).toEqual([...PLAYER_STATES].sort());
    expect(PLAYER_STATES).toHaveLength(8);
  });

  it('knows the transport: http from http-fallback until upgraded, a new start or a stop', () => {
    const transports: string[] = [];
    const refused: IllegalTransition[] = [];
    const m = new PlayerMachine(
      () => undefined,
      (t) => refused.push(t),
      (t) => transports.push(t),
    );
    m.fire('connect', null);
    m.fire('http-fallback', null); // the stream starts; the state waits for it to play
    expect([m.state, m.transport]).toEqual(['connecting', 'http']);
    m.fire('audio-playing', null);
    m.fire('upgrade-failed', null); // WebRTC gave up behind the stream: nothing the listener sees
    m.fire('upgrade-attempt', null);
    expect([m.state, m.transport]).toEqual(['live', 'http']);
    m.fire('upgraded', null);
    expect([m.state, m.transport]).toEqual(['live', 'webrtc']);
    m.fire('connect', null);
    m.fire('http-fallback', null);
    m.fire('station-offline', null);
    expect([m.state, m.transport]).toEqual(['offline', 'webrtc']);
    m.fire('upgraded', null); // only a connecting or live player switches
    expect(transports).toEqual(['http', 'webrtc', 'http', 'webrtc']);
    expect(refused).toEqual([{ event: 'upgraded', from: 'offline' }]);
  });
});

describe('ListeningClient', () => {
  it('loads the station by its address, then polls it by id every 2000 ms', async () => {
    const { client, transport } = setup();
    const seen: Station[] = [];
    client.on('station', (s) => seen.push(s));
    client.start();
    await flush();
    expect(transport.getStationCalls).toEqual([{ username: 'alice', slug: 'night-radio' }]);
    expect(client.station?.name).toBe('Night Radio');
    expect(client.state).toBe('idle');
    await jest.advanceTimersByTimeAsync(1999);
    expect(transport.getStationCalls).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(transport.getStationCalls).toHaveLength(2);
    expect(transport.getStationCalls[1]).toEqual({ id: STATION_ID });
    expect(seen).toHaveLength(2);
    client.destroy();
  });

  it('goes idle → connecting → live: joins, negotiates, starts the sink, waits for ICE', async () => {
    const ctx = setup();
    ctx.client.play();
    expect(ctx.sink.unlocked).toBe(1);
    await flush();
    expect(ctx.transport.joins).toEqual([STATION_ID]);
    expect(ctx.client.state).toBe('connecting');
    expect(ctx.sink.started).toEqual([ctx.transport.last.track]);
    expect(ctx.client.track).toBe(ctx.transport.last.track);
    ctx.transport.last.set('connected');
    await flush();
    expect(ctx.client.state).toBe('live');
    expect(ctx.states).toEqual(['connecting', 'live']);
    ctx.client.destroy();
  });

  it('goes live when ICE connected before the session was handed over (no state event to wait for)', async () => {
    const ctx = setup();
    ctx.transport.connectedOnArrival = true;
    ctx.client.play();
    await flush();
    expect(ctx.client.state).toBe('live');
    // Audio flows; past the 10 s connect timeout the session is still the first one.
    for (let i = 0; i < 11; i++) {
      ctx.transport.last.packets += 50;
      await jest.advanceTimersByTimeAsync(1000);
    }
    expect(ctx.transport.sessions).toHaveLength(1);
    expect(ctx.transport.last.closed).toBeNull();
    ctx.client.destroy();
  });

  it('goes live without a sink once ICE connects (the caller plays client.track)', async () => {
    const transport = new FakeTransport();
    const client = new ListeningClient({ station: 'alice/night-radio', transport });
    client.play();
    await flush();
    transport.last.set('connected');
    await flush();
    expect(client.state).toBe('live');
    client.destroy();
  });

  it('waits while the station is offline and connects on the first poll that sees it live', async () => {
    const ctx = setup();
    ctx.transport.station = makeStation({ status: 'offline', isActive: false });
    ctx.client.play();
    await flush();
    expect(ctx.client.state).toBe('offline');
    expect(ctx.transport.joins).toHaveLength(0);

    ctx.transport.station = makeStation();
    await jest.advanceTimersByTimeAsync(2000);
    expect(ctx.transport.joins).toHaveLength(1);
    expect(ctx.client.state).toBe('connecting');
    ctx.transport.last.set('connected');
    await flush();
    expect(ctx.client.state).toBe('live');
    ctx.client.destroy();
  });

  it('leaves the session when a poll says offline and rejoins when the station returns', async () => {
    const ctx = setup();
    const first = await goLive(ctx);
    ctx.transport.station = makeStation({ status: 'offline', isActive: false });
    await jest.advanceTimersByTimeAsync(2000);
    expect(ctx.client.state).toBe('offline');
    expect(first.closed).toEqual({ keepalive: false });
    expect(ctx.client.playing).toBe(true);

    ctx.transport.station = makeStation();
    await jest.advanceTimersByTimeAsync(2000);
    expect(ctx.transport.sessions).toHaveLength(2);
    ctx.transport.last.set('connected');
    await flush();
    expect(ctx.client.state).toBe('live');
    ctx.client.destroy();
  });

  it('asks the station at once when its session ends in the grace period, and follows what it says', async () => {
    const ctx = setup();
    const first = await goLive(ctx);
    // the publisher dropped: the push said reconnecting, the session stays
    ctx.transport.station = makeStation({ status: 'reconnecting' });
    await jest.advanceTimersByTimeAsync(2000);
    expect(first.closed).toBeNull();
    // the grace ends: the server takes the station offline and ends its listeners' sessions
    ctx.transport.station = makeStation({ status: 'offline', isActive: false });
    const polls = ctx.transport.getStationCalls.length;
    first.set('failed');
    await flush();
    expect(ctx.transport.getStationCalls.length).toBe(polls + 1);
    expect(ctx.client.state).toBe('offline');
    expect(ctx.client.station?.status).toBe('offline');
    ctx.client.destroy();
  });

  it('treats an ended station as offline', async () => {
    const ctx = setup();
    ctx.transport.station = makeStation({ status: 'ended', isActive: false });
    ctx.client.start();
    await flush();
    expect(ctx.client.state).toBe('offline');
    ctx.client.destroy();
  });

  it('reconnects with backoff after ICE failure: 500 ms, then 1000 ms', async () => {
    const ctx = setup();
    const reconnects: number[] = [];
    ctx.client.on('reconnect', ({ delayMs }) => reconnects.push(delayMs));
    const first = await goLive(ctx);
    first.set('failed');
    expect(first.closed).not.toBeNull();
    expect(ctx.client.state).toBe('connecting');
    expect(ctx.client.reconnecting).toBe(true);
    await jest.advanceTimersByTimeAsync(499);
    expect(ctx.transport.sessions).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(ctx.transport.sessions).toHaveLength(2);

    ctx.transport.last.set('failed');
    await jest.advanceTimersByTimeAsync(999);
    expect(ctx.transport.sessions).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(1);
    expect(ctx.transport.sessions).toHaveLength(3);
    expect(reconnects).toEqual([500, 1000]);
    ctx.client.destroy();
  });

  it('rides out a short ICE disconnection and reconnects after a long one', async () => {
    const ctx = setup();
    const s = await goLive(ctx);
    s.set('disconnected');
    await jest.advanceTimersByTimeAsync(1500);
    s.set('connected');
    await jest.advanceTimersByTimeAsync(5000);
    expect(ctx.transport.sessions).toHaveLength(1);
    expect(ctx.client.state).toBe('live');

    s.set('disconnected');
    await jest.advanceTimersByTimeAsync(2000);
    expect(s.closed).not.toBeNull();
    expect(ctx.client.state).toBe('connecting');
    ctx.client.destroy();
  });

  it('replaces a connected session that receives no audio for 8 s', async () => {
    const ctx = setup();
    const s = await goLive(ctx);
    for (let i = 0; i < 3; i++) {
      s.packets += 50;
      await jest.advanceTimersByTimeAsync(1000);
    }
    expect(s.closed).toBeNull();
    await jest.advanceTimersByTimeAsync(7000);
    expect(s.closed).toBeNull();
    await jest.advanceTimersByTimeAsync(1000);
    expect(s.closed).not.toBeNull();
    await jest.advanceTimersByTimeAsync(500);
    expect(ctx.transport.sessions).toHaveLength(2);
    ctx.client.destroy();
  });

  it('gives up on a session that never connects', async () => {
    const ctx = setup();
    ctx.client.play();
    await flush();
    await jest.advanceTimersByTimeAsync(10000);
    expect(ctx.transport.sessions[0].closed).not.toBeNull();
    await jest.advanceTimersByTimeAsync(500);
    expect(ctx.transport.sessions).toHaveLength(2);
    ctx.client.destroy();
  });

  it('retries a join that never connects once on a fresh session, then says so and waits for play()', async () => {
    const ctx = setup();
    const reconnects: string[] = [];
    ctx.client.on('reconnect', ({ reason, delayMs }) => reconnects.push(`${reason} ${delayMs}`));
    ctx.client.play();
    await flush();
    const first = ctx.transport.last;
    first.set('failed');
    await flush();
    // at once, a new join and a new WHEP session; the failed one is left
    expect(first.closed).not.toBeNull();
    expect(ctx.transport.joins).toHaveLength(2);
    expect(ctx.transport.sessions).toHaveLength(2);
    expect(ctx.client.state).toBe('connecting');
    expect(ctx.client.error).toBeNull();
    // the fresh one never connects either: the player reports, leaves, and stops trying
    await jest.advanceTimersByTimeAsync(10000);
    expect(ctx.transport.sessions[1].closed).not.toBeNull();
    expect(ctx.client.state).toBe('error');
    expect(ctx.client.error?.tag).toBe('JOIN_FAILED');
    expect(ctx.client.error?.message).toMatch(/Couldn't connect to the live audio/);
    expect(ctx.client.playing).toBe(false);
    expect(reconnects).toEqual(['connection failed 0']);
    // polls keep the station fresh but neither retry nor hide the failure
    await jest.advanceTimersByTimeAsync(20000);
    expect(ctx.transport.sessions).toHaveLength(2);
    expect(ctx.client.state).toBe('error');
    // the listener's retry: a new session, and a connection that gets through plays
    ctx.client.play();
    await flush();
    expect(ctx.transport.sessions).toHaveLength(3);
    ctx.transport.last.set('connected');
    await flush();
    expect(ctx.client.state).toBe('live');
    ctx.client.destroy();
  });

  it('a fresh session that connects after the first failed plays as usual', async () => {
    const ctx = setup();
    ctx.client.play();
    await flush();
    ctx.transport.last.set('failed');
    await flush();
    ctx.transport.last.set('connected');
    await flush();
    expect(ctx.client.state).toBe('live');
    expect(ctx.transport.sessions).toHaveLength(2);
    // a later join that fails gets its retry again
    ctx.client.pause();
    ctx.client.play();
    await flush();
    ctx.transport.last.set('failed');
    await flush();
    expect(ctx.transport.sessions).toHaveLength(4);
    expect(ctx.client.state).toBe('connecting');
    ctx.client.destroy();
  });

  it('stops for good on DOMAIN_NOT_ALLOWED: not-allowed, no audio, no more calls', async () => {
    const ctx = setup();
    ctx.transport.joinFailures.push(apiError(403, 'DOMAIN_NOT_ALLOWED'));
    ctx.client.play();
    await flush();
    expect(ctx.client.state).toBe('not-allowed');
    expect(ctx.client.error?.tag).toBe('DOMAIN_NOT_ALLOWED');
    expect(ctx.transport.sessions).toHaveLength(0);
    expect(ctx.sink.started).toHaveLength(0);
    const polls = ctx.transport.getStationCalls.length;
    await jest.advanceTimersByTimeAsync(20000);
    expect(ctx.transport.getStationCalls).toHaveLength(polls);
    expect(ctx.transport.joins).toHaveLength(1);
    ctx.client.play();
    await flush();
    expect(ctx.transport.joins).toHaveLength(1);
    ctx.client.destroy();
  });

  it('shows offline on STATION_NOT_ACTIVE and retries when the next poll says live', async () => {
    const ctx = setup();
    const seen: Station['status'][] = [];
    ctx.client.on('station', (s) => seen.push(s.status));
    ctx.transport.joinFailures.push(apiError(409, 'STATION_NOT_ACTIVE'));
    ctx.client.play();
    await flush();
    expect(ctx.client.state).toBe('offline');
    // the station shown (the player's badge) is off air with it, before the next poll
    expect(ctx.client.station?.status).toBe('offline');
    expect(seen.at(-1)).toBe('offline');
    await jest.advanceTimersByTimeAsync(2000);
    expect(ctx.client.station?.status).toBe('live');
    expect(ctx.transport.joins).toHaveLength(2);
    expect(ctx.client.state).toBe('connecting');
    ctx.client.destroy();
  });

  it('honours Retry-After on 429', async () => {
    const ctx = setup();
    ctx.transport.joinFailures.push(apiError(429, 'TooManyRequests', 3000));
    ctx.client.play();
    await flush();
    expect(ctx.client.state).toBe('connecting');
    await jest.advanceTimersByTimeAsync(2999);
    expect(ctx.transport.joins).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(ctx.transport.joins).toHaveLength(2);
    ctx.client.destroy();
  });

  it('retries network failures and 5xx, but not other 4xx', async () => {
    const ctx = setup();
    ctx.transport.joinFailures.push(ApiError.network(new TypeError('Failed to fetch')));
    ctx.transport.joinFailures.push(apiError(503));
    ctx.client.play();
    await flush();
    await jest.advanceTimersByTimeAsync(500);
    await jest.advanceTimersByTimeAsync(1000);
    expect(ctx.transport.joins).toHaveLength(3);
    expect(ctx.transport.sessions).toHaveLength(1);
    ctx.client.destroy();

    const other = setup();
    other.transport.joinFailures.push(apiError(400, 'ValidationError'));
    other.client.play();
    await flush();
    expect(other.client.state).toBe('error');
    other.client.destroy();
  });

  it('reports StationNotFoundError as error and stops polling', async () => {
    const ctx = setup();
    ctx.transport.station = apiError(404, 'StationNotFoundError');
    ctx.client.start();
    await flush();
    expect(ctx.client.state).toBe('error');
    expect(ctx.client.error?.tag).toBe('StationNotFoundError');
    await jest.advanceTimersByTimeAsync(10000);
    expect(ctx.transport.getStationCalls).toHaveLength(1);
    ctx.client.destroy();
  });

  it('shows a network error on the first load and recovers on a later poll', async () => {
    const ctx = setup();
    ctx.transport.station = ApiError.network(new TypeError('Failed to fetch'));
    ctx.client.start();
    await flush();
    expect(ctx.client.state).toBe('error');
    expect(ctx.client.error?.tag).toBe('NETWORK_ERROR');
    ctx.transport.station = makeStation();
    await jest.advanceTimersByTimeAsync(2000);
    expect(ctx.client.state).toBe('idle');
    expect(ctx.client.error).toBeNull();
    ctx.client.destroy();
  });

  it("goes 'blocked' when the browser refuses autoplay, leaves, and plays on the next play()", async () => {
    const ctx = setup();
    ctx.sink.refuse = true;
    ctx.client.play();
    await flush();
    expect(ctx.client.state).toBe('blocked');
    expect(ctx.transport.sessions[0].closed).not.toBeNull();
    expect(ctx.client.playing).toBe(false);

    ctx.sink.refuse = false;
    await goLive(ctx);
    expect(ctx.transport.sessions).toHaveLength(2);
    ctx.client.destroy();
  });

  it('pause() leaves the session and keeps polling; play() rejoins', async () => {
    const ctx = setup();
    const s = await goLive(ctx);
    ctx.client.pause();
    expect(s.closed).toEqual({ keepalive: false });
    expect(ctx.client.state).toBe('idle');
    expect(ctx.sink.stopped).toBeGreaterThan(0);
    const polls = ctx.transport.getStationCalls.length;
    await jest.advanceTimersByTimeAsync(4000);
    expect(ctx.transport.getStationCalls.length).toBe(polls + 2);
    expect(ctx.transport.sessions).toHaveLength(1);
    await goLive(ctx);
    ctx.client.destroy();
  });

  it('setStation() leaves the old session and plays the new station', async () => {
    const ctx = setup();
    const old = await goLive(ctx);
    const otherId = '00000000-0000-4000-8000-000000000002';
    ctx.transport.station = makeStation({ id: otherId, slug: 'morning', name: 'Morning' });
    ctx.client.setStation('bob/morning');
    expect(old.closed).not.toBeNull();
    expect(ctx.client.station).toBeNull();
    await flush();
    expect(ctx.transport.getStationCalls.at(-1)).toEqual({ username: 'bob', slug: 'morning' });
    expect(ctx.transport.joins.at(-1)).toBe(otherId);
    ctx.transport.last.set('connected');
    await flush();
    expect(ctx.client.state).toBe('live');
    expect(ctx.client.station?.name).toBe('Morning');
    ctx.client.destroy();
  });

  it('drops a poll answer for the previous station', async () => {
    const ctx = setup();
    let resolveOld!: (s: Station) => void;
    ctx.transport.getStation = (locator) => {
      ctx.transport.getStationCalls.push(locator);
      if ('username' in locator && locator.username === 'alice') {
        return new Promise<Station>((r) => (resolveOld = r));
      }
      return Promise.resolve(makeStation({ name: 'New' }));
    };
    ctx.client.start();
    ctx.client.setStation('bob/new');
    await flush();
    resolveOld(makeStation({ name: 'Old' }));
    await flush();
    expect(ctx.client.station?.name).toBe('New');
    ctx.client.destroy();
  });

  it('reports a malformed station as error without calling the API', async () => {
    const ctx = setup('not a station');
    expect(ctx.client.state).toBe('error');
    expect(ctx.client.error?.tag).toBe('INVALID_STATION');
    ctx.client.play();
    await flush();
    expect(ctx.transport.getStationCalls).toHaveLength(0);
    ctx.client.setStation('alice/night-radio');
    await flush();
    expect(ctx.transport.getStationCalls).toHaveLength(1);
    expect(ctx.client.state).toBe('idle');
    ctx.client.destroy();
  });

  it('destroy() leaves the session and stops every timer', async () => {
    const ctx = setup();
    const s = await goLive(ctx);
    ctx.client.destroy({ keepalive: true });
    expect(s.closed).toEqual({ keepalive: true });
    expect(jest.getTimerCount()).toBe(0);
    await jest.advanceTimersByTimeAsync(10000);
    expect(ctx.transport.sessions).toHaveLength(1);
  });

  it('leaveOnUnload() leaves with keepalive and play() rejoins', async () => {
    const ctx = setup();
    const s = await goLive(ctx);
    ctx.client.leaveOnUnload();
    expect(s.closed).toEqual({ keepalive: true });
    ctx.client.play();
    await flush();
    expect(ctx.transport.sessions).toHaveLength(2);
    ctx.client.destroy();
  });
});

/**
 * An `<audio>` element as far as the client uses one: `src` (the HTTP stream) and `srcObject` (the
 * WebRTC sink's MediaStream, which wins over `src`, as in browsers), play/pause, and its events.
 */
class FakeAudio extends EventTarget {
  srcObject: unknown = null;
  paused = true;
  private srcAttr: string | null = null;
  /** What the element played, in order: a URL, or the tracks of a MediaStream. */
  played: string[] = [];
  canPlayType(type: string): string {
    return type.includes('ogg') ? 'probably' : '';
  }
  get src(): string {
    return this.srcAttr ?? '';
  }
  set src(url: string) {
    this.srcAttr = url;
  }
  getAttribute(name: string): string | null {
    return name === 'src' ? this.srcAttr : null;
  }
  removeAttribute(name: string): void {
    if (name === 'src') this.srcAttr = null;
  }
  /** What comes out of the speaker now. */
  get hearing(): string | null {
    if (this.paused) return null;
    if (this.srcObject)
      return `stream:${(this.srcObject as FakeMediaStream).tracks.map((t) => t.id).join(',')}`;
    return this.srcAttr;
  }
  /** The HTTP stream does not load (a proxy that cuts long downloads). */
  brokenStream = false;
  play(): Promise<void> {
    if (this.brokenStream && !this.srcObject) {
      queueMicrotask(() => this.dispatchEvent(new Event('error')));
      return Promise.reject(
        Object.assign(new Error('no supported source'), { name: 'NotSupportedError' }),
      );
    }
    this.paused = false;
    const now = this.hearing;
    if (now) this.played.push(now);
    queueMicrotask(() => this.dispatchEvent(new Event('playing')));
    return Promise.resolve();
  }
  pause(): void {
    this.paused = true;
  }
  load(): void {
    this.paused = true;
  }
}

class FakeMediaStream {
  tracks: MediaStreamTrack[];
  constructor(tracks: MediaStreamTrack[]) {
    this.tracks = [...tracks];
  }
  getAudioTracks(): MediaStreamTrack[] {
    return this.tracks;
  }
  addTrack(t: MediaStreamTrack): void {
    this.tracks.push(t);
  }
  removeTrack(t: MediaStreamTrack): void {
    this.tracks = this.tracks.filter((x) => x !== t);
  }
}

describe('ListeningClient: the HTTP stream while WebRTC keeps trying', () => {
  const g = globalThis as { MediaStream?: unknown };
  let saved: unknown;
  beforeEach(() => {
    saved = g.MediaStream;
    g.MediaStream = FakeMediaStream;
  });
  afterEach(() => {
    g.MediaStream = saved;
  });

  function setupHttp(options: { upgradeRetryMs?: number } = {}) {
    const transport = new FakeTransport();
    const audio = new FakeAudio();
    const client = new ListeningClient({
      station: 'alice/night-radio',
      transport,
      audio: audio as unknown as HTMLMediaElement,
      random: () => 0,
      onIllegalTransition: (t) => illegal.push(t),
      ...options,
    });
    const states: PlayerState[] = [];
    const transports: string[] = [];
    client.on('state', ({ state }) => states.push(state));
    client.on('transport', (t) => transports.push(t));
    return { transport, audio, client, states, transports };
  }
  const STREAM = `https://api.example/listen/u/s.ogg?t=${STATION_ID}`;

  it('plays the stream at 5 s, keeps the session trying, and switches to it when it connects', async () => {
    const ctx = setupHttp();
    ctx.client.play();
    await flush();
    const first = ctx.transport.last;
    await jest.advanceTimersByTimeAsync(5000);
    // the listener hears the station over HTTP; the WebRTC session is still there, trying
    expect(ctx.audio.hearing).toBe(STREAM);
    expect(ctx.client.state).toBe('live');
    expect(ctx.client.viaHttp).toBe(true);
    expect(ctx.client.transportKind).toBe('http');
    expect(first.closed).toBeNull();
    expect(ctx.transport.sessions).toHaveLength(1);

    // it connects at 7 s: the element plays its track and nothing else
    await jest.advanceTimersByTimeAsync(2000);
    first.set('connected');
    await flush();
    expect(ctx.audio.hearing).toBe(`stream:${first.track.id}`);
    expect(ctx.audio.getAttribute('src')).toBeNull();
    expect(ctx.client.viaHttp).toBe(false);
    expect(ctx.client.upgrades).toBe(1);
    expect(ctx.transports).toEqual(['http', 'webrtc']);
    expect(ctx.states).toEqual(['connecting', 'live']);
    // no double: the stream stopped when the track started, and it never comes back
    expect(ctx.audio.played.at(-1)).toBe(`stream:${first.track.id}`);
    // audio flows: past every timer of the join, it stays on that session
    for (let i = 0; i < 40; i++) {
      first.packets += 50;
      await jest.advanceTimersByTimeAsync(1000);
    }
    expect(ctx.transport.sessions).toHaveLength(1);
    expect(ctx.audio.hearing).toBe(`stream:${first.track.id}`);
    ctx.client.destroy();
  });

  it('gives the session until the connect timeout, then a fresh one; the stream plays on meanwhile', async () => {
    const ctx = setupHttp();
    ctx.client.play();
    await flush();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(ctx.transport.sessions).toHaveLength(2);
    expect(ctx.transport.sessions[0].closed).not.toBeNull();
    expect(ctx.audio.hearing).toBe(STREAM);
    expect(ctx.client.state).toBe('live');
    // the fresh session connects at 14 s
    await jest.advanceTimersByTimeAsync(4000);
    ctx.transport.last.set('connected');
    await flush();
    expect(ctx.audio.hearing).toBe(`stream:${ctx.transport.last.track.id}`);
    expect(ctx.transports).toEqual(['http', 'webrtc']);
    expect(ctx.states).toEqual(['connecting', 'live']);
    ctx.client.destroy();
  });

  it('after both sessions fail, tries WebRTC in the background at 30 s, 60 s, 120 s, then stops trying', async () => {
    const ctx = setupHttp();
    const reconnects: string[] = [];
    ctx.client.on('reconnect', (r) => reconnects.push(`${r.delayMs}:${r.reason}`));
    ctx.client.play();
    await flush();
    await jest.advanceTimersByTimeAsync(20_000);
    // two sessions, both gave up: the stream alone
    expect(ctx.transport.sessions).toHaveLength(2);
    expect(ctx.transport.sessions.every((s) => s.closed)).toBe(true);
    expect(ctx.audio.hearing).toBe(STREAM);
    await jest.advanceTimersByTimeAsync(29_999);
    expect(ctx.transport.sessions).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(1);
    expect(ctx.transport.sessions).toHaveLength(3);
    // each background attempt has its fresh-session retry too
    await jest.advanceTimersByTimeAsync(20_000);
    expect(ctx.transport.sessions).toHaveLength(4);
    await jest.advanceTimersByTimeAsync(60_000 + 20_000 + 120_000 + 20_000);
    expect(ctx.transport.sessions).toHaveLength(8);
    await jest.advanceTimersByTimeAsync(600_000);
    expect(ctx.transport.sessions).toHaveLength(8);
    expect(reconnects.filter((r) => r.includes('upgrade'))).toEqual([
      '30000:upgrade: connect timeout',
      '60000:upgrade: connect timeout',
      '120000:upgrade: connect timeout',
    ]);
    // all along: live on the stream, never a 'connecting' in between
    expect(ctx.states).toEqual(['connecting', 'live']);
    expect(ctx.audio.hearing).toBe(STREAM);
    expect(ctx.transports).toEqual(['http']);
    ctx.client.destroy();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('a background attempt that connects takes over from the stream', async () => {
    const ctx = setupHttp();
    ctx.client.play();
    await flush();
    await jest.advanceTimersByTimeAsync(50_000);
    expect(ctx.transport.sessions).toHaveLength(3);
    ctx.transport.last.set('connected');
    await flush();
    expect(ctx.audio.hearing).toBe(`stream:${ctx.transport.last.track.id}`);
    expect(ctx.client.upgrades).toBe(1);
    expect(ctx.transports).toEqual(['http', 'webrtc']);
    expect(ctx.states).toEqual(['connecting', 'live']);
    ctx.client.destroy();
  });

  it('a stream that fails before it played leaves the session trying; its connection plays through the sink', async () => {
    const ctx = setupHttp();
    ctx.client.play();
    await flush();
    ctx.audio.brokenStream = true;
    await jest.advanceTimersByTimeAsync(5000);
    expect(ctx.client.viaHttp).toBe(false);
    expect(ctx.client.state).toBe('connecting');
    ctx.transport.last.set('connected');
    await flush();
    expect(ctx.client.state).toBe('live');
    expect(ctx.audio.hearing).toBe(`stream:${ctx.transport.last.track.id}`);
    expect(ctx.transports).toEqual(['http', 'webrtc']);
    ctx.client.destroy();
  });

  it('pause() stops the stream and the session behind it', async () => {
    const ctx = setupHttp();
    ctx.client.play();
    await flush();
    await jest.advanceTimersByTimeAsync(5000);
    ctx.client.pause();
    expect(ctx.audio.hearing).toBeNull();
    expect(ctx.transport.last.closed).not.toBeNull();
    expect(ctx.client.state).toBe('idle');
    expect(ctx.transports).toEqual(['http', 'webrtc']);
    expect(jest.getTimerCount()).toBe(1); // the station poll
    ctx.client.destroy();
  });
});
