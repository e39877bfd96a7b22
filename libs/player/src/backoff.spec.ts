import { describe, expect, it } from '@jest/globals';
import { DEFAULT_BACKOFF, backoffDelay } from './backoff.js';

describe('backoffDelay', () => {
  const noJitter = () => 0;

  it('doubles from 500 ms and caps at 4 s', () => {
    const schedule = [0, 1, 2, 3, 4, 5, 20, 1000].map((n) =>
      backoffDelay(n, DEFAULT_BACKOFF, noJitter),
    );
    expect(schedule).toEqual([500, 1000, 2000, 4000, 4000, 4000, 4000, 4000]);
  });

  it('randomises downwards by at most the jitter fraction', () => {
    expect(backoffDelay(3, DEFAULT_BACKOFF, () => 1)).toBe(3200);
    expect(backoffDelay(0, DEFAULT_BACKOFF, () => 0.5)).toBe(450);
    for (let i = 0; i < 100; i++) {
      const d = backoffDelay(2, DEFAULT_BACKOFF);
      expect(d).toBeGreaterThanOrEqual(1600);
      expect(d).toBeLessThanOrEqual(2000);
    }
  });

  it('treats negative or fractional attempts as the nearest valid attempt', () => {
    expect(backoffDelay(-3, DEFAULT_BACKOFF, noJitter)).toBe(500);
    expect(backoffDelay(1.7, DEFAULT_BACKOFF, noJitter)).toBe(1000);
  });

  it('follows custom options', () => {
    expect(backoffDelay(2, { baseMs: 100, maxMs: 300, jitter: 0 })).toBe(300);
  });
});
