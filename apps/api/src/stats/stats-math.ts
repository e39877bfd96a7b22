import type { ClientKind, ListeningSource } from '@radiobroadcaster/contracts';

export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

/** The start of the `unit`-long interval (ms since the epoch) holding `ms`. */
export function floor(ms: number, unit: number): number {
  return Math.floor(ms / unit) * unit;
}

/** A listening session as the rollups see it (times in ms; `end` null while it lasts). */
export interface SessionSpan {
  start: number;
  end: number | null;
}

export interface Bucket {
  /** Start of the bucket (ms). */
  t: number;
  /** Most sessions open at the same instant inside the bucket. */
  peak: number;
  /** Seconds listened inside the bucket, summed over sessions. */
  listenerSeconds: number;
  /** Sessions that started inside the bucket. */
  started: number;
  /** Lengths (s) of the sessions that ended inside the bucket. */
  endedLengths: number[];
}

/**
 * Cuts [from, to) into buckets of `size` ms and measures each from the sessions (open ones count
 * until `now`): a sweep over start/end instants gives the exact peak of concurrent listeners.
 */
export function bucketize(
  sessions: readonly SessionSpan[],
  from: number,
  to: number,
  size: number,
  now: number,
): Bucket[] {
  const buckets: Bucket[] = [];
  for (let t = from; t < to; t += size)
    buckets.push({ t, peak: 0, listenerSeconds: 0, started: 0, endedLengths: [] });
  if (buckets.length === 0) return buckets;
  const index = (ms: number) => Math.floor((ms - from) / size);
  // +1 at a start, -1 at an end; ends sort before starts at the same instant (back-to-back ≠ overlap).
  const events: [number, number][] = [];
  for (const s of sessions) {
    const end = s.end ?? now;
    if (end < s.start) continue;
    if (s.start >= from && s.start < to) buckets[index(s.start)]!.started++;
    if (s.end !== null && s.end >= from && s.end < to)
      buckets[index(s.end)]!.endedLengths.push((s.end - s.start) / 1000);
    const a = Math.max(s.start, from);
    const b = Math.min(end, to);
    for (let i = index(a); b > a && i < buckets.length && buckets[i]!.t < b; i++) {
      const bucket = buckets[i]!;
      const lo = Math.max(a, bucket.t);
      const hi = Math.min(b, bucket.t + size);
      if (hi > lo) bucket.listenerSeconds += (hi - lo) / 1000;
    }
    events.push([s.start, 1], [end, -1]);
  }
  events.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let level = 0;
  let e = 0;
  while (e < events.length && events[e]![0] < from) level += events[e++]![1];
  for (const bucket of buckets) {
    let peak = level;
    const end = bucket.t + size;
    while (e < events.length && events[e]![0] < end) {
      level += events[e++]![1];
      if (level > peak) peak = level;
    }
    bucket.peak = peak;
  }
  return buckets;
}

/** The median of the values, null when none (the one copy, in @radiobroadcaster/contracts). */
export { median } from '@radiobroadcaster/contracts';

/**
 * Session lengths kept as a histogram in the hourly rollups: 8 buckets per doubling
 * (≤ 9 % error), so a median stays available after raw sessions are deleted.
 */
const PER_DOUBLING = 8;

export function lengthBucket(seconds: number): number {
  return seconds < 1 ? 0 : 1 + Math.floor(Math.log2(seconds) * PER_DOUBLING);
}

/** The geometric middle of a bucket, in seconds. */
export function bucketValue(bucket: number): number {
  return bucket === 0 ? 0.5 : 2 ** ((bucket - 1 + 0.5) / PER_DOUBLING);
}

export type LengthHistogram = Record<string, number>;

export function histogramOf(lengths: readonly number[]): LengthHistogram {
  const h: LengthHistogram = {};
  for (const l of lengths) {
    const k = String(lengthBucket(l));
    h[k] = (h[k] ?? 0) + 1;
  }
  return h;
}

export function mergeHistograms(list: readonly LengthHistogram[]): LengthHistogram {
  const out: LengthHistogram = {};
  for (const h of list) for (const [k, n] of Object.entries(h)) out[k] = (out[k] ?? 0) + n;
  return out;
}

export function histogramMedian(h: LengthHistogram): number | null {
  const entries = Object.entries(h)
    .map(([k, n]) => [Number(k), n] as const)
    .sort((a, b) => a[0] - b[0]);
  const total = entries.reduce((s, [, n]) => s + n, 0);
  if (total === 0) return null;
  let seen = 0;
  for (const [k, n] of entries) {
    seen += n;
    if (seen * 2 >= total) return bucketValue(k);
  }
  return null;
}

/** A coarse client kind from the User-Agent (nothing else of it is kept). */
export function classifyClient(userAgent: string | null | undefined): ClientKind {
  const ua = userAgent ?? '';
  if (!ua) return 'other';
  if (/bot|crawler|spider|curl\/|wget|python-requests|httpclient|monitor/i.test(ua)) return 'bot';
  if (/radio-broadcaster|RadioBroadcaster|CFNetwork|Dalvik|okhttp/i.test(ua)) return 'app';
  if (
    /VLC|LibVLC|mpv|foobar|Winamp|iTunes|AppleCoreMedia|Lavf|GStreamer|Sonos|Alexa|Echo|Roku|BrightSign|MPlayer|ffmpeg/i.test(
      ua,
    )
  )
    return 'player';
  if (/Mobi|Android|iPhone|iPad|iPod/i.test(ua)) return 'mobile';
  if (/Mozilla\/5\.0/.test(ua)) return 'desktop';
  return 'other';
}

/**
 * Where the listener heard it, from the `Origin` of the join: one of our own origins, an
 * embedding site (its host), or no web page at all.
 */
export function whereHeard(
  origin: string | null | undefined,
  ownOrigins: readonly string[],
): { source: ListeningSource; domain: string | null } {
  if (!origin || origin === 'null') return { source: 'direct', domain: null };
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return { source: 'direct', domain: null };
  }
  if (ownOrigins.includes(url.origin)) return { source: 'site', domain: null };
  return { source: 'embed', domain: url.hostname.toLowerCase().slice(0, 255) };
}
