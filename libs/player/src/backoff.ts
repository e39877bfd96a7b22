export interface BackoffOptions {
  /** First delay, ms. */
  baseMs: number;
  /** Largest delay, ms. Kept small so a returning station is heard within seconds. */
  maxMs: number;
  /** Fraction of each delay that is randomised downwards (0 = none), so listeners don't reconnect in step. */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 4000, jitter: 0.2 };

/**
 * Delay before reconnect attempt `attempt` (0-based): base·2^attempt capped at max, minus up to
 * `jitter` of it. 500, 1000, 2000, 4000, 4000, … ms by default.
 */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions = DEFAULT_BACKOFF,
  random: () => number = Math.random,
): number {
  const n = Math.max(0, Math.floor(attempt));
  const raw = Math.min(options.maxMs, options.baseMs * 2 ** Math.min(n, 30));
  return Math.round(raw * (1 - options.jitter * random()));
}
