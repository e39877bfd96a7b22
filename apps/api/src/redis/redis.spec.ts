import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { startTestApp, TEST_REDIS_URL, type TestApp } from '../../testing/test-app.js';

describe('one Redis provider', () => {
  let t: TestApp;
  let admin: Redis;
  beforeAll(async () => {
    t = await startTestApp({ redis: true });
    admin = new Redis(TEST_REDIS_URL);
  });
  afterAll(async () => {
    admin.disconnect();
    await t.close();
  });

  it('opens every connection of the API from the one client, each named for its purpose', async () => {
    const list = (await admin.client('LIST')) as string;
    const names = [...list.matchAll(/ name=(\S+)/g)]
      .map((m) => m[1]!)
      .filter((n) => n.startsWith(`${t.config.redisPrefix}:`))
      .sort();
    const p = t.config.redisPrefix;
    expect(names).toEqual(
      [
        `${p}:api:events-pub`,
        `${p}:api:events-sub`,
        `${p}:api:main`,
        `${p}:api:socketio-pub`,
        `${p}:api:socketio-sub`,
      ].sort(),
    );
  });

  it('closes them all when the app stops', async () => {
    const other = await startTestApp({ redis: true });
    const prefix = `${other.config.redisPrefix}:`;
    await other.close();
    const list = (await admin.client('LIST')) as string;
    expect(list.includes(` name=${prefix}`)).toBe(false);
  });
});

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

describe('an unreachable REDIS_URL at start-up', () => {
  it('ends the process with exit code 1 and one readable line, no stack or ioredis noise', async () => {
    const port = await closedPort();
    const main = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
    const child = spawn(process.execPath, [main], {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        REDIS_URL: `redis://:hunter2@127.0.0.1:${port}`,
        DATA_DIR: mkdtempSync(join(tmpdir(), 'rb-redis-down-')),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(out.trim().split('\n')).toEqual([
      `Radio Broadcaster cannot start: Cannot reach Redis at redis://:***@127.0.0.1:${port} (REDIS_URL): connect ECONNREFUSED 127.0.0.1:${port}`,
    ]);
  });
});
