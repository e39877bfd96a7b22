import { afterEach, describe, expect, test } from '@jest/globals';
import { mkdtempSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseEngine, createMediaEngine } from './engine-choice.js';
import { findMediasoupWorker } from './mediasoup/worker-bin.js';

const built = {
  available: true as const,
  bin: '/x/mediasoup-worker',
  version: '3.15.8',
  packageDir: '/x',
};
const missing = { available: false as const, reason: 'no mediasoup 3.15.8 worker found' };

describe('engine choice (MEDIA_ENGINE)', () => {
  test('unset: mediasoup where its worker is present, werift otherwise with the hint how to build one', () => {
    expect(chooseEngine(undefined, built)).toEqual({
      engine: 'mediasoup',
      reason: 'MEDIA_ENGINE unset and the mediasoup 3.15.8 worker is at /x/mediasoup-worker',
    });
    const fallback = chooseEngine('', missing);
    expect(fallback.engine).toBe('werift');
    expect(fallback.reason).toContain('no mediasoup 3.15.8 worker found');
    expect(fallback.reason).toContain('scripts/build-mediasoup-worker.sh');
    expect(fallback.reason).not.toContain('\n');
  });

  test('an explicit choice wins; mediasoup without a worker is an error that says how to build it', () => {
    expect(chooseEngine('werift', built).engine).toBe('werift');
    expect(chooseEngine(' MediaSoup ', built).engine).toBe('mediasoup');
    expect(() => chooseEngine('mediasoup', missing)).toThrow(/scripts\/build-mediasoup-worker\.sh/);
    expect(() => chooseEngine('janus', built)).toThrow(
      'MEDIA_ENGINE must be one of werift, mediasoup (got "janus")',
    );
  });

  test('the worker is found through MEDIASOUP_WORKER_BIN or the build cache', () => {
    const found = findMediasoupWorker({
      MEDIASOUP_WORKER_BIN: '/nonexistent/worker',
      HOME: '/nonexistent',
    });
    expect(found.available).toBe(false);
    if (found.available) return;
    // the package is an optional dependency: absent, or present without that binary
    expect(found.reason).toMatch(/not installed|is not an executable file/);
    const dir = mkdtempSync(join(tmpdir(), 'rb-ms-'));
    const bin = join(dir, 'mediasoup-worker');
    writeFileSync(bin, '#!/bin/sh\n');
    chmodSync(bin, 0o755);
    const viaEnv = findMediasoupWorker({ MEDIASOUP_WORKER_BIN: bin, HOME: '/nonexistent' });
    if (!found.reason.includes('not installed'))
      expect(viaEnv).toMatchObject({ available: true, bin });
  });
  /** What a process with MEDIA_ENGINE unset starts and logs, with this machine's worker or none. */
  describe('createMediaEngine with MEDIA_ENGINE unset', () => {
    const saved = { ...process.env };
    afterEach(() => {
      for (const k of ['MEDIA_ENGINE', 'MEDIASOUP_WORKER_BIN', 'RB_MEDIASOUP_CACHE'])
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
    });

    test('no worker anywhere: werift starts, and the one log line says why and how to get mediasoup', async () => {
      delete process.env.MEDIA_ENGINE;
      delete process.env.MEDIASOUP_WORKER_BIN;
      process.env.RB_MEDIASOUP_CACHE = mkdtempSync(join(tmpdir(), 'rb-ms-empty-'));
      const lines: string[] = [];
      const found = findMediasoupWorker();
      // a worker inside the package itself (a prebuilt download) would be found: then nothing to show
      if (found.available) return;
      const { engine, choice } = await createMediaEngine({ shards: 0 }, (l) => lines.push(l));
      try {
        expect(choice.engine).toBe('werift');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(
          /^SFU engine: werift \(MEDIA_ENGINE unset and .*scripts\/build-mediasoup-worker\.sh/,
        );
        expect(engine.stats().shards).toBe(0);
      } finally {
        await engine.close();
      }
    });

    const present = findMediasoupWorker();
    (present.available ? test : test.skip)(
      'the worker built (scripts/build-mediasoup-worker.sh): mediasoup starts, and the log says where its worker is',
      async () => {
        delete process.env.MEDIA_ENGINE;
        const lines: string[] = [];
        const { engine, choice } = await createMediaEngine({ shards: 1 }, (l) => lines.push(l));
        try {
          expect(choice.engine).toBe('mediasoup');
          expect(lines).toEqual([
            expect.stringMatching(
              /^SFU engine: mediasoup \(MEDIA_ENGINE unset and the mediasoup [\d.]+ worker is at \//,
            ),
          ]);
          expect(engine.stats().shards).toBe(1);
        } finally {
          await engine.close();
        }
      },
      30000,
    );
  });
});
