import type { Redis } from 'ioredis';

export interface RateLimitResult {
  allowed: boolean;
  /** Seconds until the window resets (for `Retry-After`). */
  retryAfter: number;
}

/** Per-key windows opened by the first hit: in Redis when given (limits hold across API nodes), in memory otherwise. */
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
      // The window opens at a key's first hit, as in memory: a fixed clock-aligned window would let a
      // burst straddling the boundary through twice.
      const k = `${this.prefix}:${key}`;
      const replies = await this.redis
        .multi()
        .incr(k)
        .pexpire(k, this.windowMs, 'NX')
        .pttl(k)
        .exec();
      if (!replies) throw new Error('rate limit transaction aborted');
      const [[incrErr, count], , [ttlErr, ttl]] = replies;
      if (incrErr) throw incrErr;
      if (ttlErr) throw ttlErr;
      const ms = Number(ttl) > 0 ? Number(ttl) : this.windowMs;
      return { allowed: Number(count) <= this.limit, retryAfter: Math.ceil(ms / 1000) };
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
