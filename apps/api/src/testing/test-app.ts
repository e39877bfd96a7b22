import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import pg from 'pg';
import { createApp } from '../bootstrap.js';
import { type AppConfig, loadConfig } from '../config/config.js';

/** The PostgreSQL and Redis that CI machines run (README); override with TEST_DATABASE_URL / TEST_REDIS_URL. */
export const TEST_PG_URL =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A database of its own for one test file, so suites never see each other's rows. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `rb_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(TEST_PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: TEST_PG_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export function testConfig(overrides: NodeJS.ProcessEnv = {}): AppConfig {
  return loadConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'rb-test-')),
    AUTH_SECRET: randomBytes(32).toString('hex'),
    EVENT_PREFIX: `rbtest-${randomBytes(4).toString('hex')}`,
    ...overrides,
  });
}

export interface TestApp {
  app: INestApplication;
  config: AppConfig;
  /** Base URL when started with `listen`. */
  url: string;
  close: () => Promise<void>;
}

/** Starts the real app on a random (or the given) loopback port against a fresh PostgreSQL database (or embedded PGlite). */
export async function startTestApp(
  opts: { embedded?: boolean; redis?: boolean; env?: NodeJS.ProcessEnv; port?: number } = {},
): Promise<TestApp> {
  const db = opts.embedded ? null : await createTestDatabase();
  const config = testConfig({
    ...(db ? { DATABASE_URL: db.url } : {}),
    ...(opts.redis ? { REDIS_URL: TEST_REDIS_URL } : {}),
    ...opts.env,
  });
  const app = await createApp(config);
  await app.listen(opts.port ?? 0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  const url = `http://127.0.0.1:${address.port}`;
  return {
    app,
    config,
    url,
    close: async () => {
      await app.close();
      await db?.drop();
    },
  };
}

let userSeq = 0;

export interface TestUser {
  id: string;
  username: string;
  email: string;
  password: string;
  token: string;
  /** `Authorization` header for bearer calls. */
  auth: { Authorization: string };
}

/** Signs a fresh user up through the real endpoint. */
export async function signUp(baseUrl: string, username?: string): Promise<TestUser> {
  const name = username ?? `user${Date.now().toString(36)}${userSeq++}`;
  const body = {
    email: `${name}@example.com`,
    password: 'correct horse battery',
    name: `User ${name}`,
    username: name,
  };
  const res = await fetch(`${baseUrl}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`sign-up failed: ${res.status} ${await res.text()}`);
  const json = (await res.json()) as { token: string; user: { id: string } };
  return {
    id: json.user.id,
    username: name,
    email: body.email,
    password: body.password,
    token: json.token,
    auth: { Authorization: `Bearer ${json.token}` },
  };
}

/** A real API process from the compiled app (`npm run build` first), on a free port. */
export async function spawnApiProcess(
  env: NodeJS.ProcessEnv,
): Promise<{ url: string; stop: () => Promise<void>; kill: () => void }> {
  const { spawn } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const main = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
  const child = spawn(process.execPath, [main], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SFU_SHARDS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`API process did not start:\n${output}`)),
      20_000,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`API process exited with ${code}:\n${output}`));
    });
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url,
    kill: () => child.kill('SIGKILL'),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
