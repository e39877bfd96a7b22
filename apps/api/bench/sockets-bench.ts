/**
 * `npm run bench:sockets`: how fast a now-playing change reaches the socket.io subscribers of one
 * station. Two API nodes share PostgreSQL and Redis (node A pinned to core 0, node B to core 1);
 * subscriber processes (unpinned) hold half of the sockets on each node, every socket in the
 * station's room. Each round sets now playing on node A and records when every socket got the
 * `station:update`; the figures are per round and their medians.
 * Options: --sockets 10000 --rounds 5 --processes-per-node 1 --pg <admin URL> --redis <URL>
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SOCKET_EVENTS } from '@radiobroadcaster/contracts';
import { WebSocket } from 'ws';
import {
  type ApiProcess,
  fmt,
  median,
  quantile,
  CLUSTER_OPTIONS,
  clusterEnv,
  scratchDatabase,
  seedStation,
  startApi,
  table,
} from './bench-support.js';

const now = () => performance.timeOrigin + performance.now();

type ToClient = { type: 'collect'; track: string } | { type: 'exit' };
type FromClient =
  | { type: 'ready'; connected: number; failed: number; ms: number }
  | { type: 'arrivals'; track: string; times: number[] };

/**
 * A subscriber process: `count` sockets on `url`, all in the room of `stationId`. They speak
 * the socket.io wire protocol over `ws` directly (open, connect, join with an ack, answer pings,
 * note each `station:update`), so the load generator stays light next to the servers it
 * measures; a browser's socket.io-client does the same exchange.
 */
async function client(url: string, count: number, stationId: string): Promise<void> {
  const arrivals = new Map<string, number[]>();
  const sockets: WebSocket[] = [];
  let failed = 0;
  const started = now();
  const endpoint = `${url.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`;
  const join = `421${JSON.stringify([SOCKET_EVENTS.join, stationId])}`;
  const update = `42["${SOCKET_EVENTS.update}",`;
  const open = () =>
    new Promise<void>((resolve) => {
      const ws = new WebSocket(endpoint);
      const timer = setTimeout(() => fail(), 30_000);
      const fail = () => {
        clearTimeout(timer);
        failed++;
        ws.terminate();
        resolve();
      };
      ws.on('error', fail);
      ws.on('message', (data: Buffer) => {
        const msg = data.toString();
        if (msg.startsWith(update)) {
          const m = /"track":"(round-[^"]+)"/.exec(msg);
          if (!m) return;
          let list = arrivals.get(m[1]!);
          if (!list) arrivals.set(m[1]!, (list = []));
          list.push(now());
        } else if (msg === '2') ws.send('3');
        else if (msg.startsWith('0{')) ws.send('40');
        else if (msg.startsWith('40')) ws.send(join);
        else if (msg.startsWith('431')) {
          clearTimeout(timer);
          if (msg.includes('"ok":true')) {
            sockets.push(ws);
            resolve();
          } else fail();
        }
      });
    });
  // A few hundred handshakes at a time, as a crowd arriving rather than a single burst.
  const batch = 200;
  for (let i = 0; i < count; i += batch) {
    await Promise.all(Array.from({ length: Math.min(batch, count - i) }, open));
  }
  send({ type: 'ready', connected: sockets.length, failed, ms: now() - started });
  process.on('message', (msg: ToClient) => {
    if (msg.type === 'collect') {
      send({ type: 'arrivals', track: msg.track, times: arrivals.get(msg.track) ?? [] });
      arrivals.delete(msg.track);
    } else {
      for (const s of sockets) s.terminate();
      process.exit(0);
    }
  });
}

function send(msg: FromClient): void {
  process.send!(msg);
}

interface Round {
  delivered: number;
  /** The first subscriber's delay (the request, the database write, the event, one push). */
  first: number;
  /** p99 of the subscribers on node A (where the change was made) and on node B (via Redis). */
  p99A: number;
  p99B: number;
  p50: number;
  p99: number;
  max: number;
  /** When 99 % of all subscribers had it (ms after the request was sent), or Infinity. */
  reached99: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sockets: { type: 'string', default: '10000' },
      rounds: { type: 'string', default: '5' },
      'processes-per-node': { type: 'string', default: '1' },
      ...CLUSTER_OPTIONS,
    },
  });
  const total = Number(values.sockets);
  const rounds = Number(values.rounds);
  const perNode = Number(values['processes-per-node']);

  const db = await scratchDatabase(values.pg);
  const env = clusterEnv(db.url, values.redis);
  const nodes: ApiProcess[] = [];
  const clients: ReturnType<typeof fork>[] = [];
  try {
    // One after the other: both run the migrations at start, the second finds them applied.
    nodes.push(await startApi(env, 0));
    nodes.push(await startApi(env, 1));
    const [a] = nodes as [ApiProcess, ApiProcess];
    const seeded = await seedStation(a.url);
    console.log(
      `socket.io bench: ${fmt(total)} subscribers of one station, half on each of 2 API nodes ` +
        `(cores 0 and 1) sharing PostgreSQL and Redis; ${rounds} now-playing changes sent to node A.`,
    );

    const self = fileURLToPath(import.meta.url);
    const shares: { url: string; count: number }[] = [];
    for (const node of nodes) {
      for (let p = 0; p < perNode; p++) shares.push({ url: node.url, count: 0 });
    }
    for (let i = 0; i < total; i++) shares[i % shares.length]!.count++;
    const ready = shares.map(({ url, count }) => {
      const child = fork(self, ['--client', url, String(count), seeded.stationId], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      clients.push(child);
      return new Promise<FromClient & { type: 'ready' }>((resolve, reject) => {
        child.once('message', (m: FromClient) => (m.type === 'ready' ? resolve(m) : reject()));
        child.once('exit', (code) => reject(new Error(`subscriber process exited with ${code}`)));
      });
    });
    const joined = await Promise.all(ready);
    const connected = joined.reduce((n, r) => n + r.connected, 0);
    const failed = joined.reduce((n, r) => n + r.failed, 0);
    const slowest = Math.max(...joined.map((r) => r.ms));
    console.log(
      `connected and joined: ${fmt(connected)} (${fmt(failed)} failed) in ${fmt(slowest / 1000, 1)} s ` +
        `(${fmt(connected / (slowest / 1000))} sockets/s)\n`,
    );

    const results: Round[] = [];
    for (let r = 1; r <= rounds; r++) {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const track = `round-${r}-${randomBytes(3).toString('hex')}`;
      const sent = now();
      const res = await fetch(`${a.url}/api/stations/now-playing`, {
        method: 'POST',
        headers: { ...seeded.auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ stationId: seeded.stationId, track, artist: 'Bench' }),
      });
      if (!res.ok) throw new Error(`now-playing: ${res.status} ${await res.text()}`);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const arrivals = await Promise.all(
        clients.map(
          (child) =>
            new Promise<number[]>((resolve) => {
              const onMessage = (m: FromClient) => {
                if (m.type !== 'arrivals' || m.track !== track) return;
                child.off('message', onMessage);
                resolve(m.times);
              };
              child.on('message', onMessage);
              child.send({ type: 'collect', track } satisfies ToClient);
            }),
        ),
      );
      const sorted = (times: number[]) => times.map((t) => t - sent).sort((x, y) => x - y);
      const latencies = sorted(arrivals.flat());
      const onNode = (url: string) =>
        sorted(arrivals.filter((_, i) => shares[i]!.url === url).flat());
      const need = Math.ceil(0.99 * total);
      const round: Round = {
        delivered: latencies.length,
        first: latencies[0] ?? NaN,
        p99A: quantile(onNode(a.url), 0.99),
        p99B: quantile(onNode(nodes[1]!.url), 0.99),
        p50: quantile(latencies, 0.5),
        p99: quantile(latencies, 0.99),
        max: latencies.at(-1) ?? NaN,
        reached99: latencies.length >= need ? latencies[need - 1]! : Infinity,
      };
      results.push(round);
      console.log(
        `round ${r}: ${fmt(round.delivered)}/${fmt(total)} delivered, p50 ${fmt(round.p50)} ms, ` +
          `p99 ${fmt(round.p99)} ms, 99 % of all at ${fmt(round.reached99)} ms`,
      );
    }

    const row = (name: string, f: (g: (x: Round) => number) => number) => [
      name,
      `${fmt((100 * f((x) => x.delivered)) / total, 2)} %`,
      fmt(f((x) => x.first)),
      fmt(f((x) => x.p50)),
      fmt(f((x) => x.p99)),
      fmt(f((x) => x.p99A)),
      fmt(f((x) => x.p99B)),
      fmt(f((x) => x.max)),
      fmt(f((x) => x.reached99)),
    ];
    const rows = results.map((x, i) => row(`round ${i + 1}`, (g) => g(x)));
    const pick = (g: (x: Round) => number) => median(results.map(g));
    rows.push(row('median', pick));
    console.log(
      `\n${table(
        [
          'now-playing change',
          'delivered',
          'first ms',
          'p50 ms',
          'p99 ms',
          'p99 node A',
          'p99 node B',
          'max ms',
          '99 % of all by (ms)',
        ],
        rows,
      )}`,
    );
    const met = pick((x) => x.reached99) <= 1000;
    console.log(
      `\nGoal: a now-playing change reaches 99 % of ${fmt(total)} subscribers within 1 s: ${met ? 'yes' : 'NO'}`,
    );
  } finally {
    for (const c of clients) if (c.connected) c.send({ type: 'exit' } satisfies ToClient);
    await Promise.all(
      clients.map((c) =>
        c.exitCode === null ? new Promise((resolve) => c.once('exit', resolve)) : null,
      ),
    );
    for (const n of nodes) await n.stop();
    await db.drop();
  }
}

const at = process.argv.indexOf('--client');
if (at >= 0) {
  const [url, count, stationId] = process.argv.slice(at + 1);
  await client(url!, Number(count), stationId!);
} else {
  await main();
}
