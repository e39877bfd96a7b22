/**
 * StationLifecycle without the app: a fake MediaEngine reports publishers and listeners, a fake
 * stations table records the transitions, the in-process bus carries the events browsers get.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import type { EventMap, StationStatus } from '@radiobroadcaster/contracts';
import { APP_CONFIG } from '../config/config.js';
import { EventBus, InProcessEventBus } from '../events/event-bus.js';
import { StationsService } from '../stations/stations.service.js';
import { FakeMediaEngine } from '../../testing/fake-media-engine.js';
import { testConfig } from '../../testing/test-app.js';
import { ListenerCounts } from './listener-counts.js';
import { MEDIA_ENGINE } from './media.providers.js';
import { InMemorySessionStore, SessionStore } from './session-store.js';
import { StationLifecycle } from './station-lifecycle.service.js';
import { holdsFor } from '../../../../test/support/wait.js';

const GRACE_MS = 150;
const A = 'station-a';
const B = 'station-b';

async function until(cond: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('StationLifecycle (fake engine, no app)', () => {
  let module: TestingModule;
  let engine: FakeMediaEngine;
  let sessions: InMemorySessionStore;
  let bus: InProcessEventBus;
  let status: Map<string, StationStatus>;
  let transitions: [string, StationStatus][];
  let pushed: { name: string; payload: unknown }[];

  /** Opens a publisher on the fake engine as MediaService.publish records it. */
  const publish = async (stationId: string) => {
    const { sessionId } = await engine.publish(stationId, 'offer');
    await sessions.setPublisher(stationId, { sessionId, tokenId: 't', userId: 'u' });
    await sessions.putSession(sessionId, {
      stationId,
      kind: 'publisher',
      tokenHash: null,
      slot: null,
    });
    return sessionId;
  };

  const start = async (initial: Record<string, StationStatus> = {}) => {
    status = new Map(Object.entries(initial));
    module = await Test.createTestingModule({
      providers: [
        StationLifecycle,
        ListenerCounts,
        { provide: APP_CONFIG, useValue: testConfig({ PUBLISHER_GRACE_MS: String(GRACE_MS) }) },
        { provide: MEDIA_ENGINE, useValue: engine },
        { provide: SessionStore, useValue: sessions },
        { provide: EventBus, useValue: bus },
        {
          provide: StationsService,
          useValue: {
            liveIds: async () => [...status].filter(([, s]) => s === 'live').map(([id]) => id),
            entity: async (id: string) => ({ id, status: status.get(id) ?? 'offline' }),
            transition: async (id: string, to: StationStatus) => {
              status.set(id, to);
              transitions.push([id, to]);
              const name =
                to === 'live'
                  ? 'station.live'
                  : to === 'reconnecting'
                    ? 'station.reconnecting'
                    : 'station.offline';
              await bus.publish(name, {
                stationId: id,
                status: to,
                isActive: to === 'live' || to === 'reconnecting',
                lastActiveAt: null,
              });
            },
          },
        },
      ],
    }).compile();
    await module.init();
  };

  beforeEach(() => {
    engine = new FakeMediaEngine();
    sessions = new InMemorySessionStore();
    bus = new InProcessEventBus();
    transitions = [];
    pushed = [];
    for (const name of ['station.live', 'station.offline', 'station.listeners'] as const) {
      bus.subscribe(name, (payload: EventMap[typeof name]) => pushed.push({ name, payload }));
    }
  });
  afterEach(async () => {
    await module?.close();
  });

  it('goes live on the first media, and offline one grace period after the publisher left', async () => {
    await start();
    const sessionId = await publish(A);
    engine.emit({ type: 'publisher-media', stationId: A, sessionId });
    await until(() => status.get(A) === 'live', 'live');
    const goneAt = Date.now();
    engine.end(sessionId, 'ice-failed');
    await until(() => status.get(A) === 'offline', 'offline');
    expect(Date.now() - goneAt).toBeGreaterThanOrEqual(GRACE_MS - 5);
    // Listeners are told the station waits for its publisher during the grace period.
    expect(transitions).toEqual([
      [A, 'live'],
      [A, 'reconnecting'],
      [A, 'offline'],
    ]);
    expect(pushed.map((p) => p.name)).toEqual(['station.live', 'station.offline']);
    expect(engine.callsOf('closeStation')).toEqual([[A]]);
    expect(await sessions.publisher(A)).toBeNull();
  });

  it('stays live when the publisher reconnects within the grace period', async () => {
    await start({ [A]: 'live' });
    const first = await publish(A);
    engine.end(first, 'timeout');
    await sleep(GRACE_MS / 3);
    const second = await publish(A);
    engine.emit({ type: 'publisher-media', stationId: A, sessionId: second });
    await sleep(GRACE_MS * 2);
    expect(status.get(A)).toBe('live');
    expect(transitions.filter(([, s]) => s === 'offline')).toEqual([]);
    expect(engine.callsOf('closeStation')).toEqual([]);
  });

  it('a publisher opened while another is live takes over with its media; one that never sends changes nothing', async () => {
    const live = await publish(A);
    await start({ [A]: 'live' });
    /** Opened while `live` is on the air, as MediaService records it: the station's record stays. */
    const candidate = async (tokenId: string) => {
      const { sessionId } = await engine.publish(A, 'offer');
      await sessions.putSession(sessionId, {
        stationId: A,
        kind: 'publisher',
        tokenHash: null,
        slot: null,
        publisher: { tokenId, userId: 'u' },
      });
      return sessionId;
    };
    const stray = await candidate('stray');
    engine.end(stray, 'timeout');
    await holdsFor(
      () => status.get(A) === 'live' && transitions.length === 0,
      GRACE_MS * 2,
      'the live publisher stays on air through the grace period',
    );
    expect((await sessions.publisher(A))?.sessionId).toBe(live);

    const next = await candidate('next');
    engine.emit({ type: 'publisher-media', stationId: A, sessionId: next });
    engine.end(live, 'replaced');
    let record: string | undefined;
    await until(() => {
      void sessions.publisher(A).then((r) => (record = r?.tokenId));
      return record === 'next';
    }, 'the record moves to the publisher whose media flows');
    await holdsFor(() => status.get(A) === 'live', GRACE_MS * 2, 'on air with the new publisher');
    // its end is the station's end
    engine.end(next, 'timeout');
    await until(() => status.get(A) === 'offline', 'offline after the new publisher left');
  });

  it('ignores the end of a publisher that was already replaced', async () => {
    await start({ [A]: 'live' });
    const first = await publish(A);
    await publish(A);
    engine.end(first, 'replaced');
    await sleep(GRACE_MS * 2);
    expect(status.get(A)).toBe('live');
  });

  it('on start, takes every live station without a publisher offline after the grace period', async () => {
    // As after a crash: the database says live, this process holds no publisher for A.
    await publish(B);
    await start({ [A]: 'live', [B]: 'live', 'station-c': 'offline' });
    await until(() => status.get(A) === 'offline', 'A offline');
    await sleep(GRACE_MS);
    expect(status.get(B)).toBe('live');
    expect(transitions).toEqual([
      [A, 'reconnecting'],
      [A, 'offline'],
    ]);
    expect(pushed).toEqual([
      {
        name: 'station.offline',
        payload: { stationId: A, status: 'offline', isActive: false, lastActiveAt: null },
      },
    ]);
  });

  it('on resync (an SFU node was lost), does the same for stations whose publisher is gone', async () => {
    await start({ [A]: 'live', [B]: 'live' });
    const a = await publish(A);
    await publish(B);
    await sleep(GRACE_MS * 2);
    // Published right after the start: whatever waited for a publisher is back on air.
    expect(transitions.filter(([, s]) => s === 'offline')).toEqual([]);
    expect([status.get(A), status.get(B)]).toEqual(['live', 'live']);
    engine.sessions.delete(a); // the node that held it is gone: no event for it
    engine.emit({ type: 'resync' });
    await until(() => status.get(A) === 'offline', 'A offline');
    expect(status.get(B)).toBe('live');
  });

  it('turns listener counts into station.listeners events and forgets listeners that left', async () => {
    await start({ [A]: 'live' });
    const slot = { id: 'slot-1', ip: '192.0.2.1', stationId: A };
    await sessions.admitListener(slot, { perIp: 1, perStation: 0 });
    await sessions.putSession('l-1', { stationId: A, kind: 'listener', tokenHash: null, slot });
    engine.emit({ type: 'listeners', stationId: A, count: 3 });
    await until(() => pushed.length > 0, 'listeners event');
    expect(pushed).toEqual([
      { name: 'station.listeners', payload: { stationId: A, viewerCount: 3 } },
    ]);
    engine.emit({
      type: 'listener-gone',
      stationId: A,
      sessionId: 'l-1',
      reason: 'consent-timeout',
    });
    await sleep(20);
    expect(await sessions.session('l-1')).toBeNull();
    expect(
      await sessions.admitListener({ ...slot, id: 'slot-2' }, { perIp: 1, perStation: 0 }),
    ).toBe('ok');
  });

  it('disconnects everyone once when the owner ends the station', async () => {
    await start({ [A]: 'live' });
    await publish(A);
    const ended = { stationId: A, status: 'ended' as const, isActive: false, lastActiveAt: 'x' };
    await bus.publish('station.ended', ended);
    await bus.publish('station.ended', ended);
    await until(() => engine.callsOf('closeStation').length > 0, 'closeStation');
    await sleep(20);
    expect(engine.callsOf('closeStation')).toEqual([[A]]);
    expect(await sessions.publisher(A)).toBeNull();
  });
});
