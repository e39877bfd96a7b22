import { describe, expect, it } from '@jest/globals';
import { Gate } from './gate.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('Gate (listener handshakes a shard runs at once)', () => {
  it('lets `limit` in at once, the others in order as slots are freed; freeing twice frees once', async () => {
    const gate = new Gate(2);
    const inside: number[] = [];
    const frees: (() => void)[] = [];
    for (let i = 0; i < 5; i++)
      void gate.enter().then((free) => {
        inside.push(i);
        frees[i] = free;
      });
    await tick();
    expect(inside).toEqual([0, 1]);
    frees[0]!();
    frees[0]!(); // a second call must not let two more in
    await tick();
    expect(inside).toEqual([0, 1, 2]);
    frees[1]!();
    frees[2]!();
    await tick();
    expect(inside).toEqual([0, 1, 2, 3, 4]);
    // every slot freed: the next one enters at once
    frees[3]!();
    frees[4]!();
    const free = await gate.enter();
    expect(typeof free).toBe('function');
  });
});
