import { expect, it } from '@jest/globals';
import { lazy } from './lazy.js';

it('makes the value at the first use only, and the same one for concurrent and later uses', async () => {
  let made = 0;
  const get = lazy(async () => ({ n: ++made }));
  expect(made).toBe(0);
  const [a, b] = await Promise.all([get(), get()]);
  expect(await get()).toBe(a);
  expect(b).toBe(a);
  expect(made).toBe(1);
});

it('tries again at the next use after a failed attempt', async () => {
  let attempts = 0;
  const get = lazy(async () => {
    attempts++;
    if (attempts === 1) throw new Error('not yet');
    return 'loaded';
  });
  await expect(get()).rejects.toThrow('not yet');
  await expect(get()).resolves.toBe('loaded');
  await expect(get()).resolves.toBe('loaded');
  expect(attempts).toBe(2);
});
