/**
 * Issue 42: every tRPC middleware level copies the call's options and context, which measured
 * 33 µs of a remember's 357 under 50 agents (bench/README.md notebook). The checks every call
 * needs (bounds, log, the caller) are one level; the input's schema is tRPC's own.
 */
import { describe, expect, it } from 'vitest';
import { appRouter } from '../router.ts';

const levels = (path: string): number =>
  (appRouter._def.procedures as unknown as Record<string, { _def: { middlewares: unknown[] } }>)[path]!._def
    .middlewares.length;

describe('middleware levels', () => {
  // tRPC counts the resolver as the last level.
  it('an agent tool runs one level of checks, its input schema and its resolver; health two levels', () => {
    expect(levels('agent.remember')).toBe(3);
    expect(levels('agent.document')).toBe(2);
    expect(levels('health')).toBe(2);
  });
});
