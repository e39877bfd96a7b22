/** Latency from publisher to listeners, matched by payload against the publisher's packet log. */
import { readFileSync } from 'node:fs';
import { matchPackets, parsePacketLog, summarize, type PacketRecord } from '../stats.js';

export function readPublisherLog(path: string | undefined): PacketRecord[] | undefined {
  if (!path) return undefined;
  try {
    return parsePacketLog(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new Error(`cannot read --publisher-log ${path}: ${(e as Error).message}`);
  }
}

export function latencySummary(sent: PacketRecord[] | undefined, received: PacketRecord[][]) {
  if (!sent) return undefined;
  const all: number[] = [];
  let matched = 0;
  let mismatched = 0;
  let unknown = 0;
  for (const r of received) {
    const m = matchPackets(sent, r);
    for (const v of m.latencies) all.push(v);
    matched += m.matched;
    mismatched += m.mismatched;
    unknown += m.unknown;
  }
  return {
    latencyMs: summarize(all),
    payloadsMatched: matched,
    payloadsMismatched: mismatched,
    /** Received but not (yet) in the publisher's log. */
    payloadsNotInLog: unknown,
  };
}
