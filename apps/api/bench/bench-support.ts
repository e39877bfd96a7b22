/** What the API benchmarks share: processes pinned to a core, a scratch database, a station. */
import { median as sharedMedian } from '@radiobroadcaster/contracts';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const API_MAIN = join(ROOT, 'apps/api/dist/main.js');

const HAS_TASKSET = (() => {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** `node args` pinned to `core` with `taskset` (unpinned, with a warning, where it is missing). */
export function spawnNode(
  args: string[],
  opts: { core?: number; env?: NodeJS.ProcessEnv; output?: 'ignore' | 'pipe' } = {},
): ChildProcess {
  const pinned = opts.core !== undefined && HAS_TASKSET;
  if (opts.core !== undefined && !HAS_TASKSET) console.warn('taskset not found: running unpinned');
  const [cmd, argv] = pinned
    ? ['taskset', ['-c', String(opts.core), process.execPath, ...args]]
    : [process.execPath, args];
  return spawn(cmd, argv, {
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', opts.output ?? 'ignore', opts.output === 'pipe' ? 'pipe' : 'inherit'],
  });
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  await new Promise<void>((ok) => server.close(() => ok()));
  return port;
}

export async function waitFor(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface ApiProcess {
  url: string;
  pid: number;
  stop: () => Promise<void>;
}

/**
 * The built API (`npm run build` first) on a free port of `host` (loopback unless a bench's own
 * network namespace link), logging at its default level to /dev/null, on the werift engine in its
 * own thread (no shard threads: idle here) unless the shell's `MEDIA_ENGINE` names another. With
 * MEDIA_ENGINE unset the API would take mediasoup wherever its worker is built, and SFU_SHARDS=0
 * there means a worker process per core: pinned to the API's core, beside what the bench measures.
 */
export async function startApi(
  env: NodeJS.ProcessEnv,
  core?: number,
  host = '127.0.0.1',
  /** Node's own flags (e.g. `--cpu-prof`), before the API's script. */
  nodeArgs: string[] = [],
): Promise<ApiProcess> {
  const port = await freePort();
  const child = spawnNode([...nodeArgs, API_MAIN], {
    core,
    env: {
      PORT: String(port),
      HOST: host,
      PUBLIC_URL: `http://${host}:${port}`,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'rb-bench-')),
      AUTH_SECRET: randomBytes(32).toString('hex'),
      SFU_SHARDS: '0',
      MEDIA_ENGINE: process.env.MEDIA_ENGINE || 'werift',
      NODE_ENV: 'production',
      ...env,
    },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://${host}:${port}`;
  await Promise.race([
    waitFor(`${url}/health/live`),
    exited.then(() => {
      throw new Error('the API exited during start-up');
    }),
  ]);
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** parseArgs options of the benches whose API nodes share PostgreSQL and Redis. */
export const CLUSTER_OPTIONS = {
  pg: {
    type: 'string',
    default: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  },
  redis: { type: 'string', default: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' },
} as const;

/** The environment of API nodes sharing the database `dbUrl` and Redis under a key prefix of their own. */
export function clusterEnv(dbUrl: string, redisUrl: string): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: dbUrl,
    REDIS_URL: redisUrl,
    EVENT_PREFIX: `rbbench-${randomBytes(4).toString('hex')}`,
    AUTH_SECRET: randomBytes(32).toString('hex'),
  };
}

/** A fresh database on the server `adminUrl` points at, dropped by `drop`. */
export async function scratchDatabase(
  adminUrl: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `rb_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface Seeded {
  stationId: string;
  username: string;
  slug: string;
  /** `Authorization` header of the owner. */
  auth: { Authorization: string };
  /** The station's stream key (publishes with WHIP as a bearer token). */
  streamToken: string;
}

/** A broadcaster and a station with now playing set, through the real endpoints. */
export async function seedStation(base: string): Promise<Seeded> {
  const username = `bench${randomBytes(4).toString('hex')}`;
  const signUp = await fetch(`${base}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      email: `${username}@example.com`,
      password: `bench ${randomBytes(12).toString('hex')}`,
      name: 'Bench Broadcaster',
      username,
    }),
  });
  if (!signUp.ok) throw new Error(`sign-up: ${signUp.status} ${await signUp.text()}`);
  const auth = { Authorization: `Bearer ${((await signUp.json()) as { token: string }).token}` };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  const { station, streamToken } = (await post('/api/stations', {
    name: 'Night Owls Bench',
    description: 'Late-night jazz, soul and whatever the host is in the mood for.',
  })) as { station: { id: string; slug: string }; streamToken: { token: string } };
  await post('/api/stations/now-playing', {
    stationId: station.id,
    track: 'So What',
    artist: 'Miles Davis',
    album: 'Kind of Blue',
  });
  return {
    stationId: station.id,
    username,
    slug: station.slug,
    auth,
    streamToken: streamToken.token,
  };
}

/** CPU time (user + system) a process used so far, in seconds (Linux). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of the full line, in clock ticks (100 per second).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The median of the values (NaN when none), by the shared helper. */
export function median(values: number[]): number {
  return sharedMedian(values) ?? NaN;
}

/** Nearest-rank quantile (`q` in 0..1), by the shared helper. */
export { nearestRank as quantile } from '@radiobroadcaster/contracts';

/** A plain text table, first column left-aligned, the others right-aligned. */
export function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export const fmt = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : '—';
