/** The engine's figures (EngineStats): stations, shards, admission, recovery and the node's one port. */
import type { IceMux, IceMuxStats } from '../boundary/ice-mux.js';
import type { EngineStats } from '../media-engine.js';
import type { IceMuxRouter } from '../net/ice-mux-router.js';
import type { Admission } from './admission.js';
import type { ListenerSessions } from './listener-sessions.js';
import type { Publishers } from './publishers.js';
import type { ShardPool } from './shard-pool.js';
import type { StationBook } from './stations.js';

export interface EngineParts {
  readonly stations: StationBook;
  readonly publishers: Publishers;
  readonly listeners: ListenerSessions;
  readonly shards: ShardPool;
  readonly admission: Admission;
  /** The node's one port, when the engine has one. */
  readonly net?: {
    router: IceMuxRouter;
    mux: IceMux;
    ports: { udpPort: number; tcpPort?: number };
  };
}

export function engineStats(parts: EngineParts): EngineStats {
  const { stations, shards, admission } = parts;
  const perShard = shards.shards.map((s) => s.stats());
  let publishers = 0;
  let listeners = 0;
  for (const st of stations.values()) {
    if (st.publisher) publishers++;
    listeners += stations.sum(st);
  }
  return {
    stations: stations.size,
    publishers,
    listeners,
    pendingListeners: Math.max(0, parts.listeners.size - listeners),
    maxListeners: admission.capacity(),
    shards: shards.mode === 'worker' ? shards.length : 0,
    packetsIn: parts.publishers.packetsIn,
    packetsOut: perShard.reduce((a, s) => a + s.packetsOut, 0),
    bytesOut: perShard.reduce((a, s) => a + s.bytesOut, 0),
    recovery: {
      nackedFromPublishers: parts.publishers.nackedFromPublishers(),
      retransmittedToListeners: perShard.reduce((a, s) => a + s.retransmits, 0),
    },
    perShard: perShard.map((s, i) => {
      const limit = admission.shardLimit(i);
      return {
        listeners: s.listeners,
        packetsOut: s.packetsOut,
        sendErrors: s.sendErrors,
        srtp: { gcm: s.gcm, cm: s.cm },
        capacity: Number.isFinite(limit) ? limit : null,
        measuredCapacity: admission.shardCapacity(i),
        cpuSeconds: s.cpuSeconds,
        consent: s.consent,
      };
    }),
    net: netStats(
      parts,
      perShard.map((s) => s.mux),
    ),
  };
}

function netStats(parts: EngineParts, shardMux: (IceMuxStats | undefined)[]): EngineStats['net'] {
  if (!parts.net) return undefined;
  const { router, mux, ports } = parts.net;
  const r = router.stats();
  // the in-thread shard shares this thread's mux
  const all = [mux.stats(), ...(parts.shards.mode === 'worker' ? shardMux : [])];
  const sum = (k: keyof IceMuxStats) => all.reduce((a, m) => a + (m?.[k] ?? 0), 0);
  return {
    udpPort: ports.udpPort,
    tcpPort: ports.tcpPort ?? null,
    sessions: sum('sessions'),
    links: sum('links'),
    tcpConnections: r.tcpOpen,
    firstContact: r.routed,
    dropped: r.dropped + r.tcpRefused + sum('dropped'),
  };
}
