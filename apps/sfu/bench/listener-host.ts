/**
 * A second host for the benchmark's listeners: a network namespace joined to this one by a veth
 * pair, whose network stack runs on the load generator's core.
 *
 * On loopback the kernel delivers each datagram to its receiving socket inside the sender's send
 * call, so the SFU's core would pay for its listeners' network stacks (IP and UDP receive, socket
 * queueing, waking the listener process): about a third of its per-packet kernel time. On a real
 * network that work happens on the listeners' own machines. Here:
 *  - the listeners' side of the pair receives through NAPI (GRO on, with UDP GRO forwarding so the
 *    SFU's datagrams qualify), polled by a kernel thread pinned to the load generator's core;
 *  - that thread defers its re-arm briefly (napi_defer_hard_irqs, gro_flush_timeout: 100 µs), so a
 *    burst of sends wakes it once, not once per datagram;
 *  - the SFU's side has a FIFO qdisc, so a full veth ring holds the sender back instead of dropping.
 * The SFU still pays for everything a NIC send costs: the syscall, UDP/IP output, the device queue.
 *
 * Thousands of listeners in one Node process cannot read every datagram on one core (~18 µs each in
 * the listener process, with werift's STUN and RTCP beside it). So once a listener has its first
 * audio, the listeners' host counts its RTP in the kernel and drops it there: an nftables set of
 * the listeners' ports with a counter per port ({@link RTP_COUNTERS}), matched only by RTP of the
 * stream's payload type. STUN, DTLS and RTCP still reach the listeners (consent checks, reports).
 *
 * Needs root, iproute2 (ip, tc), ethtool and nftables; `openListenerHost` throws with the reason
 * otherwise.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { lossRules } from './loss-rules.js';

export interface ListenerHost {
  /** The namespace the listeners run in (`ip netns exec <ns> …`). */
  ns: string;
  /** The SFU's address on the link, and the listeners'. */
  sfuIp: string;
  listenerIp: string;
  /** A one-line description for the benchmark's output. */
  note: string;
  /** CPU seconds the listeners' network stack (its NAPI threads) has used so far. */
  cpuSeconds(): number;
  /**
   * Loses `lossPercent` % of what crosses the link, each way (nftables `numgen random` in the
   * listeners' namespace, on their veth: the SFU's datagrams are lost on the way in as the listeners'
   * are on the way out); 0 stops it. Returns the packets dropped, in and out, under the previous
   * setting.
   */
  impair(lossPercent: number): { in: number; out: number };
  close(): void;
}

/**
 * The nftables table of the listeners' host: set `rtp` holds the ports whose RTP is counted and
 * dropped, set `ref` the ports whose RTP is counted and still delivered (listeners that read every
 * packet: their counts give the stream's progress on the same clock as the others').
 */
export const RTP_TABLE = ['inet', 'rbsink'] as const;

/** RTP (version 2, no padding, extension or CSRC: what the SFU sends) of one payload type, by port. */
const countingRules = (payloadType: number) => {
  const rtp = `meta l4proto udp @th,64,8 0x80 @th,72,8 & 0x7f == ${payloadType}`;
  return `
table inet rbsink {
  set rtp { type inet_service; flags dynamic; counter; }
  set ref { type inet_service; flags dynamic; counter; }
  chain input {
    type filter hook input priority -300; policy accept;
    ${rtp} udp dport @ref
    ${rtp} udp dport @rtp drop
  }
}
`;
};

/** The nftables table that loses packets on the listeners' link ({@link ListenerHost.impair}). */
export const LOSS_TABLE = ['inet', 'rbloss'] as const;

const run = (cmd: string, args: string[], input?: string) =>
  execFileSync(cmd, args, { input, stdio: ['pipe', 'pipe', 'pipe'] }).toString();

/** Sets the link up; `cpu` is the load generator's core, `payloadType` the stream's RTP payload type. */
export function openListenerHost(cpu: number, payloadType: number): ListenerHost {
  const id = process.pid % 10000;
  const ns = `rb-listeners-${process.pid}`;
  const sfuDev = `rbl${id}s`;
  const lstDev = `rbl${id}l`;
  // a /30 per benchmark process, out of 10.213.0.0/16
  const net = `10.213.${(process.pid >> 6) & 0xff}.${(process.pid & 0x3f) * 4}`;
  const base = net.split('.').map(Number);
  const sfuIp = [...base.slice(0, 3), base[3]! + 1].join('.');
  const listenerIp = [...base.slice(0, 3), base[3]! + 2].join('.');
  const inNs = (cmd: string, args: string[]) => run('ip', ['netns', 'exec', ns, cmd, ...args]);
  sweepStaleHosts();
  let opened = false;
  let threads: number[] = [];
  const close = () => {
    if (!opened) return;
    opened = false;
    try {
      run('ip', ['netns', 'del', ns]); // takes the veth pair with it
    } catch {
      // already gone
    }
  };
  try {
    run('ip', ['netns', 'add', ns]);
    opened = true;
    run('ip', ['link', 'add', sfuDev, 'type', 'veth', 'peer', 'name', lstDev, 'netns', ns]);
    run('ip', ['addr', 'add', `${sfuIp}/30`, 'dev', sfuDev]);
    run('ip', ['link', 'set', sfuDev, 'up']);
    inNs('ip', ['addr', 'add', `${listenerIp}/30`, 'dev', lstDev]);
    inNs('ip', ['link', 'set', lstDev, 'up']);
    inNs('ip', ['link', 'set', 'lo', 'up']);
    run('ip', ['netns', 'exec', ns, 'nft', '-f', '-'], countingRules(payloadType));
    inNs('ethtool', ['-K', lstDev, 'gro', 'on', 'rx-udp-gro-forwarding', 'on']);
    run('tc', ['qdisc', 'replace', 'dev', sfuDev, 'root', 'pfifo', 'limit', '20000']);
    inNs('sh', [
      '-c',
      `echo 1 > /sys/class/net/${lstDev}/threaded && ` +
        `echo 2 > /sys/class/net/${lstDev}/napi_defer_hard_irqs && ` +
        `echo 100000 > /sys/class/net/${lstDev}/gro_flush_timeout`,
    ]);
    threads = napiThreads(lstDev);
    if (threads.length === 0) throw new Error(`no NAPI thread for ${lstDev}`);
    for (const pid of threads) run('taskset', ['-pc', String(cpu), String(pid)]);
  } catch (err) {
    close();
    const e = err as { stderr?: Buffer; message: string };
    throw new Error(`listener host: ${e.stderr?.toString().trim() || e.message}`);
  }
  // a benchmark stopped by Ctrl-C or `timeout` removes its host too
  const onSignal = (signal: NodeJS.Signals) => {
    close();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  const hooks = [
    ['exit', close],
    ['SIGINT', onSignal],
    ['SIGTERM', onSignal],
  ] as const;
  for (const [event, fn] of hooks) process.once(event, fn);
  return {
    ns,
    sfuIp,
    listenerIp,
    note:
      `listeners in network namespace ${ns} (${listenerIp}), their network stack on core ${cpu}; ` +
      'their RTP counted and dropped by nftables once they have their first audio',
    cpuSeconds: () => threads.reduce((a, pid) => a + threadCpuSeconds(pid), 0),
    impair: (lossPercent) => {
      let counts: number[] = [];
      try {
        const table = inNs('nft', ['list', 'table', ...LOSS_TABLE]);
        counts = [...table.matchAll(/counter packets (\d+)/g)].map((m) => Number(m[1]));
      } catch {
        // not impaired before
      }
      run(
        'ip',
        ['netns', 'exec', ns, 'nft', '-f', '-'],
        lossRules(lstDev, lossPercent, { name: LOSS_TABLE[1], priority: -310 }),
      );
      return { in: counts[0] ?? 0, out: counts[1] ?? 0 };
    },
    close: () => {
      for (const [event, fn] of hooks) process.off(event, fn);
      close();
    },
  };
}

/**
 * Removes the listener hosts of benchmark processes that are gone (killed before they could clean up):
 * a leftover veth address is one more interface for every WebRTC peer on the machine to try.
 */
function sweepStaleHosts(): void {
  let list = '';
  try {
    list = run('ip', ['netns', 'list']);
  } catch {
    return;
  }
  for (const m of list.matchAll(/^rb-listeners-(\d+)/gm)) {
    if (isAlive(Number(m[1]))) continue;
    try {
      run('ip', ['netns', 'del', m[0]]);
    } catch {
      // another process removed it
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** utime + stime of a process (/proc/<pid>/stat fields 14 and 15, in USER_HZ = 1/100 s). */
function threadCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Kernel threads polling `dev` (named `napi/<dev>-<id>`). */
function napiThreads(dev: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').startsWith(`napi/${dev}-`)) {
        out.push(Number(entry));
      }
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
