/**
 * SFU fan-out benchmark: engine + publisher in this process, listeners in a child process (bench/sink.js).
 * Usage: node apps/sfu/bench/dist/bench/fanout.js [--shards 1] [--steps 200,400,800] [--window 10] [--srtp gcm|cm]
 *   [--sink-cpu N] [--udp-port P] (one UDP port for every session; default a socket per session)
 *   [--listener-host loopback|netns] (netns: the listeners on a second host whose network stack runs on
 *   the sink's core, see listener-host.ts; needs --sink-cpu and root)
 *   [--engine werift|mediasoup] (mediasoup: `--shards` workers; its CPU is the workers' plus this process's)
 * Prints per step: listeners, loss, shard CPU (event-loop utilization), CPU per 100 listeners, and the
 * listener process's own CPU (on a small machine it shares the cores and is often the limit).
 */
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { describeFastPaths, fastPaths } from '../src/boundary/fast-paths.js';
import { CapacityError } from '../src/media-engine.js';
import type { MediaEngine } from '../src/media-engine.js';
import { MediasoupEngine } from '../src/mediasoup/mediasoup-engine.js';
import { createWeriftEngine, type WeriftEngineInternals } from '../src/werift/werift-engine.js';
import { createTestPublisher } from '../testing/test-peers.js';
import { openListenerHost } from './listener-host.js';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : def;
};
const shards = Number(arg('shards', '1'));
const steps = arg('steps', '200,400,600,800').split(',').map(Number);
const windowS = Number(arg('window', '10'));
const srtp = arg('srtp', 'gcm') as 'gcm' | 'cm';
const sinks = Number(arg('sinks', '1'));
/** Pin the listener processes (the load generator) to this CPU; the caller pins this process. */
const sinkCpu = arg('sink-cpu', '');
/** One UDP port for every session (the node's mux; 0 = a free port); unset: a socket per session. */
const udpPort = arg('udp-port', '');
/** `measured`: admission as the product runs it (each shard takes what it is measured to hold). */
const admission = arg('admission', 'off');
const netns = arg('listener-host', 'loopback') === 'netns';
if (netns && !sinkCpu) throw new Error('--listener-host netns needs --sink-cpu');
/** The payload type the listeners negotiate for Opus (their offers list 111). */
const OPUS_PT = 111;
const host = netns ? openListenerHost(Number(sinkCpu), OPUS_PT) : null;
if (host) console.log(host.note);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// By default no admission: the benchmark looks for what one shard can hold.
const engineName = arg('engine', 'werift');
const engineOpts = {
  shards,
  maxListeners: admission === 'measured' ? undefined : 0,
  udpPort: udpPort === '' ? undefined : Number(udpPort),
};
const engine: MediaEngine & Partial<WeriftEngineInternals> =
  engineName === 'mediasoup'
    ? await MediasoupEngine.create({ ...engineOpts, workers: Math.max(1, shards) })
    : await createWeriftEngine(engineOpts);
/** Event-loop utilization of werift's shards; mediasoup's workers are C++ processes (CPU only). */
const shardElu = () => engine.shardUtilization?.() ?? [];
const station = 'bench';
/** Why listeners left during each step (the SFU's view): a collapse names its cause. */
let goneReasons: Record<string, number> = {};
/** Joins admission refused during each step (CapacityError). */
let refused = 0;
let refusedTotal = 0;
engine.on((e) => {
  if (e.type === 'listener-gone') goneReasons[e.reason] = (goneReasons[e.reason] ?? 0) + 1;
});
/** This process's memory, and mediasoup's worker processes' (bytes). */
const memory = async () =>
  process.memoryUsage().rss +
  (engineName === 'mediasoup'
    ? (await (engine as MediasoupEngine).workersRssKiB()).reduce((a, b) => a + b, 0) * 1024
    : 0);
const rss0 = await memory();
const pub = await createTestPublisher(engine, station);
await pub.connected;
let index = 0;
const t0 = Date.now();
const pace = setInterval(() => {
  // drift-free 50 packets/s
  const due = Math.floor((Date.now() - t0) / 20);
  while (index < due) pub.send(index++);
}, 5);

interface Sink {
  child: ChildProcess;
  connected: number;
  waiters: ((m: { op: string; [k: string]: unknown }) => void)[];
}
const sinkList: Sink[] = [];
for (let i = 0; i < sinks; i++) {
  const sinkJs = fileURLToPath(new URL('./sink.js', import.meta.url));
  // on the listeners' host: the same IPC channel, through `ip netns exec`
  const child = host
    ? spawn('ip', ['netns', 'exec', host.ns, process.execPath, sinkJs, '--count', 'kernel'], {
        stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
      })
    : fork(sinkJs, { stdio: 'inherit' });
  const sink: Sink = { child, connected: 0, waiters: [] };
  child.on('message', async (m: { op: string; id?: number; sdp?: string; connected?: number }) => {
    if (m.op === 'offer') {
      const ans = await engine.addListener(station, m.sdp!).catch((e: Error) => {
        if (e instanceof CapacityError) {
          refused++;
          refusedTotal++;
        } else console.error('addListener failed', e.message);
        return null;
      });
      child.send({ op: 'answer', id: m.id, sdp: ans?.answerSdp ?? '' });
    } else if (m.op === 'status') sink.connected = m.connected!;
    else for (const w of sink.waiters.splice(0)) w(m);
  });
  sinkList.push(sink);
  if (sinkCpu && child.pid) execFileSync('taskset', ['-pc', sinkCpu, String(child.pid)]);
}
const next = (s: Sink, op: string) =>
  new Promise<{ op: string; [k: string]: unknown }>((resolve) => {
    const wait = (m: { op: string }) => (m.op === op ? resolve(m) : s.waiters.push(wait));
    s.waiters.push(wait);
  });
await Promise.all(sinkList.map((s) => next(s, 'ready')));

const pct = (a: number[], p: number) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};
console.log(
  `engine=${engineName} shards=${shards} srtp=${srtp} window=${windowS}s payload=160B 50pps`,
);
console.log(`fast paths: ${describeFastPaths(fastPaths())}`);
console.log(
  'listeners  loss%   shardELU%(each)   ELU%/100L  mainELU%  procCPU%  cpuUs/pkt  firstPkt p50/p95 ms  verified/corrupt  rssKiB/L  sinkCPU%  joins/s  rampLoss%  sys%  shardCPU%  capacity',
);
let total = 0;
const windowOf = async () => {
  const results = await Promise.all(
    sinkList.map((s) => {
      const p = next(s, 'window');
      s.child.send({ op: 'window-end' });
      return p;
    }),
  );
  const sum = (k: string) => results.reduce((a, r) => a + (r[k] as number), 0);
  const expected = sum('expected');
  const received = sum('received');
  return {
    loss: expected > 0 ? (1 - received / expected) * 100 : 0,
    joins: results.flatMap((r) => r.joins as number[]),
    verified: sum('verified'),
    corrupt: sum('corrupt'),
    sinkCpu: sum('cpuPercent'),
  };
};
/** CPU seconds of the shards' threads (their last report, once a second). */
const shardCpu = () => engine.stats().perShard.reduce((a, s) => a + (s.cpuSeconds ?? 0), 0);
const connected = () => sinkList.reduce((a, s) => a + s.connected, 0);
for (const target of steps) {
  // The ramp: listeners already held must keep their audio while the new ones join as fast as the
  // load generator offers them (joins per second, their first audio, the old ones' loss).
  const before = engine.listenerCount(station);
  sinkList.forEach((s) => s.child.send({ op: 'window-start' }));
  const r0 = Date.now();
  const add = target - total;
  if (add > 0) {
    const per = Math.ceil(add / sinks);
    await Promise.all(
      sinkList.map((s) => (s.child.send({ op: 'add', count: per, srtp }), next(s, 'added'))),
    );
    total += per * sinks;
  }
  // Joins per second count up to the last join that connected: a few handshakes that never finish
  // (their listeners give up) do not stretch the ramp to the deadline.
  const deadline = Date.now() + 30000;
  let held = engine.listenerCount(station);
  let lastJoinAt = Date.now();
  while (
    (engine.listenerCount(station) < total - refusedTotal ||
      connected() < engine.listenerCount(station)) &&
    Date.now() < deadline
  ) {
    await sleep(100);
    if (engine.listenerCount(station) > held) {
      held = engine.listenerCount(station);
      lastJoinAt = Date.now();
    }
  }
  const rampS = (lastJoinAt - r0) / 1000;
  await sleep(1000); // first packets of the last joiners
  const ramp = await windowOf();
  const joinsPerS = (engine.listenerCount(station) - before) / Math.max(0.001, rampS);
  await sleep(1000);
  const e0 = shardElu();
  const t0cpu = shardCpu();
  const m0 = performance.eventLoopUtilization();
  const c0 = process.cpuUsage();
  const h0 = host?.cpuSeconds() ?? 0;
  sinkList.forEach((s) => s.child.send({ op: 'window-start' }));
  await sleep(windowS * 1000);
  // the load generator's core: the listener processes, and their network stack on a second host
  const hostCpu = (((host?.cpuSeconds() ?? 0) - h0) / windowS) * 100;
  const e1 = shardElu();
  const shardCpuPct = ((shardCpu() - t0cpu) / windowS) * 100;
  const m1 = performance.eventLoopUtilization(m0);
  const cpu = process.cpuUsage(c0);
  const steady = await windowOf();
  const elus = e1.map((e, i) => performance.eventLoopUtilization(e, e0[i]).utilization * 100);
  const sum = elus.reduce((a, b) => a + b, 0);
  const n = engine.listenerCount(station);
  const rssPerListener = ((await memory()) - rss0) / Math.max(1, n) / 1024;
  const procCpu = ((cpu.user + cpu.system) / (windowS * 1e6)) * 100;
  // mediasoup: its worker processes' CPU counts with this process's (both on the SFU's core)
  const workerUs = engineName === 'mediasoup' ? (shardCpuPct / 100) * windowS * 1e6 : 0;
  const usPerPkt = (cpu.user + cpu.system + workerUs) / Math.max(1, n * 50 * windowS);
  const verified = ramp.verified + steady.verified;
  const corrupt = ramp.corrupt + steady.corrupt;
  console.log(
    `${String(n).padStart(9)}  ${steady.loss.toFixed(3).padStart(6)}  ${(elus.length
      ? elus.map((e) => e.toFixed(1)).join('/')
      : '-'
    ) // mediasoup: no shard threads
      .padStart(
        16,
      )}  ${((sum / Math.max(1, n)) * 100).toFixed(2).padStart(9)}  ${(m1.utilization * 100).toFixed(1).padStart(8)}  ${procCpu.toFixed(1).padStart(8)}  ${usPerPkt.toFixed(1).padStart(9)}  ${pct(ramp.joins, 50)}/${pct(ramp.joins, 95)}  ${verified}/${corrupt}  ${rssPerListener.toFixed(0).padStart(8)}  ${(steady.sinkCpu + hostCpu).toFixed(1).padStart(8)}  ${joinsPerS.toFixed(1).padStart(7)}  ${ramp.loss.toFixed(3).padStart(7)}  ${((cpu.system / (windowS * 1e6)) * 100).toFixed(1).padStart(5)}  ${shardCpuPct.toFixed(1).padStart(9)}  ${String(engine.stats().perShard.reduce((a, s) => a + (s.measuredCapacity ?? 0), 0)).padStart(8)}`,
  );
  if (Object.keys(goneReasons).length)
    console.log(`  listeners gone: ${JSON.stringify(goneReasons)}`);
  if (refused) console.log(`  joins refused by admission: ${refused}`);
  goneReasons = {};
  refused = 0;
}
clearInterval(pace);
sinkList.forEach((s) => s.child.send({ op: 'exit' }));
await sleep(500);
await pub.close();
const net = engine.stats().net;
if (net) console.log(`one port: ${JSON.stringify(net)}`);
await engine.close();
host?.close();
process.exit(0);
