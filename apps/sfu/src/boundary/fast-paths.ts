/**
 * Whether the fast paths that reach into werift and Node internals are active in this process, or fell
 * back to the public (slower) ways. They fall back silently by design (a Node whose internals differ still
 * works): this report is how an operator, the benchmark and the tests see which one runs. Exposed on the
 * SFU node's and the API's GET /metrics as `rb_sfu_fast_path{path="…"} 1|0` and printed by `bench:sfu`.
 */
import { createSocket } from 'node:dgram';
import { lookupReplaceable, sendsThroughHandle } from './datagram-out.js';
import { weriftPatchesApplied } from './werift-patches.js';

export interface FastPaths {
  /** Listener datagrams go straight to Node's UDP handle (process.binding('udp_wrap')), not socket.send. */
  udpHandleSend: boolean;
  /** Unconnected sends to IPv4 literals skip dgram's next-tick address lookup. */
  udpSyncLookup: boolean;
  /** werift runs with the SFU's patches (STUN fallback, close_notify, X25519 and certificates via node:crypto, DTLS under loss). */
  weriftPatches: boolean;
}

let report: FastPaths | undefined;

/** This process's fast paths (probed once, on a UDP socket of its own that is never bound). */
export function fastPaths(): FastPaths {
  if (!report) {
    const probe = createSocket('udp4');
    try {
      report = {
        udpHandleSend: sendsThroughHandle(probe),
        udpSyncLookup: lookupReplaceable(probe),
        weriftPatches: weriftPatchesApplied(),
      };
    } finally {
      probe.close();
    }
  }
  return { ...report };
}

const NAMES: Record<keyof FastPaths, string> = {
  udpHandleSend: 'udp_handle_send',
  udpSyncLookup: 'udp_sync_lookup',
  weriftPatches: 'werift_patches',
};

/** One line for logs and benchmarks: `udp_handle_send=active udp_sync_lookup=active werift_patches=active`. */
export function describeFastPaths(paths: FastPaths): string {
  return Object.entries(NAMES)
    .map(([key, name]) => `${name}=${paths[key as keyof FastPaths] ? 'active' : 'fallback'}`)
    .join(' ');
}

/** Prometheus text lines for the report (`rb_sfu_fast_path{path="udp_handle_send"} 1`). */
export function fastPathMetrics(): string {
  const paths = fastPaths();
  return [
    '# HELP rb_sfu_fast_path Whether a fast path into werift/Node internals is active (1) or fell back (0).',
    '# TYPE rb_sfu_fast_path gauge',
    ...Object.entries(NAMES).map(
      ([key, name]) => `rb_sfu_fast_path{path="${name}"} ${paths[key as keyof FastPaths] ? 1 : 0}`,
    ),
    '',
  ].join('\n');
}
