/** Small statistics helpers and publisher → listener latency matching. */
import { createHash } from 'node:crypto';
import { percentile } from '@radiobroadcaster/contracts';

/** Linear-interpolated percentile (p in 0..100) of unsorted values (the shared helper). */
export { percentile };

export interface Summary {
  count: number;
  min?: number;
  p50?: number;
  p95?: number;
  max?: number;
  mean?: number;
}

export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) return { count: 0 };
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
  }
  return {
    count: values.length,
    min: round(min),
    p50: round(percentile(values, 50)!),
    p95: round(percentile(values, 95)!),
    max: round(max),
    mean: round(sum / values.length),
  };
}

export function round(v: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

export function sha1Hex(payload: Uint8Array): string {
  return createHash('sha1').update(payload).digest('hex');
}

/** A packet as the publisher's and the listener's records hold it. */
export interface PacketRecord {
  seq: number;
  /** The RTP timestamp, where the record has it. */
  ts?: number;
  /** Send or receive time on the shared `nowMs()` clock. */
  t: number;
  sha1: string;
}

export interface LatencyMatch {
  /** ms per matched packet (receive time − send time). */
  latencies: number[];
  /** Received packets whose payload equals the sent payload at the matched sequence number. */
  matched: number;
  /** Received packets whose payload differs from the sent packet at the matched sequence number. */
  mismatched: number;
  /** Received packets with no sent packet at the matched sequence number (e.g. not yet in the log). */
  unknown: number;
  /** Listener seq − publisher seq (mod 2^16): the SFU may renumber. */
  seqOffset?: number;
}

/**
 * Matches a listener's received packets to the publisher's sent packets. The SFU may rewrite
 * sequence numbers by a constant offset (mediasoup's consumers number from a random start), so:
 * the sequence numbers as they are when they explain the payloads; else the RTP timestamps as they
 * are, where both records carry them (both engines keep a publisher's timestamps); else the offset
 * most common among packets with equal payload hashes. Each received packet is then compared with
 * the sent packet it maps to. A steady tone repeats payloads every few packets, so payloads alone
 * leave the offset ambiguous by whole periods: an offset one period off explains every payload and
 * adds that period to every latency (bench:sfu read 403 ms p95 on mediasoup that way).
 */
export function matchPackets(
  sent: readonly PacketRecord[],
  received: readonly PacketRecord[],
): LatencyMatch {
  const bySeq = new Map<number, PacketRecord>();
  const byHash = new Map<string, number[]>();
  for (const s of sent) {
    bySeq.set(s.seq, s);
    const list = byHash.get(s.sha1);
    if (list) list.push(s.seq);
    else byHash.set(s.sha1, [s.seq]);
  }
  // A sample of received packets to score candidate offsets with.
  const step = Math.max(1, Math.floor(received.length / 200));
  const sample = received.filter((_, i) => i % step === 0);
  const score = (off: number) =>
    sample.filter((r) => bySeq.get((r.seq - off) & 0xffff)?.sha1 === r.sha1).length;
  let seqOffset: number | undefined;
  let byTs: Map<number, PacketRecord> | undefined;
  const withTs = (list: readonly PacketRecord[]) => list.every((p) => p.ts !== undefined);
  if (sample.length > 0 && score(0) >= 0.9 * sample.length) {
    seqOffset = 0; // the common case: the SFU keeps sequence numbers
  } else if (sample.length > 0 && withTs(sent) && withTs(received)) {
    const map = new Map<number, PacketRecord>();
    for (const s of sent) map.set(s.ts!, s);
    const tsScore = sample.filter((r) => map.get(r.ts!)?.sha1 === r.sha1).length;
    if (tsScore >= 0.9 * sample.length) byTs = map;
  }
  if (seqOffset === undefined && byTs === undefined && sample.length > 0) {
    // Vote with payloads that occur once in what was sent (a steady tone repeats payloads),
    // then with every occurrence on a small sample; keep the candidate that explains most packets.
    const votes = new Map<number, number>();
    const vote = (r: PacketRecord, seqs: number[]) => {
      for (const seq of seqs) {
        const off = (r.seq - seq) & 0xffff;
        votes.set(off, (votes.get(off) ?? 0) + 1);
      }
    };
    for (const r of sample) {
      const seqs = byHash.get(r.sha1);
      if (seqs && seqs.length === 1) vote(r, seqs);
    }
    for (const r of sample.slice(0, 20)) {
      const seqs = byHash.get(r.sha1);
      if (seqs && seqs.length > 1) vote(r, seqs);
    }
    const candidates = [...votes.entries()].sort((a, b) => b[1] - a[1]).slice(0, 5);
    let best = 0;
    for (const [off] of candidates) {
      const sc = score(off);
      if (sc > best) {
        best = sc;
        seqOffset = off;
      }
    }
  }
  const latencies: number[] = [];
  let matched = 0;
  let mismatched = 0;
  let unknown = 0;
  if (byTs) {
    for (const r of received) {
      const s = r.ts === undefined ? undefined : byTs.get(r.ts);
      if (!s) unknown++;
      else if (s.sha1 === r.sha1) {
        matched++;
        latencies.push(r.t - s.t);
        seqOffset ??= (r.seq - s.seq) & 0xffff;
      } else mismatched++;
    }
    return { latencies, matched, mismatched, unknown, seqOffset };
  }
  for (const r of received) {
    const s = seqOffset === undefined ? undefined : bySeq.get((r.seq - seqOffset) & 0xffff);
    if (!s) unknown++;
    else if (s.sha1 === r.sha1) {
      matched++;
      latencies.push(r.t - s.t);
    } else mismatched++;
  }
  return { latencies, matched, mismatched, unknown, seqOffset };
}

/** Parses a publisher record file (NDJSON lines with seq, t/sentAt and sha1 or hex). */
export function parsePacketLog(text: string): PacketRecord[] {
  const out: PacketRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let o: { seq?: number; ts?: number; t?: number; sha1?: string; hex?: string };
    try {
      o = JSON.parse(line) as typeof o;
    } catch {
      continue; // e.g. the last line of a file still being written
    }
    if (typeof o.seq !== 'number' || typeof o.t !== 'number') continue;
    const sha1 = o.sha1 ?? (o.hex ? sha1Hex(Buffer.from(o.hex, 'hex')) : undefined);
    if (!sha1) continue;
    out.push({ seq: o.seq, ...(typeof o.ts === 'number' ? { ts: o.ts } : {}), t: o.t, sha1 });
  }
  return out;
}
