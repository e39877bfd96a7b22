/**
 * Worker thread entry: one listener shard. Loaded from the compiled `dist/shard-worker.js`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { IceMux } from '../boundary/ice-mux.js';
import { ListenerShard, type ShardConfig } from './listener-shard.js';
import {
  own,
  type MuxDown,
  type ShardPacket,
  type ShardReply,
  type ShardRequest,
} from './shard-protocol.js';

if (!parentPort) throw new Error('shard-worker must run in a worker thread');
const port = parentPort;

const post = (m: ShardReply) => port.postMessage(m);
const cfg = workerData as ShardConfig;
// The node's one port: this thread answers its peers on sockets of its own; only first contact and
// ICE-TCP streams cross from the main thread's router.
const mux = cfg.mux
  ? new IceMux(
      { tag: cfg.mux.tag, udpPort: cfg.mux.udpPort, tcpPort: cfg.mux.tcpPort },
      {
        stray: (d, a) => post({ op: 'mux', k: 'stray', d: own(d), a }),
        tcpWrite: (i, d) => post({ op: 'mux', k: 'tcpWrite', i, d: own(d) }),
        tcpClose: (i) => post({ op: 'mux', k: 'tcpClose', i }),
      },
    )
  : undefined;
const shard = new ListenerShard(cfg, (e) => post({ op: 'event', e }), mux);

function onMux(m: MuxDown): void {
  if (!mux) return;
  if (m.k === 'udp') mux.udp(Buffer.from(m.d.buffer, m.d.byteOffset, m.d.length), m.a);
  else if (m.k === 'tcpOpen') {
    mux.tcpOpen(m.i, m.u, m.a, Buffer.from(m.d.buffer, m.d.byteOffset, m.d.length));
  } else if (m.k === 'tcpData')
    mux.tcpData(m.i, Buffer.from(m.d.buffer, m.d.byteOffset, m.d.length));
  else mux.tcpClosed(m.i);
}

async function handle(req: ShardRequest): Promise<unknown> {
  switch (req.op) {
    case 'add':
      return shard.addListener(req.stationId, req.sessionId, req.offer);
    case 'remove':
      return shard.removeListener(req.stationId, req.sessionId);
    case 'closeStation':
      return shard.closeStation(req.stationId);
    case 'close':
      await shard.close();
      mux?.close();
      setImmediate(() => port.close());
      return true;
  }
}

port.on('message', (msg: ShardRequest | ShardPacket | MuxDown) => {
  if (msg.op === 'pkt') {
    shard.packet(msg.s, msg.q, msg.ts, msg.m, msg.p);
    return;
  }
  if (msg.op === 'mux') {
    onMux(msg);
    return;
  }
  handle(msg).then(
    (value) => post({ op: 'reply', id: msg.id, ok: true, value }),
    (err: unknown) => {
      const e = err instanceof Error ? err : new Error(String(err));
      post({ op: 'reply', id: msg.id, ok: false, error: { name: e.name, message: e.message } });
    },
  );
});

process.on('uncaughtException', (err) => {
  // never let one bad session take the shard down
  console.error('[sfu shard] uncaught', err);
});
process.on('unhandledRejection', (err) => {
  console.error('[sfu shard] unhandled rejection', err);
});
