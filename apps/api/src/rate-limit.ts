/**
 * A token bucket per key (a client address): `burst` calls at once, then one more every
 * `refillSeconds`. In memory, per API process; the clock is the caller's (deps.now), so tests
 * step it instead of waiting.
 *
 * @example
 * const limiter = new RateLimiter({ burst: 30, refillSeconds: 2 });
 * const wait = limiter.take('127.0.0.1', Date.now()); // 0: go ahead; else seconds to wait
 */
export interface RateLimit {
  burst: number;
  refillSeconds: number;
  /** Keys remembered at most; the ones whose bucket is full again are forgotten first. */
  maxKeys?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  constructor(private readonly limit: RateLimit) {}

  /** Takes one call for `key` at `nowMs`: 0 when it may go ahead, else whole seconds until it may. */
  take(key: string, nowMs: number): number {
    const { burst, refillSeconds } = this.limit;
    const found = this.buckets.get(key);
    const elapsed = found ? Math.max(0, nowMs - found.at) : 0;
    const tokens = found ? Math.min(burst, found.tokens + elapsed / (refillSeconds * 1000)) : burst;
    this.buckets.delete(key); // re-inserted last: the Map's order is least recently used first
    if (tokens >= 1) {
      this.buckets.set(key, { tokens: tokens - 1, at: nowMs });
      this.forgetIfFull(nowMs);
      return 0;
    }
    this.buckets.set(key, { tokens, at: nowMs });
    return Math.max(1, Math.ceil((1 - tokens) * refillSeconds));
  }

  private forgetIfFull(nowMs: number): void {
    const max = this.limit.maxKeys ?? 10_000;
    if (this.buckets.size <= max) return;
    const fullAfterMs = this.limit.burst * this.limit.refillSeconds * 1000;
    for (const [key, b] of this.buckets) if (nowMs - b.at >= fullAfterMs) this.buckets.delete(key);
    // Still too many distinct callers within the window: the least recent go (they start full).
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= max) break;
      this.buckets.delete(key);
    }
  }
}
