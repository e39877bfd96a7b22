import { describe, expect, it } from '@jest/globals';
import { clusterEngine, type NodeInfo } from '../protocol/schemas.js';
import { ListenerTotals } from './listener-totals.js';
import { NodeSelector } from './node-selector.js';

const node = (id: string, over: Partial<NodeInfo> = {}): NodeInfo => ({
  id,
  url: `http://${id}.internal:4000`,
  startedAt: 0,
  at: 0,
  listeners: 0,
  publishers: 0,
  relays: 0,
  relayLegs: 0,
  load: 0,
  maxListeners: null,
  stations: {},
  ...over,
});

describe('NodeSelector (placement)', () => {
  it('ranks the least loaded node first, ties by id', () => {
    const s = new NodeSelector();
    const ranked = s.rank([node('c', { load: 5 }), node('b', { load: 1 }), node('a', { load: 1 })]);
    expect(ranked.map((n) => n.id)).toEqual(['a', 'b', 'c']);
  });

  it('skips nodes at their listener limit, suspected nodes and excluded ones', () => {
    const s = new NodeSelector({ suspectMs: 60_000 });
    const nodes = [
      node('full', { listeners: 10, maxListeners: 10 }),
      node('dead'),
      node('tried'),
      node('ok', { load: 50 }),
    ];
    s.suspect('dead');
    expect(s.rank(nodes, new Set(['tried'])).map((n) => n.id)).toEqual(['ok']);
    s.trust('dead');
    expect(s.rank(nodes, new Set(['tried'])).map((n) => n.id)).toEqual(['dead', 'ok']);
  });

  it('never places a session on a draining node, however free it is', () => {
    const s = new NodeSelector();
    const nodes = [node('a', { draining: true }), node('b', { load: 40 })];
    expect(s.rank(nodes).map((n) => n.id)).toEqual(['b']);
    expect(s.rank([node('a', { draining: true })])).toEqual([]);
  });

  it('counts its own recent placements until the registry shows them', () => {
    const s = new NodeSelector({ pendingMs: 60_000 });
    const nodes = [node('a', { load: 2 }), node('b', { load: 3 })];
    s.placed('a');
    s.placed('a');
    expect(s.rank(nodes)[0]!.id).toBe('b');
    s.forget('a');
    expect(s.rank(nodes)[0]!.id).toBe('a');
  });
});

describe('ListenerTotals', () => {
  it('sums a station over the nodes and reports each change of the sum once', () => {
    const t = new ListenerTotals();
    t.fromEvent('a', 's1', 3);
    t.fromEvent('b', 's1', 2);
    t.fromEvent('b', 's2', 1);
    expect(t.total('s1')).toBe(5);
    expect(t.changes()).toEqual([
      { stationId: 's1', count: 5 },
      { stationId: 's2', count: 1 },
    ]);
    expect(t.changes()).toEqual([]);
    t.dropNode('b');
    expect(t.changes()).toEqual([
      { stationId: 's1', count: 3 },
      { stationId: 's2', count: 0 },
    ]);
  });

  it('lets a registry record correct a count unless an event is fresher', () => {
    const t = new ListenerTotals();
    t.fromEvent('a', 's1', 4, 10_000);
    // The record was written before the event arrived: the event wins.
    t.fromRecord('a', { s1: 3 }, 11_000);
    expect(t.total('s1')).toBe(4);
    // Later, the record is the truth (an event was lost).
    t.fromRecord('a', { s1: 3 }, 20_000);
    expect(t.total('s1')).toBe(3);
    t.fromRecord('a', {}, 30_000);
    expect(t.total('s1')).toBe(0);
  });
});

describe('clusterEngine (every SFU node of a cluster runs one engine)', () => {
  it("is the oldest live node's engine (ties by id); a record without one ran werift", () => {
    expect(clusterEngine([])).toBeNull();
    expect(
      clusterEngine([
        node('b', { startedAt: 20, engine: 'werift' }),
        node('a', { startedAt: 10, engine: 'mediasoup' }),
        node('c', { startedAt: 30, engine: 'mediasoup' }),
      ]),
    ).toEqual({ engine: 'mediasoup', node: 'a' });
    expect(
      clusterEngine([
        node('y', { startedAt: 5, engine: 'mediasoup' }),
        node('x', { startedAt: 5 }),
      ]),
    ).toEqual({ engine: 'werift', node: 'x' });
  });
});
