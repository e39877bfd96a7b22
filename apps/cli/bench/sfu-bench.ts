/**
 * `npm run bench:sfu`: the SFU's figures on this machine.
 *  1. Capacity: apps/sfu's fan-out bench (engine + publisher in one process, listeners in another)
 *     at rising listener counts, as deployed (one UDP port) and with the product's admission (each
 *     shard takes what it measures it can hold; `--admission off` looks for the breaking point
 *     instead) → the most listeners held with < 0.5 % loss, joins per second and first audio
 *     during each ramp, joins refused, SFU CPU per 100 listeners, memory per listener.
 *  2. The product path: `npm start`'s API + SFU, the CLI broadcasting a tone and `load` listeners
 *     → join-to-first-audio and publisher-to-listener latency (p50/p95), loss.
 *  3. One UDP port per node vs a socket per session: part 1 in both modes, alternating, `--port-rounds`
 *     times (default 2) at `--port-steps`; medians of the most listeners held and of the CPU per packet.
 * Options: --shards N --steps 100,200,… --srtp cm|gcm --admission measured|off --transport port|socket
 *   --listeners N (part 2) --no-pin --port-rounds N (0 skips part 3) --port-steps 600,1200,…
 *   --engine werift|mediasoup (the SFU engine of parts 1 and 2; mediasoup needs its worker, see
 *   scripts/build-mediasoup-worker.sh; its CPU counts the worker processes with the Node controller)
 * The engines side by side (`--engine both`, or one engine with `--runs N`): instead of parts 1–3,
 * `--runs` rounds (default 3) of, for each engine in turn, the fan-out with admission off (the
 * breaking point) on one pinned core (worker and controller, or werift's shard and main thread,
 * on core 0; the load generator on core 1) and then with `--compare-shards` (default 2)
 * workers/shards unpinned (listeners on loopback: the listeners' host needs a pinned load
 * generator). Its first step is the ramp 0 → `--steps`' first count (default 1000). One table:
 * medians of the runs per engine and the ratio mediasoup/werift.
 *   npm run bench:sfu -- --engine both --runs 3
 * Pinned (the default where `taskset` exists and there are 2+ cores): the SFU process (one shard) on
 * core 0 and its load generator on core 1, so "listeners per core" is a clean figure.
 * `--net netns` (the default when pinned, as root, with ip, tc, ethtool and nft): the listeners on a
 * second host (a network namespace over a veth pair) whose network stack runs on the load
 * generator's core, as their own machines' would (apps/sfu/bench/listener-host.ts); on
 * loopback the SFU's core also receives every datagram for its listeners. `--net loopback` measures
 * that way.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  BENCH_PATHS,
  benchApiEnv,
  benchStationStatus,
  broadcastArgs,
  createBenchStation,
  loadArgs,
  loadSummary,
  runNode,
} from './bench-support.js';

const has = (cmd: string, args: string[]) => {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const hasTaskset = has('taskset', ['-V']);
/** What the listeners' host needs (listener-host.ts); the reason it cannot be used, or null. */
const netnsMissing = (() => {
  if (process.getuid?.() !== 0) return 'not root';
  const missing = [
    ['ip', ['-V']],
    ['tc', ['-V']],
    ['ethtool', ['--version']],
    ['nft', ['--version']],
  ].filter(([cmd, args]) => !has(cmd as string, args as string[]));
  return missing.length ? `missing ${missing.map(([c]) => c).join(', ')}` : null;
})();
const { values } = parseArgs({
  allowNegative: true,
  options: {
    pin: { type: 'boolean', default: hasTaskset && cpus().length >= 2 },
    engine: { type: 'string', default: 'werift' },
    shards: { type: 'string' },
    steps: { type: 'string' },
    admission: { type: 'string' },
    runs: { type: 'string' },
    'compare-shards': { type: 'string', default: '2' },
    transport: { type: 'string', default: 'port' },
    srtp: { type: 'string', default: 'cm' },
    window: { type: 'string', default: '15' },
    net: { type: 'string' },
    listeners: { type: 'string', default: '50' },
    'skip-capacity': { type: 'boolean', default: false },
    'skip-product': { type: 'boolean', default: false },
    'port-rounds': { type: 'string', default: '2' },
    'port-steps': { type: 'string', default: '1000,1500,2000' },
  },
});

const FANOUT = join(BENCH_PATHS.root, 'apps/sfu/bench/dist/bench/fanout.js');

const ENGINES = ['werift', 'mediasoup'] as const;
type Engine = (typeof ENGINES)[number];
if (values.engine !== 'both' && !(ENGINES as readonly string[]).includes(values.engine!)) {
  throw new Error(`--engine must be werift, mediasoup or both (got ${values.engine})`);
}
/** Side by side: both engines, or one engine's runs, medians in one table (see the header). */
const compare = values.engine === 'both' || values.runs !== undefined;
const runs = Number(values.runs ?? '3');
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a positive integer');
const admission = values.admission ?? (compare ? 'off' : 'measured');
const stepsList =
  values.steps ?? (compare ? '1000,1500,2000,2500,3000' : '500,1000,1500,2000,2500');

const pinned = values.pin!;

const shards = values.shards ?? (pinned ? '1' : String(cpus().length));
const net = values.net ?? (pinned && !netnsMissing ? 'netns' : 'loopback');
if (net === 'netns' && netnsMissing) throw new Error(`--net netns: ${netnsMissing}`);
const netNoteOf = (n: string) =>
  n === 'netns'
    ? "listeners on a second host (network namespace), their network stack on the load generator's core"
    : `listeners on loopback: the SFU's core also receives their datagrams${values.net ? '' : ` (netns: ${netnsMissing ?? 'not pinned'})`}`;

/** One fan-out run's set-up: the engine, its shards/workers, pinned or not, where the listeners are. */
interface RunSetup {
  engine: string;
  shards: string;
  pinned: boolean;
  net: string;
}
const defaultSetup: RunSetup = { engine: values.engine!, shards, pinned, net };

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
  /** first audio of the listeners that joined during this step's ramp, ms */
  firstP50: number;
  firstP95: number;
  /** listeners admitted and connected per second during the ramp */
  joinsPerS: number;
  /** loss of the listeners already held while the new ones joined, % */
  rampLoss: number;
  /** CPU of the shard threads alone, % of one core */
  shardCpu: number;
  /** listeners the shards measured they can hold (what admission would allow) */
  measuredCapacity: number;
  /** joins admission refused during the step */
  refused: number;
}

/** The SFU process's fast-path report (printed by the fan-out bench), for the summary. */
let fastPathLine: string | undefined;

async function capacity(
  title = '1. Capacity',
  stepList = stepsList,
  extra: string[] = [],
  setup: RunSetup = defaultSetup,
): Promise<Step[]> {
  console.log(
    `\n## ${title} (fan-out bench, ${setup.engine} engine, ${setup.shards} ${setup.engine === 'mediasoup' ? 'worker(s)' : 'shard(s)'}, SRTP ${values.srtp}${setup.pinned ? '; SFU pinned to core 0, load generator to core 1' : ', unpinned'}; ${netNoteOf(setup.net)})\n`,
  );
  const p = runNode(
    [
      FANOUT,
      ...extra,
      '--engine',
      setup.engine,
      '--shards',
      setup.shards,
      '--steps',
      stepList,
      '--srtp',
      values.srtp!,
      '--window',
      values.window!,
      ...(setup.pinned ? ['--sink-cpu', '1'] : []),
      '--listener-host',
      setup.net,
    ],
    // pinned: the fan-out process, and mediasoup's worker processes it starts, on core 0
    { echo: true, wrapper: setup.pinned ? ['taskset', '-c', '0'] : [] },
  );
  await p.done;
  const steps: Step[] = [];
  const requested = stepList.split(',').map(Number);
  fastPathLine ??= /^fast paths: (.*)$/m.exec(p.out())?.[1];
  for (const line of p.out().split('\n')) {
    // printed after its step's row
    const refused = /joins refused by admission: (\d+)/.exec(line);
    if (refused && steps.length) steps[steps.length - 1]!.refused = Number(refused[1]);
    const cols = line.trim().split(/\s+/);
    if (cols.length < 10 || !/^\d+$/.test(cols[0]!)) continue;
    steps.push({
      requested: requested[steps.length] ?? NaN,
      listeners: Number(cols[0]),
      loss: Number(cols[1]),
      // mediasoup: the SFU's CPU is its controller's (procCPU) and its worker's (shardCPU) together
      procCpu: Number(cols[5]) + (setup.engine === 'mediasoup' ? Number(cols[14]) : 0),
      usPerPkt: Number(cols[6]),
      rssKiB: Number(cols[9]),
      sinkCpu: Number(cols[10]),
      firstP50: Number(cols[7]!.split('/')[0]),
      firstP95: Number(cols[7]!.split('/')[1]),
      joinsPerS: Number(cols[11]),
      rampLoss: Number(cols[12]),
      shardCpu: Number(cols[14]),
      measuredCapacity: Number(cols[15]),
      refused: 0,
    });
  }
  return steps;
}

async function productPath(listeners: number) {
  console.log(
    `\n## 2. Product path (API + SFU as npm start runs it, CLI tone, ${listeners} CLI listeners)\n`,
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'rb-bench-'));
  const api = runNode([BENCH_PATHS.api], {
    env: benchApiEnv(dataDir, { PORT: '0', HOST: '127.0.0.1', MEDIA_ENGINE: values.engine }),
  });
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
    const token = await createBenchStation(url);
    const sent = join(dataDir, 'sent.ndjson');
    const broadcast = runNode(broadcastArgs(url, token, sent));
    for (let i = 0; i < 150; i++) {
      if ((await benchStationStatus(url)) === 'live') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const load = runNode(loadArgs(url, { listeners, rampS: 10, durationS: 10, sent }));
    await load.done;
    broadcast.child.kill('SIGTERM');
    await broadcast.done;
    return loadSummary(load);
  } finally {
    api.child.kill('SIGTERM');
    await api.done;
  }
}

/** The most listeners held with < 0.5 % loss (the step that held them). */
const mostHeld = (list: Step[]) => {
  const held = list.filter((s) => s.loss < 0.5);
  return held.length ? held.reduce((a, b) => (b.listeners > a.listeners ? b : a)) : undefined;
};
const median = (a: number[]) => {
  const s = [...a].filter((x) => Number.isFinite(x)).sort((x, y) => x - y);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : NaN;
};

/** What one side-by-side run measured (NaN where nothing held). */
interface Figures {
  held: number;
  usPerPkt: number;
  cpuPer100: number;
  rssKiBPerListener: number;
  rampJoinsPerS: number;
  rampFirstP95: number;
  rampLoss: number;
}
const figuresOf = (list: Step[]): Figures => {
  const best = mostHeld(list);
  const ramp = list[0];
  return {
    held: best?.listeners ?? 0,
    usPerPkt: best?.usPerPkt ?? NaN,
    cpuPer100: best ? (best.procCpu / best.listeners) * 100 : NaN,
    rssKiBPerListener: best?.rssKiB ?? NaN,
    rampJoinsPerS: ramp?.joinsPerS ?? NaN,
    rampFirstP95: ramp?.firstP95 ?? NaN,
    rampLoss: ramp?.rampLoss ?? NaN,
  };
};

/** `--engine both` / `--runs N`: the engines side by side, medians and ratios in one table. */
async function compareEngines(): Promise<void> {
  const engines: Engine[] = values.engine === 'both' ? [...ENGINES] : [values.engine as Engine];
  const wide = values['compare-shards']!;
  const modes = [
    {
      key: 'pinned',
      label: `one core (1 worker/shard${pinned ? ', SFU on core 0, load generator on core 1' : ', not pinned: no taskset or one core'})`,
      setup: (engine: Engine): RunSetup => ({ engine, shards: '1', pinned, net }),
    },
    {
      key: 'wide',
      label: `${wide} workers/shards, unpinned (listeners on loopback)`,
      setup: (engine: Engine): RunSetup => ({
        engine,
        shards: wide,
        pinned: false,
        net: 'loopback',
      }),
    },
  ] as const;
  const results = new Map<string, Figures[]>();
  const started = Date.now();
  for (let r = 1; r <= runs; r++) {
    for (const mode of modes) {
      for (const engine of engines) {
        const list = await capacity(
          `Run ${r}/${runs}: ${engine}, ${mode.label}, admission ${admission}`,
          stepsList,
          ['--admission', admission === 'off' ? 'off' : 'measured', '--udp-port', '0'],
          mode.setup(engine),
        );
        const key = `${mode.key}/${engine}`;
        results.set(key, [...(results.get(key) ?? []), figuresOf(list)]);
      }
    }
  }
  const first = stepsList.split(',')[0];
  const rows: [string, keyof Figures, number][] = [
    ['listeners held at < 0.5 % loss', 'held', 0],
    ['CPU per packet per listener, µs', 'usPerPkt', 2],
    ['SFU CPU per 100 listeners, % of a core', 'cpuPer100', 2],
    ['memory per listener, KiB RSS', 'rssKiBPerListener', 0],
    [`joins/s during the ramp 0 → ${first}`, 'rampJoinsPerS', 1],
    [`first audio p95 during the ramp 0 → ${first}, ms`, 'rampFirstP95', 0],
    [`loss of listeners held during that ramp, %`, 'rampLoss', 3],
  ];
  const fmt = (v: number, digits: number) => (Number.isFinite(v) ? v.toFixed(digits) : '-');
  console.log(
    `\n## werift and mediasoup side by side: medians of ${runs} run(s) each (${((Date.now() - started) / 60000).toFixed(1)} min; SRTP ${values.srtp}, window ${values.window} s, steps ${stepsList}, admission ${admission}; CPU counts mediasoup's worker with its Node controller)\n`,
  );
  const header = ['', ...engines.map((e) => `${e} (median of ${runs})`)];
  if (engines.length === 2) header.push('mediasoup/werift');
  const table: string[][] = [header];
  for (const mode of modes) {
    table.push([`${mode.label}:`]);
    for (const [label, key, digits] of rows) {
      const meds = engines.map((e) =>
        median((results.get(`${mode.key}/${e}`) ?? []).map((f) => f[key])),
      );
      const row = [`  ${label}`, ...meds.map((m) => fmt(m, digits))];
      if (engines.length === 2) row.push(fmt(meds[1]! / meds[0]!, 2));
      table.push(row);
    }
  }
  const cells = table.filter((row) => row.length > 1);
  const widths = header.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  for (const row of table) {
    console.log(
      row.length === 1
        ? row[0]
        : row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '),
    );
  }
  console.log('\nruns (listeners held, µs per packet per listener):');
  for (const [key, list] of results) {
    console.log(`  ${key}: ${list.map((f) => `${f.held} @ ${fmt(f.usPerPkt, 1)} µs`).join('; ')}`);
  }
}

if (compare) {
  await compareEngines();
  process.exit(0);
}

const steps = values['skip-capacity']
  ? []
  : await capacity(
      `1. Capacity (${values.transport === 'socket' ? 'a socket per session' : 'one UDP port, as deployed'}; admission ${admission === 'off' ? 'off: the breaking point' : 'as the product runs it'})`,
      stepsList,
      [
        '--admission',
        admission === 'off' ? 'off' : 'measured',
        ...(values.transport === 'socket' ? [] : ['--udp-port', '0']),
      ],
    );
const product = values['skip-product'] ? undefined : await productPath(Number(values.listeners));

/** Part 3: the same fan-out with one UDP port per node and with a socket per session, alternating. */
const portRounds = Number(values['port-rounds']);
const portRuns: Record<'socket' | 'port', { held: number; usPerPkt: number }[]> = {
  socket: [],
  port: [],
};
for (let r = 1; r <= portRounds; r++) {
  for (const mode of ['socket', 'port'] as const) {
    const list = await capacity(
      `3. ${mode === 'port' ? 'One UDP port for every session' : 'A socket per session'}, round ${r}/${portRounds}`,
      values['port-steps']!,
      mode === 'port' ? ['--udp-port', '0'] : [],
    );
    const best = mostHeld(list);
    portRuns[mode].push({ held: best?.listeners ?? 0, usPerPkt: best?.usPerPkt ?? NaN });
  }
}

console.log('\n## Summary\n');
console.log(`fast paths (SFU process):           ${fastPathLine ?? 'not reported'}`);
const best = mostHeld(steps);
if (best) {
  console.log(
    `most listeners held with < 0.5 % loss: ${best.listeners} of ${best.requested} asked for (${shards} shard(s)${pinned ? ' on one pinned core' : ''}, SRTP ${values.srtp}; loss ${best.loss} %)`,
  );
  console.log(
    `ramp to that step:                  ${best.joinsPerS} joins/s, first audio p50 ${best.firstP50} ms / p95 ${best.firstP95} ms, loss of listeners already held ${best.rampLoss} %`,
  );
  console.log(
    `SFU CPU per 100 listeners:          ${((best.procCpu / best.listeners) * 100).toFixed(1)} % of one core (${best.usPerPkt} µs per packet per listener)`,
  );
  console.log(
    `capacity the shard measured:        ${best.measuredCapacity} listeners (admission's limit at 80 % of a core; shard thread at ${best.shardCpu} %)`,
  );
  console.log(
    `each ramp (asked: held, joins/s, first audio p95, loss of those held, refused): ${steps
      .map(
        (s) =>
          `${s.requested}: ${s.listeners}, ${s.joinsPerS}/s, ${s.firstP95} ms, ${s.rampLoss} %, ${s.refused}`,
      )
      .join('; ')}`,
  );
  console.log(`memory per listener:                ${(best.rssKiB / 1024).toFixed(2)} MiB RSS`);
  console.log(
    `load generator at that step:        ${best.sinkCpu} % of one core (SFU process ${best.procCpu} %, ${pinned ? 'each pinned to its own core' : `on ${cpus().length} cores`})`,
  );
  console.log(
    `→ listeners per core at that cost:  ~${Math.round((100 / ((best.procCpu / best.listeners) * 100)) * 100)}`,
  );
} else if (steps.length) {
  console.log('no step held < 0.5 % loss');
}
if (product) {
  console.log(
    `join → first audio packet:          p50 ${product.firstAudioMs.p50} ms, p95 ${product.firstAudioMs.p95} ms (${product.connected}/${product.requested} listeners)`,
  );
  console.log(
    `publisher → listener latency:       p50 ${product.latency?.latencyMs.p50} ms, p95 ${product.latency?.latencyMs.p95} ms (loopback, CLI publisher and listeners)`,
  );
  console.log(
    `loss on the product path:           p50 ${product.lossPercent.p50} %, max ${product.lossPercent.max} %; payload mismatches ${product.latency?.payloadsMismatched}`,
  );
}
if (portRounds > 0) {
  const fmt = (mode: 'socket' | 'port') => {
    const runs = portRuns[mode];
    return `median ${median(runs.map((r) => r.held))} listeners, ${median(runs.map((r) => r.usPerPkt)).toFixed(1)} µs per packet per listener (runs: ${runs.map((r) => r.held).join(', ')})`;
  };
  console.log(
    `one UDP port for every session:     ${fmt('port')}\na socket per session:               ${fmt('socket')}\n  (most listeners held with < 0.5 % loss, ${shards} shard(s)${pinned ? ' on one pinned core' : ''}, steps ${values['port-steps']}, ${portRounds} alternating rounds)`,
  );
}
process.exit(0);
