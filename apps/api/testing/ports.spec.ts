/** The ports tests start servers on: below the ephemeral range, never one fetch or Chromium refuses. */
import { afterEach, expect, it, jest } from '@jest/globals';
import { ephemeralLow, freeLoopbackPort } from './ports.js';

afterEach(() => {
  jest.restoreAllMocks();
});

it('passes over 10080, a port fetch refuses ("bad port"), even when it is free', async () => {
  // Math.random's first draw picks 10080 in this machine's range, the next one another port.
  const high = ephemeralLow() - 1;
  const draws = [(10_080 - 10_000 + 0.5) / (high - 10_000), 0.5];
  jest.spyOn(Math, 'random').mockImplementation(() => draws.shift() ?? 0.5);
  const port = await freeLoopbackPort();
  expect(port).not.toBe(10_080);
  expect(draws).toHaveLength(0); // the first pick was 10080 and was passed over
  await expect(fetch(`http://127.0.0.1:10080/`)).rejects.toMatchObject({
    cause: expect.objectContaining({ message: 'bad port' }),
  });
});

it('chooses a port below the kernel ephemeral range, with `span` free ports from it', async () => {
  const low = ephemeralLow();
  for (let i = 0; i < 20; i++) {
    const port = await freeLoopbackPort({ span: 2 });
    expect(port).toBeGreaterThanOrEqual(10_000);
    expect(port + 1).toBeLessThan(low);
  }
});
