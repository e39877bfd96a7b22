/**
 * Packet loss with nftables, for the benches that impair a link (one copy: the SFU fan-out bench's
 * listener host, listener-host.ts, and the CLI's bench:net, apps/cli/bench/net-bench.ts, which loads
 * the built copy, apps/sfu/bench/dist/bench/loss-rules.js).
 */

/** An nftables table of the `inet` family, and the priority of its input and output hooks. */
export interface LossTable {
  name: string;
  priority: number;
}

/**
 * Replaces `table`: `percent` % (to 0.01 %) of the packets in and out of `dev` dropped
 * (`numgen random`), counted so the drops can be read back (`nft list table inet <name>`).
 */
export function lossRules(dev: string, percent: number, table: LossTable): string {
  const n = Math.round(percent * 100);
  return `
table inet ${table.name}
delete table inet ${table.name}
table inet ${table.name} {
  chain in {
    type filter hook input priority ${table.priority}; policy accept;
    iifname "${dev}" numgen random mod 10000 < ${n} counter drop
  }
  chain out {
    type filter hook output priority ${table.priority}; policy accept;
    oifname "${dev}" numgen random mod 10000 < ${n} counter drop
  }
}
`;
}
