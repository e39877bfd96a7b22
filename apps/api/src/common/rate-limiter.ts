import type { Redis } from 'ioredis';

export interface RateLimitResult {
  allowed: boolean;
  /** Seconds until the window resets (for `Retry-After`). */
  retryAfter: number;
}

/** Fixed-window counters: in Redis when given (limits hold across API nodes), in memory otherwise. */
export class RateLimiter {
  private readonly memory = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly redis?: Redis,
    private readonly prefix = 'rl',
  ) {}

  async hit(key: string, now = Date.now()): Promise<RateLimitResult> {
    if (this.limit <= 0) return { allowed: true, retryAfter: 0 };
    if (this.redis) {
      const window = Math.floor(now / this.windowMs);
      const k = `${this.prefix}:${key}:${window}`;
      const count = await this.redis.incr(k);
      if (count === 1) await this.redis.pexpire(k, this.windowMs);
      const retryAfter = Math.ceil(((window + 1) * this.windowMs - now) / 1000);
      return { allowed: count <= this.limit, retryAfter };
    }
    let entry = this.memory.get(key);
    if (!entry || entry.resetAt <= now) {
      if (this.memory.size > 50_000) this.sweep(now);
      entry = { count: 0, resetAt: now + this.windowMs };
      this.memory.set(key, entry);
    }
    entry.count++;
    return {
      allowed: entry.count <= this.limit,
      retryAfter: Math.ceil((entry.resetAt - now) / 1000),
    };
  }

  private sweep(now: number): void {
    for (const [k, v] of this.memory) if (v.resetAt <= now) this.memory.delete(k);
  }
}
