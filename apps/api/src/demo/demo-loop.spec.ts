import { describe, expect, it } from '@jest/globals';
import { goertzelPower, OpusDecoder } from '@radiobroadcaster/audio';
import { DEMO_LOOP_SECONDS, encodeDemoLoop, synthesiseDemoLoop } from './demo-loop.js';

describe('the demo loop', () => {
  it('is 16 s of stereo audio, audible and never clipping', () => {
    const a = synthesiseDemoLoop();
    expect(a.length).toBe(DEMO_LOOP_SECONDS * 48000 * 2);
    let peak = 0;
    let sum = 0;
    for (const v of a) {
      peak = Math.max(peak, Math.abs(v));
      sum += v * v;
    }
    const rmsDb = 20 * Math.log10(Math.sqrt(sum / a.length));
    expect(peak).toBeLessThan(1);
    expect(rmsDb).toBeGreaterThan(-30);
    // It ends where it starts (no click when it repeats).
    expect(Math.abs(a[a.length - 2]! - a[0]!)).toBeLessThan(0.01);
  });

  it('encodes to 800 Opus packets that decode to the C chord first', () => {
    const packets = encodeDemoLoop();
    expect(packets).toHaveLength(800);
    const total = packets.reduce((n, p) => n + p.length, 0);
    expect(total).toBeLessThan(250_000);
    const dec = new OpusDecoder(2);
    const left: number[] = [];
    try {
      for (const p of packets.slice(0, 150)) {
        const pcm = dec.decode(p);
        for (let i = 0; i < pcm.length; i += 2) left.push(pcm[i]! / 32768);
      }
    } finally {
      dec.delete();
    }
    const signal = left.slice(4800); // past the first note's attack
    const c4 = goertzelPower(signal, 261.63, 48000);
    const fSharp = goertzelPower(signal, 370, 48000);
    expect(c4).toBeGreaterThan(fSharp * 50);
  });
});
