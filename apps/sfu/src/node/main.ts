/**
 * `npm run start:sfu`: one SFU node of a cluster. Its engine (werift or mediasoup, engine-choice.ts), the
 * internal HTTP API for the API nodes, the Redis registration and events. See README, "Cluster".
 */
import { createMediaEngine } from '../engine-choice.js';
import { loadSfuNodeConfig } from './config.js';
import { SfuNode } from './sfu-node.js';

const cfg = loadSfuNodeConfig();
const { engine, choice } = await createMediaEngine(
  {
    announcedAddress: cfg.announcedAddress,
    portRange: cfg.portRange,
    udpPort: cfg.udpPort,
    tcpPort: cfg.tcpPort,
    iceServers: cfg.iceServers,
    shards: cfg.shards,
    maxListeners: cfg.maxListeners,
    engine: cfg.mediaEngine,
  },
  (line) => console.log(`[sfu-node] ${line}`),
);
const node = new SfuNode(engine, cfg, choice.engine);
await node.start();
const net = engine.stats().net;
console.log(
  `[sfu-node] ${node.id} listening on ${node.url} (${choice.engine === 'werift' ? `${(engine as { shardMode?: string }).shardMode} shards` : `${engine.stats().shards} mediasoup workers`}${net ? `, WebRTC on UDP ${net.udpPort}${net.tcpPort ? ` and TCP ${net.tcpPort}` : ''}` : ''})`,
);

let stopping = false;
/** Drains (see SfuNode.drain), then leaves the cluster and exits 0; a second signal exits at once. */
const stop = async (signal: string) => {
  if (stopping) process.exit(130);
  stopping = true;
  console.log(`[sfu-node] ${signal}: draining (up to ${cfg.drainTimeoutMs / 1000} s)`);
  const force = setTimeout(() => process.exit(1), cfg.drainTimeoutMs + 5000);
  force.unref();
  await node.drain(cfg.drainTimeoutMs).catch((err) => console.error('[sfu-node] drain', err));
  console.log('[sfu-node] drained: leaving the cluster');
  await node.close().catch((err) => console.error('[sfu-node] close', err));
  await engine.close().catch((err) => console.error('[sfu-node] engine close', err));
  process.exit(0);
};
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
