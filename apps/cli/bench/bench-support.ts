/**
 * What the CLI's benchmarks (sfu-bench, net-bench) share: node child processes with their output
 * collected, the API as they run it, the bench station, and the CLI's broadcaster and load runs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadSummary } from '@radiobroadcaster/cli';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
/** The repository's root and the built API and CLI entry points. */
export const BENCH_PATHS = {
  root,
  api: join(root, 'apps/api/dist/main.js'),
  cli: join(root, 'apps/cli/dist/main.js'),
};

export interface NodeRun {
  child: ChildProcess;
  /** The exit code (null when killed by a signal). */
  done: Promise<number | null>;
  /** stdout and stderr so far. */
  out: () => string;
}

/**
 * Node running `args`, behind `wrapper` when given (`taskset -c 0`, `ip netns exec ns`), with `env`
 * over this process's; stdout is also echoed here with `echo`.
 */
export function runNode(
  args: string[],
  {
    env = {},
    wrapper = [],
    echo = false,
  }: { env?: NodeJS.ProcessEnv; wrapper?: string[]; echo?: boolean } = {},
): NodeRun {
  const argv = [...wrapper, process.execPath, ...args];
  const child = spawn(argv[0]!, argv.slice(1), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
    if (echo) process.stdout.write(c);
  });
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const done = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, done, out: () => out };
}

/**
 * The API's environment in a benchmark: no PostgreSQL or Redis, data in `dataDir`, and no limit
 * that would stop the load (its listeners all come from one address); `env` adds or overrides.
 */
export function benchApiEnv(dataDir: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    REDIS_URL: '',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_JOIN_PER_MINUTE: '100000',
    RATE_LIMIT_AUTH_PER_MINUTE: '1000',
    MAX_LISTENERS_PER_IP: '0',
    VIEWER_COUNT_PER_ADDRESS: '0',
    MAX_LISTENERS_PER_STATION: '0',
    SFU_MAX_LISTENERS: '0',
    ...env,
  };
}

/** The bench station's address (`bench/bench-fm`). */
export const BENCH_STATION = 'bench/bench-fm';

/** The bench station's status ('live', 'offline', …) as the public read at `baseUrl` answers it. */
export async function benchStationStatus(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/api/users/bench/stations/bench-fm`);
  return ((await res.json()) as { status: string }).status;
}

/** Signs up the bench user at the API `baseUrl`, creates "Bench FM" and answers with its stream token. */
export async function createBenchStation(baseUrl: string): Promise<string> {
  const json = async (path: string, body: unknown, token?: string) => {
    const res = await fetch(baseUrl + path, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  const user = await json('/api/auth/sign-up/email', {
    email: 'bench@example.com',
    password: 'correct horse battery',
    name: 'Bench',
    username: 'bench',
  });
  const created = await json('/api/stations', { name: 'Bench FM' }, user.token as string);
  return (created.streamToken as { token: string }).token;
}

/** The CLI's arguments for broadcasting a 440 Hz tone to the bench station, logging what it sends to `sent`. */
export const broadcastArgs = (server: string, token: string, sent: string): string[] => [
  BENCH_PATHS.cli,
  'broadcast',
  '--station',
  BENCH_STATION,
  '--server',
  server,
  '--token',
  token,
  '--tone',
  '440',
  '--record',
  sent,
];

/** The CLI's arguments for `load` listeners of the bench station, measured against the log `sent`. */
export const loadArgs = (
  server: string,
  o: { listeners: number; rampS: number; durationS: number; sent: string; concurrency?: number },
): string[] => [
  BENCH_PATHS.cli,
  'load',
  '--station',
  BENCH_STATION,
  '--server',
  server,
  '--listeners',
  String(o.listeners),
  '--ramp',
  String(o.rampS),
  '--concurrency',
  String(o.concurrency ?? 4),
  '--duration',
  String(o.durationS),
  '--json',
  '--publisher-log',
  o.sent,
];

/** The JSON summary a finished `load` run printed last. */
export function loadSummary(load: NodeRun): LoadSummary {
  const line = load
    .out()
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{'));
  if (!line) throw new Error(`load printed no summary:\n${load.out()}`);
  return JSON.parse(line) as LoadSummary;
}
