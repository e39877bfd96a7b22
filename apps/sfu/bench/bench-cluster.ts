/**
 * `npm run bench:cluster`: listeners held with < 0.5 % loss by 2 SFU node processes against 1, on this
 * machine, with the real processes: SFU node(s) (`dist/node/main.js`), one API node in cluster mode
 * (embedded PGlite, Redis at REDIS_URL), the CLI broadcasting a tone, and the CLI `load` command
 * driving the listeners through the API (join + WHEP), step by step.
 *
 * Options: --steps 50,100,150 (listeners per step), --hold 10 (s), --ramp 40 (joins/s),
 * --concurrency 4, --configs 1,2 (SFU processes).
 * The 1-process run gives its node 2 listener shards (worker threads); in the 2-process run each node
 * has 1, so both use the same number of SFU threads. On a small machine the load generator (werift
 * listeners in the CLI process) competes for the same cores: the figures are per machine, not per SFU.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SFU_SECRET_HEADER, type NodeInfo } from '../src/protocol/schemas.js';

// Built to apps/sfu/bench/dist/bench/bench-cluster.js (apps/sfu/bench/tsconfig.json).
const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));
const SFU_MAIN = join(ROOT, 'apps/sfu/dist/node/main.js');
const API_MAIN = join(ROOT, 'apps/api/dist/main.js');
const CLI_MAIN = join(ROOT, 'apps/cli/dist/main.js');

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : def;
};
const steps = arg('steps', '100,200,400,600,800').split(',').map(Number);
const holdS = Number(arg('hold', '10'));
const ramp = Number(arg('ramp', '40'));
const concurrency = Number(arg('concurrency', '4'));
const configs = arg('configs', '1,2').split(',').map(Number);
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const LOSS_LIMIT = 0.5;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const children = new Set<ChildProcess>();

function start(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready?: RegExp,
): Promise<{ child: ChildProcess; match: RegExpExecArray | null; out: () => string }> {
  const child = spawn(process.execPath, [file, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file} did not start:\n${out}`)), 30_000);
    const onData = (c: Buffer) => {
      out += c.toString();
      if (out.length > 200_000) out = out.slice(-100_000);
      const m = ready ? ready.exec(out) : null;
      if (!ready || m) {
        clearTimeout(timer);
        resolve({ child, match: m, out: () => out });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    if (!ready) onData(Buffer.alloc(0));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited with ${code}:\n${out.slice(-2000)}`));
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([done, sleep(5000)]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

async function json<T>(url: string, init?: RequestInit): Promise<T> {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

interface LoadSummary {
  requested: number;
  connected: number;
  failed: number;
  lossPercent: { p50?: number; p95?: number; max?: number; mean?: number };
  firstAudioMs: { p50?: number; p95?: number };
  silent: number;
  errors: Record<string, number>;
}

interface StepResult {
  listeners: number;
  connected: number;
  lossMean?: number;
  lossP95?: number;
  perNode: string;
  held: boolean;
}

async function runConfig(nodes: number): Promise<StepResult[]> {
  const prefix = `rbbench-${randomBytes(3).toString('hex')}`;
  const secret = randomBytes(16).toString('hex');
  const shards = nodes === 1 ? '2' : '1';
  const sfus: { url: string; child: ChildProcess }[] = [];
  for (let i = 0; i < nodes; i++) {
    const { child, match } = await start(
      SFU_MAIN,
      [],
      {
        REDIS_URL: redisUrl,
        EVENT_PREFIX: prefix,
        SFU_SECRET: secret,
        SFU_NODE_ID: `${prefix}-${i}`,
        SFU_HTTP_HOST: '127.0.0.1',
        SFU_HTTP_PORT: '0',
        SFU_SHARDS: shards,
        SFU_MAX_LISTENERS: '0',
      },
      /listening on (http:\/\/127\.0\.0\.1:\d+)/,
    );
    sfus.push({ url: match![1]!, child });
  }
  const api = await start(
    API_MAIN,
    [],
    {
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'rb-bench-cluster-')),
      REDIS_URL: redisUrl,
      EVENT_PREFIX: prefix,
      SFU_MODE: 'remote',
      SFU_SECRET: secret,
      RATE_LIMIT_JOIN_PER_MINUTE: '1000000',
      // the benchmark's listeners all come from one address, and it looks for the limits
      MAX_LISTENERS_PER_IP: '0',
      VIEWER_COUNT_PER_ADDRESS: '0',
      MAX_LISTENERS_PER_STATION: '0',
      RATE_LIMIT_AUTH_PER_MINUTE: '1000',
    },
    /listening on (http:\/\/127\.0\.0\.1:\d+)/,
  );
  const server = api.match![1]!;
  const results: StepResult[] = [];
  let broadcaster: ChildProcess | undefined;
  try {
    const username = `bench${randomBytes(3).toString('hex')}`;
    const signup = await json<{ token: string }>(`${server}/api/auth/sign-up/email`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        email: `${username}@example.com`,
        password: 'correct horse battery',
        name: username,
        username,
      }),
    });
    const created = await json<{
      station: { id: string; slug: string };
      streamToken: { token: string };
    }>(`${server}/api/stations`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${signup.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Bench' }),
    });
    const station = `${username}/${created.station.slug}`;
    broadcaster = (
      await start(
        CLI_MAIN,
        [
          'broadcast',
          '--server',
          server,
          '--station',
          station,
          '--token',
          created.streamToken.token,
          '--tone',
          '440',
        ],
        {},
      )
    ).child;
    for (let i = 0; ; i++) {
      const s = await json<{ status: string }>(`${server}/api/stations/${created.station.id}`);
      if (s.status === 'live') break;
      if (i > 100) throw new Error('station never went live');
      await sleep(100);
    }
    await sleep(2000);
    for (const n of steps) {
      const load = spawn(
        process.execPath,
        [
          CLI_MAIN,
          'load',
          '--server',
          server,
          '--station',
          station,
          '--listeners',
          String(n),
          '--ramp',
          String(ramp),
          '--concurrency',
          String(concurrency),
          '--duration',
          String(holdS),
          '--json',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      children.add(load);
      let stdout = '';
      load.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
      load.stderr!.resume();
      // Sample the nodes' audience while the listeners are held.
      let perNode = '';
      let best = -1;
      const sampler = setInterval(async () => {
        try {
          const infos = await Promise.all(
            sfus.map((s) =>
              json<NodeInfo>(`${s.url}/v1/info`, { headers: { [SFU_SECRET_HEADER]: secret } }),
            ),
          );
          const total = infos.reduce((a, i) => a + i.listeners, 0);
          if (total > best) best = total;
          if (total === best)
            perNode = infos.map((i) => `${i.listeners}${i.relays ? '+relay' : ''}`).join(' / ');
        } catch {
          /* a node busy: keep the last sample */
        }
      }, 1000);
      await new Promise((r) => load.once('exit', r));
      clearInterval(sampler);
      children.delete(load);
      const line = stdout.trim().split('\n').pop() ?? '';
      let summary: LoadSummary | null = null;
      try {
        summary = JSON.parse(line) as LoadSummary;
      } catch {
        summary = null;
      }
      const lossMean = summary?.lossPercent.mean;
      const lossP95 = summary?.lossPercent.p95;
      const held =
        !!summary &&
        summary.connected === n &&
        summary.silent === 0 &&
        (lossMean ?? 100) < LOSS_LIMIT;
      results.push({
        listeners: n,
        connected: summary?.connected ?? 0,
        lossMean,
        lossP95,
        perNode,
        held,
      });
      console.log(
        `  ${nodes} SFU process(es), ${n} listeners: connected ${summary?.connected ?? '?'}, ` +
          `loss mean ${lossMean ?? '?'} % p95 ${lossP95 ?? '?'} %, per node ${perNode} → ${held ? 'held' : 'NOT held'}`,
      );
      for (const [why, count] of Object.entries(summary?.errors ?? {}))
        console.log(`    join failed ×${count}: ${why}`);
      if (!held) break;
      await sleep(2000);
    }
  } finally {
    if (broadcaster) await stop(broadcaster);
    await stop(api.child);
    await Promise.all(sfus.map((s) => stop(s.child)));
  }
  return results;
}

process.on('SIGINT', () => {
  for (const c of children) c.kill('SIGKILL');
  process.exit(130);
});

console.log(
  `bench:cluster — steps ${steps.join(', ')} listeners, hold ${holdS} s, ramp ${ramp}/s, loss limit ${LOSS_LIMIT} % (mean over listeners)`,
);
const summary: { nodes: number; held: number; at?: StepResult }[] = [];
for (const nodes of configs) {
  const results = await runConfig(nodes);
  const best = results.filter((r) => r.held).pop();
  summary.push({ nodes, held: best?.listeners ?? 0, at: best });
}
console.log('\nlisteners held with < 0.5 % loss on this machine:');
for (const s of summary) {
  console.log(
    `  ${s.nodes} SFU process${s.nodes > 1 ? 'es' : ''}: ${s.held}` +
      (s.at
        ? ` (loss mean ${s.at.lossMean} %, p95 ${s.at.lossP95} %; per node ${s.at.perNode})`
        : ''),
  );
}
console.log(`  (largest step tried: ${Math.max(...steps)})`);
process.exit(0);
