import { describe, expect, it } from '@jest/globals';
import { ShardCapacity, ShardLoad, threadCpuSeconds, type LoadWindow } from './capacity.js';

/** One second of a shard whose thread costs `perSend` per packet and `perHandshake` per join. */
function second(
  listeners: number,
  joins: number,
  cost: { perSend: number; perHandshake: number; idle?: number },
): LoadWindow {
  const sends = listeners * 50;
  return {
    seconds: 1,
    cpuSeconds: (cost.idle ?? 0.005) + sends * cost.perSend + joins * cost.perHandshake,
    sends,
    handshakes: joins,
    listeners,
  };
}

/** What a shard can hold at 80 % of a core with room for 25 joins a second. */
const expected = (perSend: number, perHandshake: number, idle = 0.005) =>
  (0.8 - idle - 25 * perHandshake) / (perSend * 50);

describe('ShardCapacity', () => {
  it('starts from a conservative prior before anything is measured', () => {
    const c = new ShardCapacity();
    expect(c.listeners()).toBe(Math.floor(expected(20e-6, 3e-3)));
  });

  it('holds more listeners on a fast machine and fewer on a slow one, from steady forwarding', () => {
    for (const perSend of [6e-6, 12e-6, 30e-6]) {
      const c = new ShardCapacity();
      for (let t = 0; t < 30; t++) c.observe(second(400, 0, { perSend, perHandshake: 2e-3 }));
      const want = expected(perSend, 3e-3); // no joins seen: the prior's handshake cost stands
      expect(c.listeners()).toBeGreaterThan(0.95 * want);
      expect(c.listeners()).toBeLessThan(1.05 * want);
    }
  });

  it('does not read a burst of joins as a full shard: handshakes are costed on their own', () => {
    const cost = { perSend: 10e-6, perHandshake: 4e-3 };
    const c = new ShardCapacity();
    // a ramp: 50 joins a second while the held listeners grow, then a quiet minute
    for (let t = 0; t < 20; t++) c.observe(second(50 * t, 50, cost));
    const during = c.listeners();
    for (let t = 0; t < 60; t++) c.observe(second(1000, t % 7 === 0 ? 10 : 0, cost));
    const want = expected(cost.perSend, cost.perHandshake);
    // a reading that charged the joins' CPU to the listeners would say ~25 % fewer
    expect(during).toBeGreaterThan(0.9 * want);
    expect(c.listeners()).toBeGreaterThan(0.95 * want);
    expect(c.listeners()).toBeLessThan(1.05 * want);
    expect(c.costs().perHandshake).toBeGreaterThan(3e-3);
  });

  it('follows the packet rate listeners actually get (10 ms Opus packets cost twice as much)', () => {
    const c = new ShardCapacity();
    for (let t = 0; t < 30; t++) {
      c.observe({
        seconds: 1,
        cpuSeconds: 0.005 + 500 * 100 * 8e-6,
        sends: 500 * 100,
        handshakes: 0,
        listeners: 500,
      });
    }
    expect(c.costs().packetRate).toBeGreaterThan(95);
    const want = (0.8 - 0.005 - 25 * 3e-3) / (8e-6 * 100);
    expect(c.listeners()).toBeGreaterThan(0.93 * want);
    expect(c.listeners()).toBeLessThan(1.05 * want);
  });

  it('is not talked into refusing everyone by a few noisy windows', () => {
    const c = new ShardCapacity();
    // a machine busy with something else: 5 joins and 2 s of CPU, then a handful of listeners
    c.observe({ seconds: 1, cpuSeconds: 2, sends: 0, handshakes: 5, listeners: 0 });
    c.observe({ seconds: 1, cpuSeconds: 0.9, sends: 250, handshakes: 0, listeners: 5 });
    const { perSend, perHandshake } = c.costs();
    expect(perHandshake).toBeLessThanOrEqual(20e-3);
    expect(perSend).toBeLessThanOrEqual(200e-6);
    // joins keep at most a quarter of the target; the rest still forwards to listeners
    expect(c.listeners()).toBeGreaterThanOrEqual(Math.floor((0.8 * 0.75 - 0.2) / (200e-6 * 50)));
  });
});

describe('ShardLoad', () => {
  it('makes windows of the cumulative reports and skips the first report after a restart', () => {
    const windows: LoadWindow[] = [];
    const capacity = new ShardCapacity();
    capacity.observe = (w) => void windows.push(w);
    const load = new ShardLoad(capacity);
    load.report({ at: 0, cpuSeconds: 1, sends: 100, handshakes: 2, listeners: 2 });
    load.report({ at: 2000, cpuSeconds: 1.5, sends: 300, handshakes: 5, listeners: 4 });
    load.report({ at: 3000, cpuSeconds: 0.1, sends: 10, handshakes: 0, listeners: 1 }); // restarted
    load.report({ at: 4000, cpuSeconds: 0.3, sends: 60, handshakes: 1, listeners: 1 });
    expect(windows).toEqual([
      { seconds: 2, cpuSeconds: 0.5, sends: 200, handshakes: 3, listeners: 4 },
      {
        seconds: 1,
        cpuSeconds: expect.closeTo(0.2, 6) as unknown as number,
        sends: 50,
        handshakes: 1,
        listeners: 1,
      },
    ]);
  });
});

describe('threadCpuSeconds', () => {
  it('counts the CPU time of the calling thread', () => {
    const before = threadCpuSeconds();
    if (process.platform !== 'linux') {
      expect(before).toBeNull();
      return;
    }
    // 150 ms of this thread's CPU, however busy the machine is, by Node's own count of it
    // (process.threadCpuUsage, Node >= 23.9; process.cpuUsage counts every thread of the process, and
    // Jest's other threads made it reach 150 ms while this one had run 30 ms)
    const threadUsage = (
      process as { threadCpuUsage?: (prev?: NodeJS.CpuUsage) => NodeJS.CpuUsage }
    ).threadCpuUsage?.bind(process);
    const usage = threadUsage ?? ((prev?: NodeJS.CpuUsage) => process.cpuUsage(prev));
    const start = usage();
    let x = 0;
    while (usage(start).user < 150_000) x += Math.sqrt(x + 1);
    const spent = usage(start);
    const after = threadCpuSeconds()!;
    expect(x).toBeGreaterThan(0);
    // the kernel counts in 10 ms ticks
    expect(after - before!).toBeGreaterThan(0.08);
    expect(after - before!).toBeLessThan((spent.user + spent.system) / 1e6 + 0.05);
  });
});
