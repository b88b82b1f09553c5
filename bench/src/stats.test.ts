import { describe, expect, it } from 'vitest';
import { compare, interleave, percentile, summarize, throughput } from './stats.ts';

describe('stats', () => {
  it('takes nearest-rank percentiles', () => {
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(xs, 50)).toBe(50);
    expect(percentile(xs, 99)).toBe(99);
    expect(percentile(xs, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(Number.isNaN(percentile([], 50))).toBe(true);
  });

  it('summarizes unsorted samples', () => {
    const s = summarize([3, 1, 2, 10]);
    expect(s).toMatchObject({ n: 4, p50: 2, max: 10, mean: 4 });
  });

  it('times subject and baseline in alternating rounds with a warmup', async () => {
    const calls: string[] = [];
    const r = await compare(
      (i) => Promise.resolve(void calls.push(`s${i}`)),
      (i) => Promise.resolve(void calls.push(`b${i}`)),
      { rounds: 2, perRound: 2, warmup: 1 },
    );
    expect(calls).toEqual(['s0', 'b0', 'b1', 'b2', 's1', 's2', 'b3', 'b4', 's3', 's4']);
    expect(r.subject.n).toBe(4);
    expect(r.baseline.n).toBe(4);
  });

  it('times several ops in the same rounds, in the given order', async () => {
    const calls: string[] = [];
    const op = (name: string) => (i: number) => Promise.resolve(void calls.push(`${name}${i}`));
    const r = await interleave([op('a'), op('b'), op('c')], { rounds: 2, perRound: 1, warmup: 1 }, [2, 0, 1]);
    expect(calls).toEqual(['b0', 'a0', 'c0', 'c1', 'a1', 'b1', 'c2', 'a2', 'b2']);
    expect(r.map((x) => x.n)).toEqual([2, 2, 2]);
  });

  it('counts throughput of concurrent workers', async () => {
    const r = await throughput(
      async (w) => {
        await new Promise((res) => setTimeout(res, 1));
        return w !== 0;
      },
      3,
      50,
    );
    expect(r.ops).toBeGreaterThan(0);
    expect(r.errors).toBeGreaterThan(0);
  });

  it('says once when the measured window opens, after the warmup and before its first call', async () => {
    const events: string[] = [];
    const t0 = performance.now();
    let openedAt = 0;
    const r = await throughput(
      async (w, i) => {
        events.push(`call`);
        await new Promise((res) => setTimeout(res, 2));
        return w >= 0 && i >= 0;
      },
      2,
      // A window many calls long: a stall of the test process (a loaded CI machine) must outlast
      // all of it before no call starts inside, which is what this test would then misread.
      300,
      30,
      () => {
        openedAt = performance.now() - t0;
        events.push('open');
      },
    );
    expect(events.filter((e) => e === 'open')).toHaveLength(1);
    expect(openedAt).toBeGreaterThanOrEqual(30);
    // The calls started from the opening on are the ones counted.
    expect(events.length - 1 - events.indexOf('open')).toBe(r.ops + r.errors);
  });
});
