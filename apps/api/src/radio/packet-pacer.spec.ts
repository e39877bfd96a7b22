import { performance } from 'node:perf_hooks';
import { describe, expect, it } from '@jest/globals';
import { PacketPacer } from './packet-pacer.js';

describe('PacketPacer', () => {
  it('releases a source faster than real time at play time, never ahead of it', async () => {
    let releasedMs = 0;
    const pacer = new PacketPacer((_p, samples) => (releasedMs += samples / 48));
    const t0 = performance.now();
    // 8 s of 20 ms packets at once (a source sending a file as fast as it can)
    for (let i = 0; i < 400; i++) pacer.push(Buffer.alloc(10), 960);
    const checks: { elapsed: number; released: number }[] = [];
    while (performance.now() - t0 < 5000) {
      await new Promise((r) => setTimeout(r, 50));
      checks.push({ elapsed: performance.now() - t0, released: releasedMs });
    }
    pacer.close();
    for (const c of checks) {
      // at most one 20 ms packet ahead of the clock
      expect(c.released).toBeLessThanOrEqual(c.elapsed + 21);
    }
    const last = checks.at(-1)!;
    expect(last.released).toBeGreaterThan(last.elapsed - 1000); // and it keeps going (loaded CI)
    expect(pacer.aheadMs).toBe(0);
  });
});
