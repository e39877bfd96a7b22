/**
 * `npm run bench:net`: the live path over an emulated internet. The API with its embedded SFU, the
 * CLI broadcaster and the CLI listeners run in three network namespaces joined by veth pairs
 * (publisher ↔ SFU, SFU ↔ listeners), each link impaired like a real one:
 *   profile A: 50 ms RTT, 10 ms jitter, 1 % loss;  profile B: 150 ms RTT, 10 ms jitter, 3 % loss.
 * The impairment is `tc qdisc … netem` on both ends of each veth when the kernel has netem; without
 * it (CONFIG_NET_SCH_NETEM unset) the same delay, jitter and loss are applied at the client processes'
 * sockets (netem-shim.ts: both directions of their UDP, one round trip per HTTP request), and the
 * report says so. Reports per run and the median of the runs: join → first audio p50/p95, publisher →
 * listener latency p50/p95, and 20 ms frames still missing after recovery (NACK + Opus FEC): never
 * received, or received more than 250 ms after the gap showed (too late to play).
 * Needs root (ip netns); prints why and exits 0 otherwise.
 * Options: --runs 3 --listeners 20 --duration 30 (seconds of listening per run)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as bench from './bench-support.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    listeners: { type: 'string', default: '20' },
    duration: { type: 'string', default: '30' },
    /** Only the namespaces and veths, no impairment (a baseline). */
    baseline: { type: 'boolean', default: false },
    /** One custom profile instead of the two: "rttMs,jitterMs,lossPercent". */
    profile: { type: 'string' },
  },
});
const RUNS = Number(values.runs);
const LISTENERS = Number(values.listeners);
const DURATION_S = Number(values.duration);

const SHIM = join(bench.BENCH_PATHS.root, 'apps/cli/dist/bench/netem-shim.js');

const NS = { sfu: 'rbnet-sfu', pub: 'rbnet-pub', lis: 'rbnet-lis' } as const;
/** veth pairs: [end in ns A, address, end in ns B, address]; mgmt lets this process reach the API. */
const LINKS = [
  {
    name: 'pub',
    a: NS.sfu,
    aIf: 'rbn-sp',
    aIp: '10.201.1.1',
    b: NS.pub,
    bIf: 'rbn-ps',
    bIp: '10.201.1.2',
  },
  {
    name: 'lis',
    a: NS.sfu,
    aIf: 'rbn-sl',
    aIp: '10.201.2.1',
    b: NS.lis,
    bIf: 'rbn-ls',
    bIp: '10.201.2.2',
  },
  {
    name: 'mgmt',
    a: NS.sfu,
    aIf: 'rbn-sm',
    aIp: '10.201.9.2',
    b: null,
    bIf: 'rbn-ms',
    bIp: '10.201.9.1',
  },
];
const API_PORT = 3000;

interface Profile {
  name: string;
  rttMs: number;
  jitterMs: number;
  lossPercent: number;
}
const custom = values.profile?.split(',').map(Number);
const PROFILES: Profile[] = custom
  ? [
      {
        name: `${custom[0]} ms RTT, ${custom[1]} ms jitter, ${custom[2]} % loss`,
        rttMs: custom[0]!,
        jitterMs: custom[1]!,
        lossPercent: custom[2]!,
      },
    ]
  : values.baseline
    ? [{ name: 'no impairment (baseline)', rttMs: 0, jitterMs: 0, lossPercent: 0 }]
    : [
        { name: '50 ms RTT, 10 ms jitter, 1 % loss', rttMs: 50, jitterMs: 10, lossPercent: 1 },
        { name: '150 ms RTT, 10 ms jitter, 3 % loss', rttMs: 150, jitterMs: 10, lossPercent: 3 },
      ];

const sh = (cmd: string, args: string[]) =>
  execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
const inNs = (ns: string | null, cmd: string, args: string[]) =>
  ns ? sh('ip', ['netns', 'exec', ns, cmd, ...args]) : sh(cmd, args);

function skip(why: string): never {
  console.log(`bench:net skipped: ${why}`);
  process.exit(0);
}

function teardown(): void {
  for (const ns of Object.values(NS)) {
    try {
      sh('ip', ['netns', 'del', ns]);
    } catch {
      // not there
    }
  }
  try {
    sh('ip', ['link', 'del', 'rbn-ms']);
  } catch {
    // went with its namespace
  }
}

function setup(): void {
  teardown();
  for (const ns of Object.values(NS)) {
    sh('ip', ['netns', 'add', ns]);
    inNs(ns, 'ip', ['link', 'set', 'lo', 'up']);
  }
  for (const l of LINKS) {
    sh('ip', ['link', 'add', l.aIf, 'type', 'veth', 'peer', 'name', l.bIf]);
    sh('ip', ['link', 'set', l.aIf, 'netns', l.a]);
    if (l.b) sh('ip', ['link', 'set', l.bIf, 'netns', l.b]);
    inNs(l.a, 'ip', ['addr', 'add', `${l.aIp}/24`, 'dev', l.aIf]);
    inNs(l.a, 'ip', ['link', 'set', l.aIf, 'up']);
    inNs(l.b, 'ip', ['addr', 'add', `${l.bIp}/24`, 'dev', l.bIf]);
    inNs(l.b, 'ip', ['link', 'set', l.bIf, 'up']);
  }
}

/** netem on both ends of the publisher and listener links (each direction gets half the RTT). */
function applyNetem(p: Profile): void {
  const args = ['delay', `${p.rttMs / 2}ms`, `${p.jitterMs / 2}ms`, 'loss', `${p.lossPercent}%`];
  for (const l of LINKS.filter((x) => x.name !== 'mgmt')) {
    inNs(l.a, 'tc', ['qdisc', 'replace', 'dev', l.aIf, 'root', 'netem', ...args]);
    inNs(l.b, 'tc', ['qdisc', 'replace', 'dev', l.bIf, 'root', 'netem', ...args]);
  }
}

function kernelHasNetem(): boolean {
  try {
    inNs(NS.pub, 'tc', ['qdisc', 'replace', 'dev', 'rbn-ps', 'root', 'netem', 'delay', '1ms']);
    inNs(NS.pub, 'tc', ['qdisc', 'del', 'dev', 'rbn-ps', 'root']);
    return true;
  } catch {
    return false;
  }
}

const run = (ns: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  bench.runNode(args, { env, wrapper: ['ip', 'netns', 'exec', ns] });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface RunResult {
  firstAudioP50: number;
  firstAudioP95: number;
  latencyP50: number;
  latencyP95: number;
  /** % of 20 ms frames missing after recovery */
  lostPercent: number;
  /** % missing before recovery (asked for again) */
  rawLossPercent: number;
  recovered: number;
  connected: string;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  if (process.platform !== 'linux') skip('needs Linux network namespaces');
  if (process.getuid?.() !== 0) skip('needs root (ip netns, veth pairs, tc); run it as root');
  try {
    sh('ip', ['netns', 'list']);
  } catch {
    skip('`ip netns` is not available (apt-get install iproute2)');
  }
  try {
    setup();
  } catch (err) {
    teardown();
    skip(`could not create namespaces and veth pairs: ${(err as Error).message.split('\n')[0]}`);
  }
  const netem = kernelHasNetem();
  console.log(
    netem
      ? '# bench:net — tc netem on both ends of each veth\n'
      : '# bench:net — this kernel has no netem (CONFIG_NET_SCH_NETEM unset): the same delay, jitter and\n' +
          '# loss are applied at the client processes’ sockets (apps/cli/src/bench/netem-shim.ts)\n',
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'rb-bench-net-'));
  const api = run(
    NS.sfu,
    [bench.BENCH_PATHS.api],
    bench.benchApiEnv(dataDir, {
      PORT: String(API_PORT),
      HOST: '0.0.0.0',
      PUBLIC_URL: `http://${LINKS[1]!.aIp}:${API_PORT}`,
      RATE_LIMIT_PUBLISH_PER_MINUTE: '1000',
      // as the compose files and the Kubernetes manifests deploy it: one UDP and one TCP port
      RTC_UDP_PORT: '7882',
      RTC_TCP_PORT: '7881',
    }),
  );
  const mgmt = `http://${LINKS[2]!.aIp}:${API_PORT}`;
  try {
    for (let i = 0; ; i++) {
      if (api.child.exitCode !== null) throw new Error(`API exited:\n${api.out()}`);
      if (/listening on/.test(api.out())) break;
      if (i > 600) throw new Error(`API did not start:\n${api.out()}`);
      await sleep(100);
    }
    const token = await bench.createBenchStation(mgmt);

    const results = new Map<Profile, RunResult[]>();
    for (const p of PROFILES) {
      if (netem) applyNetem(p);
      const clientEnv = netem
        ? {}
        : { RB_NETEM: `delay=${p.rttMs / 2},jitter=${p.jitterMs / 2},loss=${p.lossPercent}` };
      const pre = netem ? [] : ['--import', SHIM];
      console.log(`## ${p.name}\n`);
      const list: RunResult[] = [];
      for (let r = 1; r <= RUNS; r++) {
        const sent = join(dataDir, `sent-${p.rttMs}-${r}.ndjson`);
        // a broadcaster whose handshake fails over the lossy link starts again, as a person would
        let broadcast!: ReturnType<typeof run>;
        for (let attempt = 1; ; attempt++) {
          broadcast = run(
            NS.pub,
            [...pre, ...bench.broadcastArgs(`http://${LINKS[0]!.aIp}:${API_PORT}`, token, sent)],
            clientEnv,
          );
          let live = false;
          for (let i = 0; i < 300 && broadcast.child.exitCode === null; i++) {
            if ((await bench.benchStationStatus(mgmt)) === 'live') {
              live = true;
              break;
            }
            await sleep(100);
          }
          if (live) break;
          broadcast.child.kill('SIGTERM');
          await broadcast.done;
          if (attempt >= 5) throw new Error(`broadcast never went live:\n${broadcast.out()}`);
          console.log(
            `(broadcaster attempt ${attempt} failed: ${broadcast.out().trim().split('\n').at(-1)})`,
          );
        }
        const load = run(
          NS.lis,
          [
            ...pre,
            ...bench.loadArgs(`http://${LINKS[1]!.aIp}:${API_PORT}`, {
              listeners: LISTENERS,
              rampS: 5,
              durationS: DURATION_S,
              sent,
            }),
          ],
          clientEnv,
        );
        await load.done;
        broadcast.child.kill('SIGTERM');
        await broadcast.done;
        const s = bench.loadSummary(load);
        const rec = s.recovery;
        const res: RunResult = {
          firstAudioP50: s.firstAudioMs.p50 ?? NaN,
          firstAudioP95: s.firstAudioMs.p95 ?? NaN,
          latencyP50: s.latency?.latencyMs.p50 ?? NaN,
          latencyP95: s.latency?.latencyMs.p95 ?? NaN,
          // never came, or came > 250 ms after the gap showed (past any sane playout point)
          lostPercent: rec.expected ? (100 * (rec.lost + rec.recoveredLate)) / rec.expected : NaN,
          rawLossPercent: rec.expected ? (100 * rec.nacked) / rec.expected : NaN,
          recovered: rec.recovered,
          connected: `${s.connected}/${s.requested}`,
        };
        list.push(res);
        console.log(
          `run ${r}: listeners ${res.connected} · first audio p50 ${res.firstAudioP50} ms p95 ${res.firstAudioP95} ms · ` +
            `latency p50 ${res.latencyP50} ms p95 ${res.latencyP95} ms · frames missing ${rec.nacked} of ${rec.expected} ` +
            `(${res.rawLossPercent.toFixed(2)} %), recovered ${rec.recovered} (${rec.recoveredLate} > 250 ms late), ` +
            `lost after recovery ${rec.lost} + ${rec.recoveredLate} late (${res.lostPercent.toFixed(3)} %)`,
        );
        await sleep(1000);
      }
      results.set(p, list);
      console.log('');
    }

    console.log(`## Medians of ${RUNS} runs (${LISTENERS} listeners × ${DURATION_S} s each)\n`);
    for (const [p, list] of results) {
      const m = (k: keyof RunResult) => median(list.map((x) => x[k] as number));
      console.log(
        `${p.name}: first audio p50 ${m('firstAudioP50')} ms, p95 ${m('firstAudioP95')} ms · ` +
          `latency p50 ${m('latencyP50')} ms, p95 ${m('latencyP95')} ms · ` +
          `20 ms frames lost after recovery ${m('lostPercent').toFixed(3)} % ` +
          `(missing before recovery ${m('rawLossPercent').toFixed(2)} %)`,
      );
    }
    const a = results.get(PROFILES[0]!)!;
    if (PROFILES[0]!.rttMs !== 50 || PROFILES[0]!.lossPercent !== 1) return;
    const med = (k: keyof RunResult) => median(a.map((x) => x[k] as number));
    console.log(
      `\ngoals at 50 ms RTT: first audio p95 ≤ 700 ms: ${med('firstAudioP95') <= 700 ? 'met' : 'NOT met'}; ` +
        `latency p95 ≤ 250 ms: ${med('latencyP95') <= 250 ? 'met' : 'NOT met'}; ` +
        `≤ 0.1 % frames lost after recovery: ${med('lostPercent') <= 0.1 ? 'met' : 'NOT met'}`,
    );
  } finally {
    api.child.kill('SIGTERM');
    await Promise.race([api.done, sleep(5000)]);
    teardown();
  }
  process.exit(0);
}

await main();
