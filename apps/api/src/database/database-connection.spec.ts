import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { freeLoopbackPort } from '../../testing/test-app.js';

describe('an unreachable DATABASE_URL at start-up', () => {
  it('ends the process with exit code 1 and one readable line on stderr, no stack', async () => {
    const port = await freeLoopbackPort(); // released at once: nothing listens there
    const main = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
    const child = spawn(process.execPath, [main], {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        DATABASE_URL: `postgres://radio:s3cret@127.0.0.1:${port}/radio`,
        REDIS_URL: '',
        DATA_DIR: mkdtempSync(join(tmpdir(), 'rb-db-down-')),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const started = Date.now();
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    // Without the check TypeORM retried for half a minute, then threw with a stack.
    const code = await Promise.race([
      exited,
      new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), 25_000).unref()),
    ]);
    if (code === 'running') child.kill('SIGKILL');
    expect(code).toBe(1);
    expect(err.trim().split('\n')).toEqual([
      `Radio Broadcaster cannot start: Cannot reach PostgreSQL at postgres://radio:***@127.0.0.1:${port}/radio (DATABASE_URL): connect ECONNREFUSED 127.0.0.1:${port}`,
    ]);
    expect(out).toBe('');
    // At once, not after TypeORM's retries.
    expect(Date.now() - started).toBeLessThan(25_000);
  }, 40_000);
});
