/**
 * `npm run bench:chat`: live chat and reactions at scale. Two API nodes share PostgreSQL and Redis
 * (node A pinned to core 0, node B to core 1); client processes hold `--clients` sockets, half on
 * each node, all in one station's room. For `--seconds`, `--senders` guests send `--messages`
 * chat messages a second in all (each one every senders/messages seconds, far inside the per-client
 * limit) and `--reactors` clients press `--reactions` reactions a second in all (each 2 a second,
 * inside its 8 with bursts of 16). Every message is acknowledged: refusals are counted by error
 * tag; reactions go unacknowledged, as the web app sends them, and the presses the bursts carry are
 * counted at one client per process. Any refusal
 * fails the run (exit code 1). The room's limit (RATE_LIMIT_CHAT_ROOM_PER_SECOND, 20 by default,
 * bursts of twice that) is set to `--room-limit` (twice the offered rate by default) so that the
 * run measures delivery, not the limit: the bench says so.
 * Figures: delivery p50/p95/p99 over all (message, client) pairs and the share within 1 s; for each
 * message, when 99 % of the clients had it, and the share of messages that reached 99 % of
 * clients within 1 s; chat messages and reaction bursts each client received a second, and the
 * socket reads that carried them; the servers' CPU per 1,000 clients; the clients' own CPU.
 * The clients are a light load generator: raw TCP sockets speaking WebSocket and socket.io's
 * protocol (websocket transport only), reading into one shared buffer per process (`onread`), and
 * doing no per-message work beyond finding the message's send time.
 * `--net netns` (the default as root with iproute2): the clients on a second host, a network namespace
 * joined by a veth pair (as bench:sfu puts its listeners), with its own ephemeral ports (widened to
 * 10000–65000) and each client process's file descriptor limit raised to the hard limit; the API
 * nodes listen on the link's address. `--net loopback`: clients on this host's loopback.
 * `--cpu-prof DIR`: the API nodes and the client processes write V8 CPU profiles there.
 * Options: --clients 10000 --seconds 20 --messages 20 --reactions 1000 --senders 100
 *          --reactors 500 --room-limit 40 --processes-per-node 2 --net netns|loopback
 *          --cpu-prof DIR --push-interval <ms: CHAT_PUSH_INTERVAL_MS of the nodes>
 *          --pg <admin URL> --redis <URL>
 */
import { type ChildProcess, execFileSync, fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect as tcpConnect, type Socket as TcpSocket } from 'node:net';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CHAT_EVENTS, SOCKET_EVENTS } from '@radiobroadcaster/contracts';
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
interface SendCount {
  accepted: number;
  /** Refusals by error tag. */
  refused: Record<string, number>;
  /** Sends still unanswered when the process stopped waiting. */
  unanswered: number;
}
type FromClient =
  | { type: 'ready'; connected: number; failed: number; rssMiB: number }
  | { type: 'sent'; messages: SendCount; pressed: number }
  | {
      type: 'arrivals';
      /** Message id → latencies (ms, rounded) at this process's clients. */
      latencies: Record<string, number[]>;
      bursts: number;
      /** Presses that the bursts at one socket of this process added up to. */
      pressesSeen: number;
      /** Socket reads and WebSocket frames the clients took in the load window. */
      reads: number;
      frames: number;
      connected: number;
      /** This process's CPU in the load window (s). */
      cpu: number;
    };

interface ClientPlan {
  index: number;
  url: string;
  count: number;
  stationId: string;
  /** How many of this process's sockets chat, and the messages a second they send in all. */
  chatters: number;
  chatRate: number;
  /** How many press reactions, and the presses a second in all. */
  reactors: number;
  reactRate: number;
}

const enc = (s: string) => Buffer.from(s);
/** A masked client WebSocket text frame (the mask key is zero: the payload goes as is). */
function wsText(text: string): Buffer {
  const data = Buffer.from(text);
  const n = data.length;
  const head = n < 126 ? 6 : 8;
  const out = Buffer.alloc(head + n);
  out[0] = 0x81;
  if (n < 126) out[1] = 0x80 | n;
  else {
    out[1] = 0x80 | 126;
    out.writeUInt16BE(n, 2);
  }
  data.copy(out, head);
  return out;
}

/** Whether `buf[from..end)` begins with `what`. */
function startsWith(buf: Buffer, from: number, end: number, what: Buffer): boolean {
  return (
    end - from >= what.length && buf.compare(what, 0, what.length, from, from + what.length) === 0
  );
}

interface Conn {
  sock: TcpSocket;
  http: boolean;
  /** Bytes of a frame (or of the HTTP answer) that continue in the next read. */
  pending: Buffer | null;
  onConnect: () => void;
  fail: () => void;
}

/**
 * A light client process: raw TCP sockets speaking WebSocket and socket.io (websocket transport),
 * every socket reading into one shared buffer, and nothing done per message beyond finding its send
 * time.
 */
async function client(plan: ClientPlan): Promise<void> {
  const { hostname, port } = new URL(plan.url);
  const request = enc(
    `GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: ${hostname}:${port}\r\n` +
      'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n' +
      'Sec-WebSocket-Version: 13\r\n\r\n',
  );
  const shared = Buffer.allocUnsafe(256 * 1024);
  const latencies: Record<string, number[]> = {};
  let bursts = 0;
  let reads = 0;
  let frames = 0;
  let failed = 0;
  let ackId = 0;
  const acks = new Map<number, (body: string) => void>();
  const emit = (c: Conn, event: string, body: unknown, ack?: (b: string) => void) => {
    if (!ack) return void c.sock.write(wsText(`42${JSON.stringify([event, body])}`));
    const id = ++ackId;
    acks.set(id, ack);
    c.sock.write(wsText(`42${id}${JSON.stringify([event, body])}`));
  };
  const PONG = wsText('3');
  const CONNECT = wsText('40');
  const messageEvent = enc(`["${CHAT_EVENTS.message}",`);
  const burstEvent = enc(`["${CHAT_EVENTS.reactionBurst}",`);
  const marker = enc('"text":"bench ');

  const onPacket = (c: Conn, buf: Buffer, s: number, e: number) => {
    const t0 = buf[s];
    const t1 = e - s > 1 ? buf[s + 1] : -1;
    if (t0 === 0x34 && t1 === 0x32) {
      // 42[…]: an event
      if (startsWith(buf, s + 2, e, messageEvent)) {
        const at = buf.indexOf(marker, s);
        if (at < 0 || at >= e) return;
        const from = at + marker.length;
        const space = buf.indexOf(0x20, from);
        const quote = buf.indexOf(0x22, space);
        if (space < 0 || quote < 0 || quote > e) return;
        const id = buf.toString('latin1', from, space);
        const sentAt = Number(buf.toString('latin1', space + 1, quote));
        (latencies[id] ??= []).push(Math.round(now() - sentAt));
      } else if (startsWith(buf, s + 2, e, burstEvent)) {
        bursts++;
        // One socket per process adds up what the bursts carry: the presses the nodes accepted.
        if (c === counting.conn) {
          const [, body] = JSON.parse(buf.toString('utf8', s + 2, e)) as [
            string,
            { counts: Record<string, number> },
          ];
          pressesSeen += sum(body.counts);
        }
      }
    } else if (t0 === 0x34 && t1 === 0x33) {
      // 43<id>[…]: an acknowledgement
      let i = s + 2;
      let id = 0;
      while (i < e && buf[i]! >= 0x30 && buf[i]! <= 0x39) id = id * 10 + buf[i++]! - 0x30;
      const cb = acks.get(id);
      if (!cb) return;
      acks.delete(id);
      cb(buf.toString('utf8', i, e));
    } else if (t0 === 0x32 && e - s === 1) c.sock.write(PONG);
    else if (t0 === 0x30) c.sock.write(CONNECT);
    else if (t0 === 0x34 && t1 === 0x30) c.onConnect();
    else if (t0 === 0x34 && t1 === 0x34) c.fail();
  };

  const onData = (c: Conn, chunk: Buffer) => {
    reads++;
    let buf = chunk;
    if (c.pending) {
      buf = Buffer.concat([c.pending, chunk]);
      c.pending = null;
    }
    let pos = 0;
    if (c.http) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) {
        c.pending = Buffer.from(buf);
        return;
      }
      if (buf.toString('latin1', 0, 12) !== 'HTTP/1.1 101') return c.fail();
      c.http = false;
      pos = end + 4;
    }
    while (pos + 2 <= buf.length) {
      let len = buf[pos + 1]! & 0x7f;
      let head = 2;
      if (len === 126) {
        if (pos + 4 > buf.length) break;
        len = buf.readUInt16BE(pos + 2);
        head = 4;
      } else if (len === 127) {
        if (pos + 10 > buf.length) break;
        len = Number(buf.readBigUInt64BE(pos + 2));
        head = 10;
      }
      if (pos + head + len > buf.length) break;
      frames++;
      if ((buf[pos]! & 0x0f) === 1) onPacket(c, buf, pos + head, pos + head + len);
      pos += head + len;
    }
    // The read buffer is shared: keep a copy of what continues.
    if (pos < buf.length) c.pending = Buffer.from(buf.subarray(pos));
  };

  const conns: Conn[] = [];
  const counting: { conn?: Conn } = {};
  let pressesSeen = 0;
  const open = () =>
    new Promise<void>((resolve) => {
      let done = false;
      const finish = (ok: boolean) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (ok) conns.push(c);
        else {
          failed++;
          c.sock.destroy();
        }
        resolve();
      };
      // A loaded machine answers joins slowly: how long they took is not what this measures.
      const timer = setTimeout(() => finish(false), 120_000);
      const sock = tcpConnect({
        host: hostname,
        port: Number(port),
        noDelay: true,
        onread: {
          buffer: shared,
          callback: (n: number) => {
            onData(c, shared.subarray(0, n));
            return true;
          },
        },
      });
      const c: Conn = {
        sock,
        http: true,
        pending: null,
        onConnect: () =>
          emit(c, SOCKET_EVENTS.join, { stationId: plan.stationId }, (body) =>
            finish(body.includes('"ok":true')),
          ),
        fail: () => finish(false),
      };
      sock.once('connect', () => sock.write(request));
      sock.on('error', () => finish(false));
      sock.once('close', () => finish(false));
    });
  const batch = 200;
  for (let i = 0; i < plan.count; i += batch)
    await Promise.all(Array.from({ length: Math.min(batch, plan.count - i) }, open));
  // Chatters name themselves (guests).
  const tag = randomBytes(2).toString('hex');
  const chatters = conns.slice(0, plan.chatters);
  const reactors = conns.slice(plan.chatters, plan.chatters + plan.reactors);
  const named = await Promise.all(
    chatters.map(
      (c, i) =>
        new Promise<boolean>((resolve) =>
          emit(
            c,
            CHAT_EVENTS.hello,
            { stationId: plan.stationId, name: `bench-${tag}-${plan.index}-${i}` },
            (body) => resolve(body.includes('"ok":true')),
          ),
        ),
    ),
  );
  if (named.some((ok) => !ok)) throw new Error('a chatter could not name itself (chat:hello)');
  counting.conn = conns.at(-1);
  send({
    type: 'ready',
    connected: conns.length,
    failed,
    rssMiB: process.memoryUsage().rss / 2 ** 20,
  });

  let cpuAtStart = process.cpuUsage();
  /** What the clients took in while the load ran. */
  let taken = { bursts: 0, reads: 0, frames: 0, cpu: 0 };
  process.on('message', (msg: ToClient) => {
    if (msg.type === 'start') {
      reads = 0;
      frames = 0;
      bursts = 0;
      cpuAtStart = process.cpuUsage();
      const count = (): SendCount => ({ accepted: 0, refused: {}, unanswered: 0 });
      const messages = count();
      pressesSeen = 0;
      const answer = (into: SendCount) => (body: string) => {
        if (body.includes('"ok":true')) into.accepted++;
        else {
          const tag = /"error":"([^"]+)"/.exec(body)?.[1] ?? 'other';
          into.refused[tag] = (into.refused[tag] ?? 0) + 1;
        }
      };
      const kinds = ['heart', 'fire', 'clap', 'laugh', 'wow'];
      const t0 = now();
      let sentMessages = 0;
      let sentReactions = 0;
      // Sends go round-robin over the senders at the planned rate, whatever the timer's jitter.
      const tick = setInterval(() => {
        const t = Math.min(msg.seconds, (now() - t0) / 1000);
        for (; sentMessages < Math.floor(t * plan.chatRate); sentMessages++) {
          const i = sentMessages % chatters.length;
          const text = `bench ${plan.index}-${sentMessages} ${now()}`;
          emit(
            chatters[i]!,
            CHAT_EVENTS.send,
            { stationId: plan.stationId, text },
            answer(messages),
          );
        }
        for (; sentReactions < Math.floor(t * plan.reactRate); sentReactions++) {
          const i = sentReactions % reactors.length;
          const body = { stationId: plan.stationId, kind: kinds[i % kinds.length] };
          // As the web app presses them: no acknowledgement (the bursts tell what was accepted).
          emit(reactors[i]!, CHAT_EVENTS.reactionSend, body);
        }
      }, 10);
      setTimeout(
        () => {
          clearInterval(tick);
          const cpu = process.cpuUsage(cpuAtStart);
          taken = { bursts, reads, frames, cpu: (cpu.user + cpu.system) / 1e6 };
          // The last acknowledgements may still be on their way (a loaded machine): up to 30 s more.
          const deadline = Date.now() + 30_000;
          const report = () => {
            if (acks.size > 0 && Date.now() < deadline) return void setTimeout(report, 100);
            messages.unanswered = sentMessages - messages.accepted - sum(messages.refused);
            send({ type: 'sent', messages, pressed: sentReactions });
          };
          report();
        },
        msg.seconds * 1000 + 50,
      );
    } else if (msg.type === 'collect') {
      send({ type: 'arrivals', latencies, ...taken, pressesSeen, connected: conns.length });
    } else {
      for (const c of conns) c.sock.destroy();
      process.exit(0);
    }
  });
}

const sum = (r: Record<string, number>) => Object.values(r).reduce((n, v) => n + v, 0);

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
function startClient(
  self: string,
  plan: ClientPlan,
  host: ClientHost | null,
  nodeArgs: string[],
): ChildProcess {
  const args = ['--client', JSON.stringify(plan)];
  if (!host)
    return fork(self, args, {
      execArgv: nodeArgs,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
  // `ip netns exec` execs node in place, so the IPC channel's descriptor carries over.
  const script = `ulimit -n "$(ulimit -Hn)"; exec ip netns exec "$0" "$@"`;
  return spawn('sh', ['-c', script, host.ns, process.execPath, ...nodeArgs, self, ...args], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

function send(msg: FromClient): void {
  process.send!(msg);
}

/** The room limit's default in the product (config.ts), for the bench to say what it changed. */
const PRODUCT_ROOM_LIMIT = 20;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      clients: { type: 'string', default: '10000' },
      seconds: { type: 'string', default: '20' },
      messages: { type: 'string', default: '20' },
      reactions: { type: 'string', default: '1000' },
      senders: { type: 'string' },
      reactors: { type: 'string' },
      'room-limit': { type: 'string' },
      'processes-per-node': { type: 'string', default: '2' },
      net: { type: 'string' },
      'cpu-prof': { type: 'string' },
      'push-interval': { type: 'string' },
      ...CLUSTER_OPTIONS,
    },
  });
  const total = Number(values.clients);
  const seconds = Number(values.seconds);
  const msgRate = Number(values.messages);
  const reactRate = Number(values.reactions);
  const perNode = Number(values['processes-per-node']);
  const processes = 2 * perNode;
  // Each sender once every 5 s, each reactor 2 presses a second: far inside the per-client limits
  // (a message a second, bursts of 5; 8 reactions a second, bursts of 16).
  const senders = Number(values.senders ?? Math.max(processes, Math.ceil(msgRate * 5)));
  const reactors = Number(values.reactors ?? Math.max(processes, Math.ceil(reactRate / 2)));
  const roomLimit = Number(values['room-limit'] ?? Math.max(PRODUCT_ROOM_LIMIT, 2 * msgRate));
  for (const [k, v] of Object.entries({ clients: total, seconds, senders, reactors, roomLimit }))
    if (!Number.isFinite(v) || v <= 0) throw new Error(`--${k}: a positive number`);
  if (senders / processes > total / processes / 2 || reactors + senders > total)
    throw new Error('--senders and --reactors: fewer than the clients');
  if (msgRate / senders > 0.5)
    throw new Error('--senders: at least two per message a second (the per-client limit is 1/s)');
  if (reactRate / reactors > 6)
    throw new Error('--reactors: at least one per 6 reactions a second');

  const missing = netnsMissing();
  const net = values.net ?? (missing ? 'loopback' : 'netns');
  if (net !== 'netns' && net !== 'loopback') throw new Error('--net: netns or loopback');
  if (net === 'netns' && missing) throw new Error(`--net netns: ${missing}`);
  const host = net === 'netns' ? openClientHost() : null;

  const db = await scratchDatabase(values.pg);
  const env = {
    ...clusterEnv(db.url, values.redis),
    RATE_LIMIT_CHAT_ROOM_PER_SECOND: String(roomLimit),
    ...(values['push-interval'] ? { CHAT_PUSH_INTERVAL_MS: values['push-interval'] } : {}),
  };
  const nodeArgs = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : [];
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
  let failedRun = false;
  try {
    nodes.push(await startApi(env, 0, host?.hostIp, nodeArgs));
    nodes.push(await startApi(env, 1, host?.hostIp, nodeArgs));
    const seeded = await seedStation(nodes[0]!.url);
    console.log(
      `chat bench: ${fmt(total)} clients of one station, half on each of 2 API nodes (cores 0 and 1) ` +
        `sharing PostgreSQL and Redis; ${fmt(msgRate)} messages/s from ${fmt(senders)} guests ` +
        `(one each every ${fmt(senders / msgRate, 1)} s) and ${fmt(reactRate)} reactions/s from ` +
        `${fmt(reactors)} clients for ${seconds} s. ` +
        (host
          ? `Clients: ${processes} processes on a second host (network namespace ${host.ns}, ${host.clientIp}, unpinned) ` +
            `reaching the nodes at ${host.hostIp} over a veth pair.`
          : `Clients: ${processes} processes on this host's loopback (unpinned).`) +
        `\nThe room's limit is set to ${fmt(roomLimit)} messages/s (bursts of ${fmt(2 * roomLimit)}; ` +
        `RATE_LIMIT_CHAT_ROOM_PER_SECOND, ${PRODUCT_ROOM_LIMIT} by default) so that it does not ` +
        `refuse the offered ${fmt(msgRate)}/s; slow mode is off (the default). ` +
        `Room pushes written together every ${values['push-interval'] ?? '500 (the default)'} ms ` +
        '(CHAT_PUSH_INTERVAL_MS).',
    );
    const self = fileURLToPath(import.meta.url);
    const plans: ClientPlan[] = [];
    for (const node of nodes)
      for (let p = 0; p < perNode; p++)
        plans.push({
          index: plans.length,
          url: node.url,
          count: 0,
          stationId: seeded.stationId,
          chatters: 0,
          chatRate: msgRate / processes,
          reactors: 0,
          reactRate: reactRate / processes,
        });
    for (let i = 0; i < total; i++) plans[i % plans.length]!.count++;
    for (let i = 0; i < senders; i++) plans[i % plans.length]!.chatters++;
    for (let i = 0; i < reactors; i++) plans[i % plans.length]!.reactors++;
    for (const plan of plans) {
      plan.chatRate = (msgRate * plan.chatters) / senders;
      plan.reactRate = (reactRate * plan.reactors) / reactors;
    }
    const ready = plans.map((plan) => {
      const child = startClient(self, plan, host, nodeArgs);
      children.push(child);
      return next<FromClient & { type: 'ready' }>(child, 'ready');
    });
    const joined = await Promise.all(ready);
    const connected = joined.reduce((n, r) => n + r.connected, 0);
    console.log(
      `connected and joined: ${fmt(connected)} (${fmt(joined.reduce((n, r) => n + r.failed, 0))} failed); ` +
        `client processes' memory: ${joined.map((r) => `${fmt(r.rssMiB)} MiB`).join(', ')}`,
    );

    const load0 = loadavg();
    const cpu0 = nodes.map((n) => cpuSeconds(n.pid));
    const sentP = children.map((c) => next<FromClient & { type: 'sent' }>(c, 'sent'));
    for (const c of children) c.send({ type: 'start', seconds } satisfies ToClient);
    // Server CPU over the load window itself.
    const cpuP = new Promise<number[]>((resolve) =>
      setTimeout(() => resolve(nodes.map((n, i) => cpuSeconds(n.pid) - cpu0[i]!)), seconds * 1000),
    );
    const sent = await Promise.all(sentP);
    const cpu = await cpuP;
    // Late deliveries: give them a moment, as a listener would wait.
    await new Promise((r) => setTimeout(r, 2000));
    const load1 = loadavg();
    const arrivalsP = children.map((c) => next<FromClient & { type: 'arrivals' }>(c, 'arrivals'));
    for (const c of children) c.send({ type: 'collect' } satisfies ToClient);
    const arrivals = await Promise.all(arrivalsP);

    const byMessage = new Map<string, number[]>();
    for (const a of arrivals)
      for (const [k, v] of Object.entries(a.latencies)) {
        let list = byMessage.get(k);
        if (!list) byMessage.set(k, (list = []));
        for (const x of v) list.push(x);
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
    const tally = (pick: (s: FromClient & { type: 'sent' }) => SendCount) => {
      const out = { accepted: 0, unanswered: 0, refused: {} as Record<string, number> };
      for (const s of sent) {
        const c = pick(s);
        out.accepted += c.accepted;
        out.unanswered += c.unanswered;
        for (const [k, v] of Object.entries(c.refused)) out.refused[k] = (out.refused[k] ?? 0) + v;
      }
      return out;
    };
    const messages = tally((s) => s.messages);
    const pressed = sent.reduce((n, s) => n + s.pressed, 0);
    // Every client sees every burst: each process's counting socket saw all accepted presses.
    const pressesAccepted = Math.max(0, ...arrivals.map((a) => a.pressesSeen));
    // An accepted message no client had never reached 99 % of them.
    while (reached.length < messages.accepted) reached.push(Infinity);
    const showCount = (c: ReturnType<typeof tally>) =>
      `${fmt(c.accepted)} / ${fmt(sum(c.refused))}` +
      (sum(c.refused)
        ? ` (${Object.entries(c.refused)
            .map(([k, v]) => `${k} ${fmt(v)}`)
            .join(', ')})`
        : '') +
      (c.unanswered ? `; ${fmt(c.unanswered)} unanswered` : '');
    let delivered = 0;
    let within1s = 0;
    for (const list of byMessage.values()) {
      delivered += list.length;
      for (const x of list) if (x <= 1000) within1s++;
    }
    const expected = messages.accepted * connected;
    // Every delivery, sorted once (a typed array sorts numbers fast; there are millions).
    const all = new Float64Array(delivered);
    let filled = 0;
    for (const list of byMessage.values()) for (const x of list) all[filled++] = x;
    all.sort();
    const perClient = (n: number) => fmt(n / Math.max(1, connected) / seconds, 2);
    const w = arrivals.reduce(
      (acc, a) => ({
        bursts: acc.bursts + a.bursts,
        reads: acc.reads + a.reads,
        frames: acc.frames + a.frames,
        cpu: acc.cpu + a.cpu,
      }),
      { bursts: 0, reads: 0, frames: 0, cpu: 0 },
    );
    /** Nearest-rank quantile of values sorted ascending. */
    const ms = (q: number, sorted: ArrayLike<number>) =>
      fmt(
        sorted.length
          ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
          : NaN,
      );
    console.log(
      `\n${table(
        ['figure', 'value'],
        [
          ['messages accepted / refused', showCount(messages)],
          [
            'reactions pressed / carried by the bursts',
            `${fmt(pressed)} / ${fmt(pressesAccepted)}`,
          ],
          [
            'delivery p50 / p95 / p99 over all (message, client) pairs (ms)',
            `${ms(0.5, all)} / ${ms(0.95, all)} / ${ms(0.99, all)}`,
          ],
          [
            'deliveries within 1 s (of every accepted message to every client)',
            `${fmt((100 * within1s) / Math.max(1, expected), 2)} % (${fmt(delivered)} of ${fmt(expected)} delivered)`,
          ],
          [
            '99 % of clients had a message by: p50 / p95 / p99 over messages (ms)',
            `${ms(0.5, reached)} / ${ms(0.95, reached)} / ${ms(0.99, reached)}`,
          ],
          [
            'messages that reached 99 % of clients within 1 s',
            `${fmt((100 * reached.filter((r) => r <= 1000).length) / Math.max(1, reached.length), 1)} %`,
          ],
          ['deliveries beyond one per client (duplicates)', fmt(duplicates)],
          ['chat messages per client per second', perClient(delivered)],
          ['reaction messages per client per second', perClient(w.bursts)],
          [
            'WebSocket frames / socket reads per client per second',
            `${perClient(w.frames)} / ${perClient(w.reads)}`,
          ],
          [
            'server CPU node A / B in the load window (s)',
            `${fmt(cpu[0]!, 1)} / ${fmt(cpu[1]!, 1)}`,
          ],
          [
            'server CPU per 1,000 clients (% of a core)',
            fmt((100 * (cpu[0]! + cpu[1]!)) / seconds / (connected / 1000), 1),
          ],
          ["client processes' CPU in the load window (s, all)", fmt(w.cpu, 1)],
          ['load average (1 min) at start / end', `${fmt(load0[0]!, 2)} / ${fmt(load1[0]!, 2)}`],
        ],
      )}`,
    );
    const met = quantile(reached, 0.99) <= 1000;
    console.log(
      `\nGoal: p99 delivery of messages within 1 s to 99 % of ${fmt(connected)} clients: ${met ? 'yes' : 'NO'}`,
    );
    const refusedMessages = sum(messages.refused) + messages.unanswered;
    const refusedReactions = pressed - pressesAccepted;
    if (refusedMessages || refusedReactions) {
      failedRun = true;
      console.error(
        `\nFAILED: the send plan was refused: ${fmt(refusedMessages)} message(s), ` +
          `${fmt(refusedReactions)} reaction(s) refused or lost (see the tags above): ` +
          'the figures do not measure the offered load.',
      );
    }
  } finally {
    for (const c of children) if (c.connected) c.send({ type: 'exit' } satisfies ToClient);
    await Promise.all(
      children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)),
    );
    for (const n of nodes) await n.stop();
    await db.drop();
    host?.close();
  }
  if (failedRun) process.exitCode = 1;
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
