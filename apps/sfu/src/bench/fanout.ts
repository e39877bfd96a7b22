/**
 * SFU fan-out benchmark: engine + publisher in this process, listeners in a child process (bench/sink.js).
 * Usage: node apps/sfu/dist/bench/fanout.js [--shards 1] [--steps 200,400,800] [--window 10] [--srtp gcm|cm]
 * Prints per step: listeners, loss, shard CPU (event-loop utilization), CPU per 100 listeners, and the
 * listener process's own CPU (on a small machine it shares the cores and is often the limit).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createWeriftEngine } from '../werift-engine.js';
import { createTestPublisher } from '../test-peers.js';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : def;
};
const shards = Number(arg('shards', '1'));
const steps = arg('steps', '200,400,600,800').split(',').map(Number);
const windowS = Number(arg('window', '10'));
const srtp = arg('srtp', 'gcm') as 'gcm' | 'cm';
const sinks = Number(arg('sinks', '1'));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const engine = await createWeriftEngine({ shards });
const station = 'bench';
const rss0 = process.memoryUsage().rss;
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
  const child = fork(fileURLToPath(new URL('./sink.js', import.meta.url)), { stdio: 'inherit' });
  const sink: Sink = { child, connected: 0, waiters: [] };
  child.on('message', async (m: { op: string; id?: number; sdp?: string; connected?: number }) => {
    if (m.op === 'offer') {
      const ans = await engine.addListener(station, m.sdp!).catch((e: Error) => {
        console.error('addListener failed', e.message);
        return null;
      });
      child.send({ op: 'answer', id: m.id, sdp: ans?.answerSdp ?? '' });
    } else if (m.op === 'status') sink.connected = m.connected!;
    else for (const w of sink.waiters.splice(0)) w(m);
  });
  sinkList.push(sink);
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
console.log(`shards=${shards} srtp=${srtp} window=${windowS}s payload=160B 50pps`);
console.log(
  'listeners  loss%   shardELU%(each)   ELU%/100L  mainELU%  procCPU%  cpuUs/pkt  firstPkt p50/p95 ms  verified/corrupt  rssKiB/L  sinkCPU%',
);
let total = 0;
for (const target of steps) {
  const add = target - total;
  if (add > 0) {
    const per = Math.ceil(add / sinks);
    await Promise.all(
      sinkList.map((s) => (s.child.send({ op: 'add', count: per, srtp }), next(s, 'added'))),
    );
    total += per * sinks;
  }
  const deadline = Date.now() + 30000;
  while (engine.listenerCount(station) < total && Date.now() < deadline) await sleep(200);
  await sleep(2000);
  const e0 = engine.shardUtilization();
  const m0 = performance.eventLoopUtilization();
  const c0 = process.cpuUsage();
  sinkList.forEach((s) => s.child.send({ op: 'window-start' }));
  await sleep(windowS * 1000);
  const e1 = engine.shardUtilization();
  const m1 = performance.eventLoopUtilization(m0);
  const cpu = process.cpuUsage(c0);
  const results = await Promise.all(
    sinkList.map((s) => {
      const p = next(s, 'window');
      s.child.send({ op: 'window-end' });
      return p;
    }),
  );
  const expected = results.reduce((a, r) => a + (r.expected as number), 0);
  const received = results.reduce((a, r) => a + (r.received as number), 0);
  const joins = results.flatMap((r) => r.joins as number[]);
  const verified = results.reduce((a, r) => a + (r.verified as number), 0);
  const corrupt = results.reduce((a, r) => a + (r.corrupt as number), 0);
  const sinkCpu = results.reduce((a, r) => a + (r.cpuPercent as number), 0);
  const elus = e1.map((e, i) => performance.eventLoopUtilization(e, e0[i]).utilization * 100);
  const sum = elus.reduce((a, b) => a + b, 0);
  const n = engine.listenerCount(station);
  const loss = expected > 0 ? (1 - received / expected) * 100 : NaN;
  const rssPerListener = (process.memoryUsage().rss - rss0) / Math.max(1, n) / 1024;
  const procCpu = ((cpu.user + cpu.system) / (windowS * 1e6)) * 100;
  const usPerPkt = (cpu.user + cpu.system) / Math.max(1, n * 50 * windowS);
  console.log(
    `${String(n).padStart(9)}  ${loss.toFixed(3).padStart(6)}  ${elus
      .map((e) => e.toFixed(1))
      .join('/')
      .padStart(
        16,
      )}  ${((sum / Math.max(1, n)) * 100).toFixed(2).padStart(9)}  ${(m1.utilization * 100).toFixed(1).padStart(8)}  ${procCpu.toFixed(1).padStart(8)}  ${usPerPkt.toFixed(1).padStart(9)}  ${pct(joins, 50)}/${pct(joins, 95)}  ${verified}/${corrupt}  ${rssPerListener.toFixed(0).padStart(8)}  ${sinkCpu.toFixed(1).padStart(8)}`,
  );
}
clearInterval(pace);
sinkList.forEach((s) => s.child.send({ op: 'exit' }));
await sleep(500);
await pub.close();
await engine.close();
process.exit(0);
