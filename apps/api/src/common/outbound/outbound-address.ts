import { BlockList, isIP } from 'node:net';

/**
 * Addresses the server never connects to on a user's behalf (relays, title updates, webhooks,
 * Web Push...) unless the operator allows private networks: private, loopback, link-local (cloud
 * metadata at 169.254.169.254), CGNAT, unspecified, multicast, broadcast, benchmark, documentation
 * and other special-purpose ranges of the IANA registries, and IPv6 forms that carry such an IPv4
 * address (mapped, compatible, NAT64, 6to4).
 */
const V4 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.31.196.0', 24], // AS112
  ['192.52.193.0', 24], // AMT
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16],
  ['192.175.48.0', 24], // AS112
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, 255.255.255.255 broadcast
] as const)
  V4.addSubnet(net, prefix, 'ipv4');

const V6 = new BlockList();
for (const [net, prefix] of [
  ['::', 96], // unspecified, loopback, IPv4-compatible
  ['::ffff:0:0:0', 96], // IPv4-translated
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, ...)
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
  ['5f00::', 16], // SRv6 SIDs
  ['fc00::', 7], // unique local (fd00:ec2::254 is AWS metadata)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const)
  V6.addSubnet(net, prefix, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (valid input assumed; a zone id is dropped). */
function groups(address: string): number[] {
  const bare = address.replace(/%.*$/, '');
  // A dotted IPv4 tail (::ffff:1.2.3.4) becomes its two groups.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(bare);
  let text = bare;
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${bare.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  const fill = tail === undefined ? [] : new Array<number>(8 - left.length - right.length).fill(0);
  return [...left, ...fill, ...right];
}

const v4of = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** The IPv4 address an IPv6 address carries and that its packets end up at, if any. */
function embeddedV4(g: number[]): string | null {
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && g[5] === 0xffff) return v4of(g[6]!, g[7]!); // ::ffff:a.b.c.d (mapped)
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return v4of(g[6]!, g[7]!); // NAT64
  if (g[0] === 0x2002) return v4of(g[1]!, g[2]!); // 6to4
  return null;
}

/** True when `address` (an IP literal) must not be connected to; anything that is not an IP is refused too. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address.replace(/%.*$/, ''));
  if (family === 4) return V4.check(address, 'ipv4');
  if (family !== 6) return true;
  const g = groups(address);
  const v4 = embeddedV4(g);
  if (v4 !== null) return V4.check(v4, 'ipv4');
  const canonical = g.map((x) => x.toString(16)).join(':');
  return V6.check(canonical, 'ipv6');
}

/** The host a socket connects to for a URL's hostname: an IPv6 literal loses its brackets. */
export function socketHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** Names that always mean this machine (RFC 6761), refused before any lookup. */
export function isLocalName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}
