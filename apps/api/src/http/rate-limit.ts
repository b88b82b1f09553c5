/**
 * A token bucket per key (an API key, a client address): `burst` calls at once, then one more
 * every `refillSeconds`, one bucket for every API process on the application database
 * (http/limit-store.ts), so a client spread over several processes by a balancer is held to one
 * limit, and a restart does not refill it. The clock is the caller's (deps.now), so tests step it.
 *
 * Calls of an agent are the hot path (/mcp): a process takes a few tokens from the shared bucket
 * at once and serves the next calls of that key from them, so the database is written once per
 * lease, not once per call. Leased tokens were taken from the bucket, so the processes together
 * never let through more than the bucket holds; the tokens a process leased but did not use
 * within LEASE_MS go back with its next take of that key (or are lost with it: fewer calls, never
 * more).
 *
 * @example
 * const limiter = new SharedRateLimiter(deps.app, 'mcp', { burst: 60, refillSeconds: 0.25 });
 * const wait = await limiter.take(keyId, deps.now().getTime()); // 0: go ahead; else seconds to wait
 */
import type { Client } from '@libsql/client';
import { takeTokens } from './limit-store.ts';

/**
 * The per-key rate limit of /mcp (SPEC §7d): a burst of 60 calls, then 240 a minute (one every
 * 250 ms), for all API processes on the database together. An agent reading a library steps far
 * slower; a loop that does not stop is held back. `MCP_CALLS_PER_MINUTE` changes the rate
 * (config.ts), the burst stays.
 */
export const MCP_BURST = 60;
export const MCP_CALLS_PER_MINUTE = 240;

export interface RateLimit {
  burst: number;
  refillSeconds: number;
}

/**
 * How long leased tokens stay one process's to use. Not measured: short beside the bucket's
 * window (a burst of 60 refills in 15 s at /mcp's default), long beside an agent's next call.
 */
export const LEASE_MS = 1_000;

/** Tokens leased at most: an eighth of the burst (1 for small bursts, which lease nothing), up to 8. */
export function leaseSize(burst: number): number {
  return Math.max(1, Math.min(8, Math.floor(burst / 8)));
}

/** Leases remembered at most; past it, lapsed ones are forgotten (their tokens are not returned). */
const MAX_LEASES = 10_000;

export class SharedRateLimiter {
  private readonly leases = new Map<string, { tokens: number; untilMs: number }>();
  private readonly lease: number;

  constructor(
    private readonly db: Client,
    /** Keeps this limiter's keys apart from other limiters' in the shared table. */
    private readonly scope: string,
    private readonly limit: RateLimit,
  ) {
    this.lease = leaseSize(limit.burst);
  }

  /** Takes one call for `key` at `nowMs`: 0 when it may go ahead, else whole seconds until it may. */
  async take(key: string, nowMs: number): Promise<number> {
    const bucket = `${this.scope}:${key}`;
    const held = this.leases.get(bucket);
    if (held && held.tokens >= 1 && nowMs < held.untilMs) {
      held.tokens -= 1;
      if (held.tokens < 1) this.leases.delete(bucket);
      return 0;
    }
    const returned = held ? Math.floor(held.tokens) : 0;
    this.leases.delete(bucket);
    const { burst, refillSeconds } = this.limit;
    const { granted, tokens } = await takeTokens(
      this.db,
      bucket,
      nowMs,
      { burst, refillMs: refillSeconds * 1000 },
      this.lease,
      returned,
    );
    if (granted < 1) return Math.max(1, Math.ceil((1 - tokens) * refillSeconds));
    if (granted > 1) this.keep(bucket, granted - 1, nowMs);
    return 0;
  }

  private keep(bucket: string, tokens: number, nowMs: number): void {
    // Two takes of one key at once each leased some: both are this process's to use.
    const held = this.leases.get(bucket);
    this.leases.set(bucket, { tokens: tokens + (held?.tokens ?? 0), untilMs: nowMs + LEASE_MS });
    if (this.leases.size <= MAX_LEASES) return;
    for (const [k, lease] of this.leases) if (lease.untilMs <= nowMs) this.leases.delete(k);
  }
}
