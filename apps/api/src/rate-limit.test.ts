import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limit.ts';

describe('RateLimiter', () => {
  it('lets a burst through, then one call per refill, and says how long to wait', () => {
    const limiter = new RateLimiter({ burst: 3, refillSeconds: 2 });
    const t0 = 1_000_000;
    expect([0, 1, 2].map(() => limiter.take('a', t0))).toEqual([0, 0, 0]);
    expect(limiter.take('a', t0)).toBe(2);
    expect(limiter.take('a', t0 + 1_000)).toBe(1);
    expect(limiter.take('a', t0 + 2_000)).toBe(0);
    expect(limiter.take('a', t0 + 2_000)).toBe(2);
    // Another address has its own bucket.
    expect(limiter.take('b', t0 + 2_000)).toBe(0);
    // Refills up to the burst, never beyond.
    const later = t0 + 3_600_000;
    expect([0, 1, 2, 3].map(() => limiter.take('a', later))).toEqual([0, 0, 0, 2]);
  });

  it('remembers a bounded number of callers', () => {
    const limiter = new RateLimiter({ burst: 1, refillSeconds: 60, maxKeys: 2 });
    expect(limiter.take('a', 0)).toBe(0);
    expect(limiter.take('b', 0)).toBe(0);
    expect(limiter.take('c', 0)).toBe(0);
    // 'a' was the least recent and was forgotten, so it starts full; 'c' is still limited.
    expect(limiter.take('a', 0)).toBe(0);
    expect(limiter.take('c', 0)).toBe(60);
  });
});
