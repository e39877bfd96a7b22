/**
 * `npm run bench:sfu`: the SFU's figures on this machine.
 *  1. Capacity: apps/sfu's fan-out bench (engine + publisher in one process, listeners in another)
 *     at rising listener counts → the most listeners held with < 0.5 % loss, SFU CPU per 100
 *     listeners, memory per listener.
 *  2. The product path: `npm start`'s API + SFU, the CLI broadcasting a tone and `load` listeners
 *     → join-to-first-audio and publisher-to-listener latency (p50/p95), loss.
 * Options: --shards N (default: cores) --steps 100,200,… --srtp cm|gcm --listeners N (part 2)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    shards: { type: 'string', default: String(cpus().length) },
    steps: { type: 'string', default: '200,400,600,800,1000,1200,1400,1600' },
    srtp: { type: 'string', default: 'cm' },
    window: { type: 'string', default: '8' },
    listeners: { type: 'string', default: '50' },
    'skip-capacity': { type: 'boolean', default: false },
  },
});

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const FANOUT = join(root, 'apps/sfu/dist/bench/fanout.js');
const API = join(root, 'apps/api/dist/main.js');
const CLI = join(root, 'apps/cli/dist/main.js');

function run(cmd: string[], env: NodeJS.ProcessEnv = {}, echo = true) {
  const child = spawn(process.execPath, cmd, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
    if (echo) process.stdout.write(c);
  });
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const done = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, done, out: () => out };
}

interface Step {
  /** listeners asked for at this step */
  requested: number;
  listeners: number;
  loss: number;
  procCpu: number;
  rssKiB: number;
  usPerPkt: number;
  /** CPU of the process holding the benchmark's listeners (the load generator), % of one core */
  sinkCpu: number;
}

async function capacity(): Promise<Step[]> {
  console.log(`\n## 1. Capacity (fan-out bench, ${values.shards} shard(s), SRTP ${values.srtp})\n`);
  const p = run([
    FANOUT,
    '--shards',
    values.shards!,
    '--steps',
    values.steps!,
    '--srtp',
    values.srtp!,
    '--window',
    values.window!,
  ]);
  await p.done;
  const steps: Step[] = [];
  const requested = values.steps!.split(',').map(Number);
  for (const line of p.out().split('\n')) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 10 || !/^\d+$/.test(cols[0]!)) continue;
    steps.push({
      requested: requested[steps.length] ?? NaN,
      listeners: Number(cols[0]),
      loss: Number(cols[1]),
      procCpu: Number(cols[5]),
      usPerPkt: Number(cols[6]),
      rssKiB: Number(cols[9]),
      sinkCpu: Number(cols[10]),
    });
  }
  return steps;
}

async function productPath(listeners: number) {
  console.log(
    `\n## 2. Product path (API + SFU as npm start runs it, CLI tone, ${listeners} CLI listeners)\n`,
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'rb-bench-'));
  const api = run(
    [API],
    {
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      REDIS_URL: '',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_JOIN_PER_MINUTE: '100000',
      RATE_LIMIT_AUTH_PER_MINUTE: '1000',
    },
    false,
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(api.out());
      if (m) {
        clearInterval(timer);
        resolve(m[1]!);
      }
    }, 100);
    void api.done.then(() => reject(new Error(`API exited:\n${api.out()}`)));
  });
  try {
    const json = async (path: string, body: unknown, token?: string) => {
      const res = await fetch(url + path, {
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
      password: 'bench-password',
      name: 'Bench',
      username: 'bench',
    });
    const created = await json('/api/stations', { name: 'Bench FM' }, user.token as string);
    const token = (created.streamToken as { token: string }).token;
    const sent = join(dataDir, 'sent.ndjson');
    const broadcast = run(
      [
        CLI,
        'broadcast',
        '--station',
        'bench/bench-fm',
        '--server',
        url,
        '--token',
        token,
        '--tone',
        '440',
        '--record',
        sent,
      ],
      {},
      false,
    );
    for (let i = 0; i < 150; i++) {
      const s = (await (await fetch(`${url}/api/users/bench/stations/bench-fm`)).json()) as {
        status: string;
      };
      if (s.status === 'live') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const load = run(
      [
        CLI,
        'load',
        '--station',
        'bench/bench-fm',
        '--server',
        url,
        '--listeners',
        String(listeners),
        '--ramp',
        '10',
        '--concurrency',
        '4',
        '--duration',
        '10',
        '--json',
        '--publisher-log',
        sent,
      ],
      {},
      false,
    );
    await load.done;
    broadcast.child.kill('SIGTERM');
    await broadcast.done;
    const line = load
      .out()
      .trim()
      .split('\n')
      .reverse()
      .find((l) => l.startsWith('{'));
    if (!line) throw new Error(`load printed no summary:\n${load.out()}`);
    return JSON.parse(line) as {
      connected: number;
      requested: number;
      lossPercent: { p50?: number; max?: number };
      firstAudioMs: { p50?: number; p95?: number };
      latency?: { latencyMs: { p50?: number; p95?: number }; payloadsMismatched: number };
    };
  } finally {
    api.child.kill('SIGTERM');
    await api.done;
  }
}

const steps = values['skip-capacity'] ? [] : await capacity();
const product = await productPath(Number(values.listeners));

console.log('\n## Summary\n');
const held = steps.filter((s) => s.loss < 0.5);
const best = held.length ? held.reduce((a, b) => (b.listeners > a.listeners ? b : a)) : undefined;
if (best) {
  console.log(
    `most listeners held with < 0.5 % loss: ${best.listeners} of ${best.requested} asked for (${values.shards} shard(s), SRTP ${values.srtp}; loss ${best.loss} %)`,
  );
  console.log(
    `SFU CPU per 100 listeners:          ${((best.procCpu / best.listeners) * 100).toFixed(1)} % of one core (${best.usPerPkt} µs per packet per listener)`,
  );
  console.log(`memory per listener:                ${(best.rssKiB / 1024).toFixed(2)} MiB RSS`);
  console.log(
    `load generator at that step:        ${best.sinkCpu} % of one core (SFU process ${best.procCpu} %, on ${cpus().length} cores)`,
  );
  console.log(
    `→ listeners per core at that cost:  ~${Math.round((100 / ((best.procCpu / best.listeners) * 100)) * 100)}`,
  );
} else if (steps.length) {
  console.log('no step held < 0.5 % loss');
}
console.log(
  `join → first audio packet:          p50 ${product.firstAudioMs.p50} ms, p95 ${product.firstAudioMs.p95} ms (${product.connected}/${product.requested} listeners)`,
);
console.log(
  `publisher → listener latency:       p50 ${product.latency?.latencyMs.p50} ms, p95 ${product.latency?.latencyMs.p95} ms (loopback, CLI publisher and listeners)`,
);
console.log(
  `loss on the product path:           p50 ${product.lossPercent.p50} %, max ${product.lossPercent.max} %; payload mismatches ${product.latency?.payloadsMismatched}`,
);
process.exit(0);
