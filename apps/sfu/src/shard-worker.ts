/**
 * Worker thread entry: one listener shard. Loaded from the compiled `dist/shard-worker.js`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ListenerShard, type ShardConfig } from './listener-shard.js';
import type { ShardPacket, ShardReply, ShardRequest } from './shard-protocol.js';

if (!parentPort) throw new Error('shard-worker must run in a worker thread');
const port = parentPort;

const post = (m: ShardReply) => port.postMessage(m);
const shard = new ListenerShard(workerData as ShardConfig, (e) => post({ op: 'event', e }));

async function handle(req: ShardRequest): Promise<unknown> {
  switch (req.op) {
    case 'add':
      return shard.addListener(req.stationId, req.sessionId, req.offer);
    case 'remove':
      return shard.removeListener(req.stationId, req.sessionId);
    case 'closeStation':
      return shard.closeStation(req.stationId);
    case 'restartIce':
      return shard.restartIce(req.stationId, req.sessionId, req.offer);
    case 'close':
      await shard.close();
      setImmediate(() => port.close());
      return true;
  }
}

port.on('message', (msg: ShardRequest | ShardPacket) => {
  if (msg.op === 'pkt') {
    shard.packet(msg.s, msg.q, msg.ts, msg.m, msg.p);
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
