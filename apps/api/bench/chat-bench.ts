/**
 * `npm run bench:chat`: live chat and reactions at scale. Two API nodes share PostgreSQL and Redis
 * (node A pinned to core 0, node B to core 1); listener processes hold `--clients` sockets, half on
 * each node, all in one station's room. For `--seconds`, guest chatters send `--messages` chat
 * messages a second in all and reactors press `--reactions` reactions a second in all (spread over
 * both nodes and over enough clients to stay inside the per-client limits). Figures: for each
 * message, when 99 % of the clients had it (p99 over messages), the share of messages that reached
 * 99 % of clients within 1 s, the servers' CPU per 1,000 clients, and how many reaction messages each
 * client received a second (aggregation: a few, whatever the presses).
 * `--net netns` (the default as root with iproute2): the clients on a second host, a network namespace
 * joined by a veth pair (as bench:sfu puts its listeners), with its own ephemeral ports (widened to
 * 10000–65000) and each client process's file descriptor limit raised to the hard limit; the API
 * nodes listen on the link's address. `--net loopback`: clients on this host's loopback.
 * Options: --clients 10000 --seconds 20 --messages 20 --reactions 1000 --processes-per-node 1
 *          --net netns|loopback --pg <admin URL> --redis <URL>
 */
import { type ChildProcess, execFileSync, fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CHAT_EVENTS, SOCKET_EVENTS } from '@radiobroadcaster/contracts';
import { WebSocket } from 'ws';
import {
  type ApiProcess,
  cpuSeconds,
  fmt,
  quantile,
  CLUSTER_OPTIONS,
  clusterEnv,
  scratchDatabase,
  seedStation,
  startApi,
  table,
} from './bench-support.js';

const now = () => performance.timeOrigin + performance.now();

type ToClient = { type: 'start'; seconds: number } | { type: 'collect' } | { type: 'exit' };
type FromClient =
  | { type: 'ready'; connected: number; failed: number; rssMiB: number }
  | {
      type: 'sent';
      messages: number;
      refused: number;
      /** Refusals by error tag. */
      reasons: Record<string, number>;
      reactions: number;
    }
  | {
      type: 'arrivals';
      /** Message tag → latencies (ms) at this process's clients. */
      latencies: Record<string, number[]>;
      bursts: number;
      connected: number;
    };

interface ClientPlan {
  url: string;
  count: number;
  stationId: string;
  /** How many of this process's sockets chat, and each one's messages a second. */
  chatters: number;
  chatRate: number;
  reactors: number;
  reactRate: number;
}

/** Speaks socket.io over `ws` directly (as bench:sockets), to keep the load generator light. */
async function client(plan: ClientPlan): Promise<void> {
  const endpoint = `${plan.url.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`;
  const sockets: WebSocket[] = [];
  const latencies: Record<string, number[]> = {};
  let bursts = 0;
  let failed = 0;
  let ackId = 0;
  const acks = new Map<number, (body: string) => void>();
  const emit = (ws: WebSocket, event: string, body: unknown, ack?: (b: string) => void) => {
    if (ack) {
      const id = ++ackId;
      acks.set(id, ack);
      ws.send(`42${id}${JSON.stringify([event, body])}`);
    } else ws.send(`42${JSON.stringify([event, body])}`);
  };
  const messagePrefix = `42["${CHAT_EVENTS.message}",`;
  const burstPrefix = `42["${CHAT_EVENTS.reactionBurst}",`;
  const open = () =>
    new Promise<void>((resolve) => {
      const ws = new WebSocket(endpoint);
      const timer = setTimeout(() => fail(), 30_000);
      let joined = false;
      const fail = () => {
        clearTimeout(timer);
        failed++;
        ws.terminate();
        resolve();
      };
      ws.on('error', fail);
      ws.on('message', (data: Buffer) => {
        const msg = data.toString();
        if (msg.startsWith(messagePrefix)) {
          const m = /"text":"bench (\d+x\d+-\d+) (\d+(?:\.\d+)?)"/.exec(msg);
          if (m) (latencies[m[1]!] ??= []).push(now() - Number(m[2]));
        } else if (msg.startsWith(burstPrefix)) bursts++;
        else if (msg === '2') ws.send('3');
        else if (msg.startsWith('0{')) ws.send('40');
        else if (msg.startsWith('40')) {
          emit(ws, SOCKET_EVENTS.join, { stationId: plan.stationId }, (body) => {
            clearTimeout(timer);
            if (!body.includes('"ok":true')) return fail();
            joined = true;
            sockets.push(ws);
            resolve();
          });
        } else if (msg.startsWith('43')) {
          const m = /^43(\d+)/.exec(msg);
          const id = Number(m?.[1]);
          const cb = acks.get(id);
          acks.delete(id);
          cb?.(msg);
        }
      });
      ws.on('close', () => {
        if (!joined) fail();
      });
    });
  const batch = 200;
  for (let i = 0; i < plan.count; i += batch)
    await Promise.all(Array.from({ length: Math.min(batch, plan.count - i) }, open));
  // Chatters name themselves (guests).
  const tag = randomBytes(2).toString('hex');
  const chatters = sockets.slice(0, plan.chatters);
  await Promise.all(
    chatters.map(
      (ws, i) =>
        new Promise<void>((resolve) =>
          emit(
            ws,
            CHAT_EVENTS.hello,
            { stationId: plan.stationId, name: `bench-${tag}-${process.pid}-${i}` },
            () => resolve(),
          ),
        ),
    ),
  );
  send({
    type: 'ready',
    connected: sockets.length,
    failed,
    rssMiB: process.memoryUsage().rss / 2 ** 20,
  });

  process.on('message', (msg: ToClient) => {
    if (msg.type === 'start') {
      let sent = 0;
      let refused = 0;
      const reasons: Record<string, number> = {};
      let reactions = 0;
      const timers: NodeJS.Timeout[] = [];
      chatters.forEach((ws, i) => {
        let seq = 0;
        const t = setInterval(() => {
          const text = `bench ${process.pid}x${i}-${seq++} ${now()}`;
          emit(ws, CHAT_EVENTS.send, { stationId: plan.stationId, text }, (body) => {
            if (body.includes('"ok":true')) sent++;
            else {
              refused++;
              const tag = /"error":"([^"]+)"/.exec(body)?.[1] ?? 'other';
              reasons[tag] = (reasons[tag] ?? 0) + 1;
            }
          });
        }, 1000 / plan.chatRate);
        timers.push(t);
      });
      const kinds = ['heart', 'fire', 'clap', 'laugh', 'wow'];
      sockets.slice(plan.chatters, plan.chatters + plan.reactors).forEach((ws, i) => {
        const t = setInterval(() => {
          emit(ws, CHAT_EVENTS.reactionSend, { stationId: plan.stationId, kind: kinds[i % 5] });
          reactions++;
        }, 1000 / plan.reactRate);
        timers.push(t);
      });
      setTimeout(() => {
        for (const t of timers) clearInterval(t);
        // The last acknowledgements may still be on their way (a loaded machine): up to 30 s more.
        const deadline = Date.now() + 30_000;
        const report = () => {
          if (acks.size > 0 && Date.now() < deadline) return void setTimeout(report, 100);
          send({ type: 'sent', messages: sent, refused, reasons, reactions });
        };
        report();
      }, msg.seconds * 1000);
    } else if (msg.type === 'collect') {
      send({ type: 'arrivals', latencies, bursts, connected: sockets.length });
    } else {
      for (const s of sockets) s.terminate();
      process.exit(0);
    }
  });
}

interface ClientHost {
  ns: string;
  /** The API nodes' address on the link. */
  hostIp: string;
  clientIp: string;
  close(): void;
}

/** Why the clients cannot have a host of their own here, or null. */
function netnsMissing(): string | null {
  if (process.getuid?.() !== 0) return 'not root';
  try {
    execFileSync('ip', ['-V'], { stdio: 'ignore' });
    return null;
  } catch {
    return 'iproute2 (ip) missing';
  }
}

/** A second host for the clients: a network namespace joined to this one by a veth pair. */
function openClientHost(): ClientHost {
  const run = (cmd: string, args: string[]) =>
    execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
  const id = process.pid % 10000;
  const ns = `rb-chat-clients-${process.pid}`;
  const hostDev = `rbc${id}h`;
  const clientDev = `rbc${id}c`;
  // a /30 per benchmark process, out of 10.214.0.0/16
  const base = [10, 214, (process.pid >> 6) & 0xff, (process.pid & 0x3f) * 4];
  const hostIp = [...base.slice(0, 3), base[3]! + 1].join('.');
  const clientIp = [...base.slice(0, 3), base[3]! + 2].join('.');
  const inNs = (cmd: string, args: string[]) => run('ip', ['netns', 'exec', ns, cmd, ...args]);
  let open = false;
  const close = () => {
    if (!open) return;
    open = false;
    try {
      run('ip', ['netns', 'del', ns]); // takes the veth pair with it
    } catch {
      // already gone
    }
  };
  try {
    run('ip', ['netns', 'add', ns]);
    open = true;
    run('ip', ['link', 'add', hostDev, 'type', 'veth', 'peer', 'name', clientDev, 'netns', ns]);
    run('ip', ['addr', 'add', `${hostIp}/30`, 'dev', hostDev]);
    run('ip', ['link', 'set', hostDev, 'up']);
    inNs('ip', ['addr', 'add', `${clientIp}/30`, 'dev', clientDev]);
    inNs('ip', ['link', 'set', clientDev, 'up']);
    inNs('ip', ['link', 'set', 'lo', 'up']);
    // The namespace has ephemeral ports of its own: room for every client and then some.
    inNs('sh', ['-c', 'echo "10000 65000" > /proc/sys/net/ipv4/ip_local_port_range']);
  } catch (err) {
    close();
    const e = err as { stderr?: Buffer; message: string };
    throw new Error(`client host: ${e.stderr?.toString().trim() || e.message}`);
  }
  const onSignal = (signal: NodeJS.Signals) => {
    close();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('exit', close);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return { ns, hostIp, clientIp, close };
}

/** A client process: forked here, or run inside the clients' namespace with its fd limit raised. */
function startClient(self: string, plan: ClientPlan, host: ClientHost | null): ChildProcess {
  const args = ['--client', JSON.stringify(plan)];
  if (!host) return fork(self, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  // `ip netns exec` execs node in place, so the IPC channel's descriptor carries over.
  const script = `ulimit -n "$(ulimit -Hn)"; exec ip netns exec "$0" "$@"`;
  return spawn('sh', ['-c', script, host.ns, process.execPath, self, ...args], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

function send(msg: FromClient): void {
  process.send!(msg);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      clients: { type: 'string', default: '10000' },
      seconds: { type: 'string', default: '20' },
      messages: { type: 'string', default: '20' },
      reactions: { type: 'string', default: '1000' },
      'processes-per-node': { type: 'string', default: '1' },
      net: { type: 'string' },
      ...CLUSTER_OPTIONS,
    },
  });
  const total = Number(values.clients);
  const seconds = Number(values.seconds);
  const msgRate = Number(values.messages);
  const reactRate = Number(values.reactions);
  const perNode = Number(values['processes-per-node']);

  const missing = netnsMissing();
  const net = values.net ?? (missing ? 'loopback' : 'netns');
  if (net !== 'netns' && net !== 'loopback') throw new Error('--net: netns or loopback');
  if (net === 'netns' && missing) throw new Error(`--net netns: ${missing}`);
  const host = net === 'netns' ? openClientHost() : null;

  const db = await scratchDatabase(values.pg);
  const env = clusterEnv(db.url, values.redis);
  const nodes: ApiProcess[] = [];
  const children: ChildProcess[] = [];
  // Stopped by a signal: the nodes and clients go too.
  process.once('exit', () => {
    for (const c of children) c.kill();
    for (const n of nodes)
      try {
        process.kill(n.pid);
      } catch {
        // gone
      }
  });
  try {
    nodes.push(await startApi(env, 0, host?.hostIp));
    nodes.push(await startApi(env, 1, host?.hostIp));
    const seeded = await seedStation(nodes[0]!.url);
    const processes = nodes.length * perNode;
    // Within the per-client limits: a message a second per chatter, 8 reactions a second per reactor.
    const chattersPerProcess = Math.max(1, Math.ceil(msgRate / processes));
    const chatRate = msgRate / (chattersPerProcess * processes);
    const reactorsPerProcess = Math.max(1, Math.ceil(reactRate / 6 / processes));
    const perReactor = reactRate / (reactorsPerProcess * processes);
    console.log(
      `chat bench: ${fmt(total)} clients of one station, half on each of 2 API nodes (cores 0 and 1) ` +
        `sharing PostgreSQL and Redis; ${fmt(msgRate)} messages/s and ${fmt(reactRate)} reactions/s ` +
        `for ${seconds} s. ` +
        (host
          ? `Clients: ${nodes.length * perNode} process(es) on a second host (network namespace ${host.ns}, ${host.clientIp}, unpinned) ` +
            `reaching the nodes at ${host.hostIp} over a veth pair.`
          : `Clients: ${nodes.length * perNode} process(es) on this host's loopback (unpinned).`),
    );
    const self = fileURLToPath(import.meta.url);
    const plans: ClientPlan[] = [];
    for (const node of nodes)
      for (let p = 0; p < perNode; p++)
        plans.push({
          url: node.url,
          count: 0,
          stationId: seeded.stationId,
          chatters: chattersPerProcess,
          chatRate,
          reactors: reactorsPerProcess,
          reactRate: perReactor,
        });
    for (let i = 0; i < total; i++) plans[i % plans.length]!.count++;
    const ready = plans.map((plan) => {
      const child = startClient(self, plan, host);
      children.push(child);
      return next<FromClient & { type: 'ready' }>(child, 'ready');
    });
    const joined = await Promise.all(ready);
    const connected = joined.reduce((n, r) => n + r.connected, 0);
    console.log(
      `connected and joined: ${fmt(connected)} (${fmt(joined.reduce((n, r) => n + r.failed, 0))} failed); ` +
        `client processes' memory: ${joined.map((r) => `${fmt(r.rssMiB)} MiB`).join(', ')}`,
    );

    const cpu0 = nodes.map((n) => cpuSeconds(n.pid));
    const sentP = children.map((c) => next<FromClient & { type: 'sent' }>(c, 'sent'));
    for (const c of children) c.send({ type: 'start', seconds } satisfies ToClient);
    const sent = await Promise.all(sentP);
    // Late deliveries: give them a moment, as a listener would wait.
    await new Promise((r) => setTimeout(r, 2000));
    // Rates are per second of the load window: CPU spent on a backlog after it still counts.
    const elapsed = Math.max(seconds, 0.001);
    const cpu = nodes.map((n, i) => cpuSeconds(n.pid) - cpu0[i]!);
    const arrivalsP = children.map((c) => next<FromClient & { type: 'arrivals' }>(c, 'arrivals'));
    for (const c of children) c.send({ type: 'collect' } satisfies ToClient);
    const arrivals = await Promise.all(arrivalsP);

    const byMessage = new Map<string, number[]>();
    for (const a of arrivals)
      for (const [k, v] of Object.entries(a.latencies)) {
        let list = byMessage.get(k);
        if (!list) byMessage.set(k, (list = []));
        list.push(...v);
      }
    const need = Math.ceil(0.99 * connected);
    const reached: number[] = [];
    let duplicates = 0;
    for (const list of byMessage.values()) {
      list.sort((x, y) => x - y);
      if (list.length > connected) duplicates += list.length - connected;
      reached.push(list.length >= need ? list[need - 1]! : Infinity);
    }
    reached.sort((x, y) => x - y);
    const accepted = sent.reduce((n, s) => n + s.messages, 0);
    const refused = sent.reduce((n, s) => n + s.refused, 0);
    const reasons: Record<string, number> = {};
    for (const s of sent)
      for (const [k, v] of Object.entries(s.reasons)) reasons[k] = (reasons[k] ?? 0) + v;
    const pressed = sent.reduce((n, s) => n + s.reactions, 0);
    const within1s = reached.filter((r) => r <= 1000).length;
    const bursts = arrivals.reduce((n, a) => n + a.bursts, 0);
    const all = [...byMessage.values()].flat().sort((x, y) => x - y);
    console.log(
      `\n${table(
        ['figure', 'value'],
        [
          [
            'messages accepted / refused',
            `${fmt(accepted)} / ${fmt(refused)}` +
              (refused
                ? ` (${Object.entries(reasons)
                    .map(([k, v]) => `${k} ${fmt(v)}`)
                    .join(', ')})`
                : ''),
          ],
          ['reactions pressed', fmt(pressed)],
          [
            'delivery p50 / p99 over all deliveries (ms)',
            `${fmt(quantile(all, 0.5))} / ${fmt(quantile(all, 0.99))}`,
          ],
          [
            '99 % of clients had a message by: p50 / p99 over messages (ms)',
            `${fmt(quantile(reached, 0.5))} / ${fmt(quantile(reached, 0.99))}`,
          ],
          [
            'messages that reached 99 % of clients within 1 s',
            `${fmt((100 * within1s) / Math.max(1, reached.length), 1)} %`,
          ],
          ['deliveries beyond one per client (duplicates)', fmt(duplicates)],
          [
            'reaction messages per client per second',
            fmt(bursts / Math.max(1, connected) / elapsed, 2),
          ],
          ['server CPU node A / B (s)', `${fmt(cpu[0]!, 1)} / ${fmt(cpu[1]!, 1)}`],
          [
            'server CPU per 1,000 clients (% of a core)',
            fmt((100 * (cpu[0]! + cpu[1]!)) / elapsed / (connected / 1000), 1),
          ],
        ],
      )}`,
    );
    const met = quantile(reached, 0.99) <= 1000;
    console.log(
      `\nGoal: p99 delivery of messages within 1 s to 99 % of ${fmt(connected)} clients: ${met ? 'yes' : 'NO'}`,
    );
  } finally {
    for (const c of children) if (c.connected) c.send({ type: 'exit' } satisfies ToClient);
    await Promise.all(
      children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)),
    );
    for (const n of nodes) await n.stop();
    await db.drop();
    host?.close();
  }
}

function next<T extends FromClient>(child: ChildProcess, type: T['type']): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onMessage = (m: FromClient) => {
      if (m.type !== type) return;
      child.off('message', onMessage);
      resolve(m as T);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`client process exited with ${code}`)));
  });
}

const at = process.argv.indexOf('--client');
if (at >= 0) await client(JSON.parse(process.argv[at + 1]!) as ClientPlan);
else await main();
