/**
 * Medians and quantiles, the one copy (API statistics, the benchmarks, the CLI's measurements). Each
 * takes unsorted values and leaves them as they are.
 */

const ascending = (values: readonly number[]) => [...values].sort((a, b) => a - b);

/** The median (the mean of the two middle values for an even count); null when there are none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = ascending(values);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Linear-interpolated percentile (`p` in 0..100); undefined when there are no values. */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = ascending(values);
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}

/** Nearest-rank quantile (`q` in 0..1): a value that occurred, as latency reports quote; NaN when none. */
export function nearestRank(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = ascending(values);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
