import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { PushScheduler } from './push-scheduler.js';
import { TokenBucket } from './token-bucket.js';

describe('PushScheduler', () => {
  let pushes: { id: string; at: number }[];
  let scheduler: PushScheduler;
  let start: number;

  beforeEach(() => {
    jest.useFakeTimers();
    start = Date.now();
    pushes = [];
    scheduler = new PushScheduler({ minIntervalMs: 250, countIntervalMs: 1000 }, (id) =>
      pushes.push({ id, at: Date.now() - start }),
    );
  });

  afterEach(() => {
    scheduler.close();
    jest.useRealTimers();
  });

  it('pushes viewer counts at most once a second per station, with the latest count', () => {
    // A count change every 50 ms for 3 s.
    for (let t = 0; t < 3000; t += 50) {
      scheduler.changed('a', 'count');
      jest.advanceTimersByTime(50);
    }
    jest.advanceTimersByTime(2000);
    const at = pushes.map((p) => p.at);
    expect(at).toEqual([0, 1000, 2000, 3000]);
  });

  it('pushes other changes at once, bursts at most every 250 ms, and stations independently', () => {
    scheduler.changed('a', 'change');
    scheduler.changed('b', 'count');
    jest.advanceTimersByTime(0);
    expect(pushes).toEqual([
      { id: 'a', at: 0 },
      { id: 'b', at: 0 },
    ]);
    jest.advanceTimersByTime(100);
    scheduler.changed('a', 'change');
    scheduler.changed('a', 'change');
    jest.advanceTimersByTime(1000);
    expect(pushes.filter((p) => p.id === 'a').map((p) => p.at)).toEqual([0, 250]);
  });

  it('does not hold a status change behind a pending count push', () => {
    scheduler.changed('a', 'count');
    jest.advanceTimersByTime(0);
    scheduler.changed('a', 'count');
    jest.advanceTimersByTime(300);
    scheduler.changed('a', 'change');
    jest.advanceTimersByTime(0);
    // The change goes out at 300 ms carrying the count; no separate count push follows.
    jest.advanceTimersByTime(3000);
    expect(pushes.map((p) => p.at)).toEqual([0, 300]);
  });
});

describe('TokenBucket', () => {
  it('lets a burst through, then the rate', () => {
    const b = new TokenBucket(5, 10, 0);
    let passed = 0;
    for (let i = 0; i < 50; i++) if (b.take(0)) passed++;
    expect(passed).toBe(10);
    expect(b.take(100)).toBe(false);
    expect(b.take(200)).toBe(true);
    expect(b.take(200)).toBe(false);
    // Refills up to the burst, never beyond.
    passed = 0;
    for (let i = 0; i < 50; i++) if (b.take(60_000)) passed++;
    expect(passed).toBe(10);
  });
});
