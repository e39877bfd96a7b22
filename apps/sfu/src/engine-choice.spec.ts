import { describe, expect, test } from '@jest/globals';
import { mkdtempSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseEngine, MEDIASOUP_BY_DEFAULT } from './engine-choice.js';
import { findMediasoupWorker } from './mediasoup/worker-bin.js';

const built = {
  available: true as const,
  bin: '/x/mediasoup-worker',
  version: '3.15.8',
  packageDir: '/x',
};
const missing = { available: false as const, reason: 'no mediasoup 3.15.8 worker found' };

describe('engine choice (MEDIA_ENGINE)', () => {
  test('unset: werift without a mediasoup worker, with the hint how to build one; with one, the default says why', () => {
    const present = chooseEngine(undefined, built);
    if (MEDIASOUP_BY_DEFAULT) {
      expect(present).toEqual({
        engine: 'mediasoup',
        reason: 'mediasoup 3.15.8 worker found at /x/mediasoup-worker',
      });
    } else {
      // until Chromium and the benchmark are shown on mediasoup (issue 30)
      expect(present.engine).toBe('werift');
      expect(present.reason).toContain('MEDIA_ENGINE=mediasoup starts it');
    }
    const fallback = chooseEngine('', missing);
    expect(fallback.engine).toBe('werift');
    expect(fallback.reason).toContain('no mediasoup 3.15.8 worker found');
    expect(fallback.reason).toContain('scripts/build-mediasoup-worker.sh');
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
});
