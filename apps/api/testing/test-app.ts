import { createHash, randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import pg from 'pg';
import type { DestinationStream } from 'pino';
import { DataSource } from 'typeorm';
import { createApp } from '../src/bootstrap.js';
import { type AppConfig, loadConfig } from '../src/config/config.js';
import { dataSourceOptions, MIGRATIONS } from '../src/database/data-source.js';
import { EmbeddedPostgres } from '../src/database/embedded-postgres.js';
import { freeLoopbackPort } from './ports.js';

export { freeLoopbackPort };

/** The PostgreSQL and Redis that CI machines run (README); override with TEST_DATABASE_URL / TEST_REDIS_URL. */
export const TEST_PG_URL =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The address of database `name` on the test server. */
function databaseUrl(name: string): string {
  const url = new URL(TEST_PG_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A hash of the migrations' code: templates are rebuilt when it changes. */
function migrationsHash(): string {
  const hash = createHash('sha256');
  for (const m of MIGRATIONS) hash.update(`${m.name}\n${m.toString()}\n`);
  return hash.digest('hex').slice(0, 16);
}

/** Runs every migration on the database at `url`. */
async function migrate(url: string, embedded: boolean): Promise<void> {
  const ds = new DataSource({
    ...dataSourceOptions(url, embedded),
    logging: false,
    logger: undefined,
  });
  try {
    await ds.initialize();
  } finally {
    if (ds.isInitialized) await ds.destroy();
  }
}

/**
 * The embedded counterpart of the template database: a PGlite data directory after initdb and every
 * migration, kept in the temporary directory per set of migrations and copied into an embedded test
 * app's DATA_DIR, so its start skips PGlite's initdb (the slowest part of an embedded boot here).
 * embedded-restart.spec and the e2e processes still start on an empty DATA_DIR.
 */
let pgliteTemplate: Promise<string> | undefined;
function migratedPgliteTemplate(): Promise<string> {
  pgliteTemplate ??= (async () => {
    const dir = join(tmpdir(), `rb-pglite-template-${migrationsHash()}`);
    if (existsSync(dir)) return dir;
    const building = mkdtempSync(join(tmpdir(), 'rb-pglite-building-'));
    const server = await EmbeddedPostgres.start(building);
    try {
      await migrate(server.url, true);
    } finally {
      await server.stop();
    }
    try {
      renameSync(building, dir); // complete or absent: a worker building at the same time loses
    } catch {
      rmSync(building, { recursive: true, force: true });
    }
    return dir;
  })();
  pgliteTemplate.catch(() => (pgliteTemplate = undefined));
  return pgliteTemplate;
}

/** Serialises template builds across every worker and process using the test server. */
const TEMPLATE_LOCK = 0x72627470; // 'rbtp'

/**
 * The database every test database is copied from: the schema after every migration in
 * {@link MIGRATIONS}, built once per set of migrations (its name holds a hash of their code, so a
 * changed migration builds a new one) and kept on the server for the next run. Copying it
 * (`CREATE DATABASE … TEMPLATE`) costs a fraction of running the migrations for each app a test
 * starts; the app still runs its migrations at start and finds them applied.
 */
let template: Promise<string> | undefined;
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const name = `rb_template_${migrationsHash()}`;
    const admin = new pg.Client({ connectionString: TEST_PG_URL });
    await admin.connect();
    try {
      await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
      const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (found.rowCount) return name;
      // Built under another name and renamed when complete: a run stopped half-way leaves no
      // half-migrated template behind.
      const building = `rb_building_${randomBytes(6).toString('hex')}`;
      await admin.query(`CREATE DATABASE ${building}`);
      await migrate(databaseUrl(building), false);
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      return name;
    } finally {
      await admin.end();
    }
  })();
  template.catch(() => (template = undefined));
  return template;
}

/**
 * A database of its own for one test file, so suites never see each other's rows: a copy of the
 * migrated template (`migrated: false`: an empty one).
 */
export async function createTestDatabase(
  opts: { migrated?: boolean } = {},
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `rb_test_${randomBytes(6).toString('hex')}`;
  const from = opts.migrated === false ? null : await migratedTemplate();
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}${from ? ` TEMPLATE ${from}` : ''}`);
  } finally {
    await admin.end();
  }
  return {
    url: databaseUrl(name),
    drop: async () => {
      const c = new pg.Client({ connectionString: TEST_PG_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

export function testConfig(overrides: NodeJS.ProcessEnv = {}): AppConfig {
  return loadConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'rb-test-')),
    AUTH_SECRET: randomBytes(32).toString('hex'),
    EVENT_PREFIX: `rbtest-${randomBytes(4).toString('hex')}`,
    // Hashing at the production cost would dominate the suite's run time; password.spec checks it.
    PASSWORD_SCRYPT: '1024,8,1',
    // The demo station publishes audio all the time: only the tests about it turn it on.
    DEMO_STATION: 'false',
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

/**
 * When Nest closes the app's HTTP server, every connection still open closes with it. A test closes
 * its app when it is done with it, but a connection can outlive the test: `server.close()` waits for
 * it to end, and one held the close of web-studio's and turn-browser's apps for 30 s when the serial
 * files first ran in two lanes. Node's `closeAllConnections()` is not enough: it knows only the
 * connections its HTTP parser holds, and a new connection whose first bytes have not arrived yet is
 * still with the Icecast source look (radio/source-connections.ts), so it came to HTTP after the
 * close and held it for Node's headersTimeout (60 s; test-app.spec failed on it in CI). So every
 * connection the server accepted is tracked here, as main.ts does for the product's shutdown, and
 * destroyed at the close. The product's own shutdown (main.ts) keeps its bounded grace.
 */
function closeConnectionsOnClose(server: Server): void {
  const sockets = new Set<Socket>();
  // prepended: a connection is tracked before anything else can take it over
  server.prependListener('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const close = server.close.bind(server);
  server.close = (callback?: (err?: Error) => void) => {
    close(callback);
    server.closeAllConnections();
    for (const socket of sockets) socket.destroy();
    return server;
  };
}

/**
 * Starts the real app on a free (or the given) loopback port against a fresh PostgreSQL database
 * (or embedded PGlite); its PUBLIC_URL is that address unless `env` says otherwise.
 */
export async function startTestApp(
  opts: {
    embedded?: boolean;
    redis?: boolean;
    env?: NodeJS.ProcessEnv;
    port?: number;
    /** Log lines go here instead of stdout. */
    logDestination?: DestinationStream;
  } = {},
): Promise<TestApp> {
  // A DATABASE_URL in `env` shares that database (several nodes); else a fresh one.
  const db = opts.embedded || opts.env?.DATABASE_URL ? null : await createTestDatabase();
  const port = opts.port ?? (await freeLoopbackPort());
  const config = testConfig({
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    ...(db ? { DATABASE_URL: db.url } : {}),
    ...(opts.redis ? { REDIS_URL: TEST_REDIS_URL } : {}),
    ...opts.env,
  });
  if (opts.embedded && !config.databaseUrl)
    cpSync(await migratedPgliteTemplate(), config.pgliteDir, { recursive: true });
  const app = await createApp(config, { logDestination: opts.logDestination });
  await app.listen(port, '127.0.0.1');
  closeConnectionsOnClose(app.getHttpServer());
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

/** A process of ours started from compiled code, once it printed the address it listens on. */
export interface NodeProcess {
  url: string;
  pid: number;
  /** Everything it wrote so far. */
  output: () => string;
  exited: Promise<void>;
  /** The exit code once it exited (null while running, or when a signal ended it). */
  exitCode: () => number | null;
  /** The signal that ended it (null while running, or when it exited with a code). */
  exitSignal: () => NodeJS.Signals | null;
  /** Stops reading its stdout and stderr, as a parent that is busy elsewhere (the pipes fill up). */
  stopReading: () => void;
  kill: () => void;
  stop: () => Promise<void>;
}

/**
 * Starts `node {main}` (or `{main} {...args}` when `args` are given) and resolves when it prints
 * `listening on http://127.0.0.1:{port}` (within `timeoutMs`; generous, as a busy machine boots
 * slowly); rejects with its output if it exits first.
 */
export async function spawnUntilListening(
  main: string,
  env: NodeJS.ProcessEnv,
  what: string,
  timeoutMs = 45_000,
  args?: string[],
): Promise<NodeProcess> {
  const { spawn } = await import('node:child_process');
  const child = spawn(args ? main : process.execPath, args ?? [main], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running: a process that never said where it listens is of no use to anyone.
      child.kill('SIGKILL');
      reject(new Error(`${what} did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
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
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}:\n${output}`));
    });
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url,
    pid: child.pid!,
    output: () => output,
    exited,
    exitCode: () => child.exitCode,
    exitSignal: () => child.signalCode,
    stopReading: () => {
      for (const stream of [child.stdout, child.stderr]) {
        stream.removeAllListeners('data');
        stream.pause();
      }
    },
    kill: () => child.kill('SIGKILL'),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      // SIGTERM's own promise (a bounded shutdown) is tested where it is the subject
      // (test/e2e/shutdown.test.ts); here a process that outlives it by far is said and killed, so one
      // slow shutdown on a loaded machine does not time out the file's afterAll.
      const slow = setTimeout(() => {
        console.warn(`${what} still running 20 s after SIGTERM: killed\n${output.slice(-2000)}`);
        child.kill('SIGKILL');
      }, 20_000);
      await exited;
      clearTimeout(slow);
    },
  };
}

/**
 * API processes a test file starts one after another (the first runs the migrations) and stops
 * together. `stopAll` also stops a process still starting when it is called (a `beforeAll` that ran
 * out of time while the next boot was under way): an array filled by `push(await …)` never sees
 * that one, and it ran on, unstopped, for the rest of the suite. A start that ends after `stopAll`
 * stops its process and rejects.
 */
export function apiNodes() {
  const starting: Promise<NodeProcess>[] = [];
  const list: NodeProcess[] = [];
  let closed = false;
  return {
    /** The processes started so far, in order. */
    list,
    async start(env: NodeJS.ProcessEnv, timeoutMs?: number): Promise<NodeProcess> {
      if (closed) throw new Error('apiNodes: already stopped');
      const next = spawnApiProcess(env, timeoutMs);
      starting.push(next);
      const node = await next;
      if (closed) {
        await node.stop();
        throw new Error('apiNodes: stopped while this process was starting');
      }
      list.push(node);
      return node;
    },
    async stopAll(): Promise<void> {
      closed = true;
      const all = await Promise.allSettled(starting);
      await Promise.all(all.map((r) => (r.status === 'fulfilled' ? r.value.stop() : undefined)));
    },
  };
}

/**
 * A real API process from the compiled app (`npm run build` first), on a free port (or `env.PORT`)
 * whose address is its PUBLIC_URL unless `env` says otherwise.
 */
export async function spawnApiProcess(
  env: NodeJS.ProcessEnv,
  timeoutMs?: number,
): Promise<NodeProcess> {
  const { fileURLToPath } = await import('node:url');
  const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
  const port = env.PORT ?? String(await freeLoopbackPort());
  return spawnUntilListening(
    main,
    {
      PORT: port,
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SFU_SHARDS: '0',
      DEMO_STATION: 'false',
      ...env,
    },
    'API process',
    timeoutMs,
  );
}
