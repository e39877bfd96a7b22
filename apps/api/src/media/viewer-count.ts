/**
 * How many listeners a station shows (`viewerCount`): every listening connection (WebRTC and HTTP)
 * counts, but one address counts for at most `VIEWER_COUNT_PER_ADDRESS` of them, so one client
 * opening many streams cannot inflate the figure its owner and its audience see. An address is an
 * IPv4 address, or an IPv6 /64 (what one subscriber gets), IPv4-mapped IPv6 read as IPv4. The one
 * place this is counted: {@link countedViewers}, used by `ListenerCounts` when it publishes
 * `station.listeners`.
 */
import { isIPv6 } from 'node:net';

/** The address a client IP counts under: IPv4 as is, IPv6 by its /64. */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!isIPv6(ip)) return ip;
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g || '0', 16).toString(16))
    .join(':')}::/64`;
}

/** A listener slot's id: its address, then a unique part (so a station's slots give its addresses). */
export function listenerSlotId(ip: string, unique: string): string {
  return `${addressKey(ip)}|${unique}`;
}

/** The address a slot id was made for (null for ids from before addresses were kept). */
export function addressOfSlot(id: string): string | null {
  const at = id.lastIndexOf('|');
  return at > 0 ? id.slice(0, at) : null;
}

/** Slots of one station by address. */
export function slotsByAddress(slotIds: Iterable<string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const id of slotIds) {
    const address = addressOfSlot(id);
    if (address) out.set(address, (out.get(address) ?? 0) + 1);
  }
  return out;
}

export interface ViewerCount {
  /** What the station shows. */
  viewerCount: number;
  /** Listening connections open (WebRTC + HTTP). */
  connections: number;
  /** Distinct addresses holding a listener slot. */
  addresses: number;
}

/**
 * `connections` open, the station's slots by address, and the cap per address (0: no cap): each
 * address beyond the cap takes its excess off the count.
 */
export function countedViewers(
  connections: number,
  byAddress: ReadonlyMap<string, number>,
  perAddress: number,
): ViewerCount {
  let excess = 0;
  if (perAddress > 0) for (const n of byAddress.values()) excess += Math.max(0, n - perAddress);
  return {
    viewerCount: Math.max(0, connections - excess),
    connections,
    addresses: byAddress.size,
  };
}
