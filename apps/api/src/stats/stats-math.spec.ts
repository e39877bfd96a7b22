import { describe, expect, it } from '@jest/globals';
import {
  bucketize,
  classifyClient,
  histogramMedian,
  histogramOf,
  median,
  whereHeard,
} from './stats-math.js';

const MIN = 60_000;

describe('bucketize', () => {
  it('measures peak, listening time, starts and ended lengths per bucket', () => {
    // Minute 0: A 0:00–2:30 and B 0:30–1:00 overlap; C starts at 1:00 exactly as B ends.
    const sessions = [
      { start: 0, end: 150_000 },
      { start: 30_000, end: 60_000 },
      { start: 60_000, end: null },
    ];
    const b = bucketize(sessions, 0, 3 * MIN, MIN, 170_000);
    expect(b.map((x) => x.peak)).toEqual([2, 2, 2]);
    expect(b.map((x) => x.started)).toEqual([2, 1, 0]);
    expect(b.map((x) => x.listenerSeconds)).toEqual([90, 120, 30 + 50]);
    expect(b.map((x) => x.endedLengths)).toEqual([[], [30], [150]]);
  });

  it('drops the level when listeners leave and counts sessions open before the range', () => {
    const sessions = [
      { start: -5 * MIN, end: 30_000 },
      { start: -MIN, end: 30_000 },
      { start: 2 * MIN + 1000, end: 2 * MIN + 2000 },
    ];
    const b = bucketize(sessions, 0, 3 * MIN, MIN, 10 * MIN);
    expect(b.map((x) => x.peak)).toEqual([2, 0, 1]);
    expect(b.map((x) => x.listenerSeconds)).toEqual([60, 0, 1]);
    expect(b[0]!.endedLengths).toEqual([330, 90]);
  });
});

describe('medians', () => {
  it('is exact from values and within 9 % from the histogram', () => {
    const lengths = [5, 30, 45, 60, 600, 3600, 7200];
    expect(median(lengths)).toBe(60);
    expect(median([1, 2, 3, 4])).toBe(2.5);
    expect(median([])).toBeNull();
    const approx = histogramMedian(histogramOf(lengths))!;
    expect(Math.abs(approx - 60) / 60).toBeLessThan(0.09);
    expect(histogramMedian({})).toBeNull();
  });
});

describe('classifyClient and whereHeard', () => {
  it('keeps only a coarse kind of client', () => {
    const desktop =
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
    const iphone =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148';
    expect(classifyClient(desktop)).toBe('desktop');
    expect(classifyClient(iphone)).toBe('mobile');
    expect(classifyClient('VLC/3.0.18 LibVLC/3.0.18')).toBe('player');
    expect(classifyClient('radio-broadcaster-cli/0.1')).toBe('app');
    expect(classifyClient('Googlebot/2.1')).toBe('bot');
    expect(classifyClient('')).toBe('other');
  });

  it('tells our pages, embeds and direct listeners apart', () => {
    const own = ['http://localhost:3000'];
    expect(whereHeard('http://localhost:3000', own)).toEqual({ source: 'site', domain: null });
    expect(whereHeard('https://Blog.Example.com', own)).toEqual({
      source: 'embed',
      domain: 'blog.example.com',
    });
    expect(whereHeard(null, own)).toEqual({ source: 'direct', domain: null });
    expect(whereHeard('null', own)).toEqual({ source: 'direct', domain: null });
  });
});
