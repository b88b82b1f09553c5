/**
 * The timing loop: warm up, then run subject and baseline (or several ops) in alternating rounds
 * so drift (page cache, CPU frequency, a neighbour's burst) hits them alike. Durations are
 * wall-clock ms from `performance.now()` around each awaited call.
 */

export interface Sample {
  n: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function summarize(durations: number[]): Sample {
  const sorted = [...durations].sort((a, b) => a - b);
  const sum = sorted.reduce((s, d) => s + d, 0);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean: sorted.length ? sum / sorted.length : Number.NaN,
    max: sorted.at(-1) ?? Number.NaN,
  };
}

export type Op = (i: number) => Promise<unknown>;

/** Times `op` `iterations` times after `warmup` untimed calls. `i` counts across all calls. */
export async function time(op: Op, iterations: number, warmup = 0, start = 0): Promise<number[]> {
  let i = start;
  for (let w = 0; w < warmup; w++) await op(i++);
  const out: number[] = [];
  for (let k = 0; k < iterations; k++) {
    const t0 = performance.now();
    await op(i++);
    out.push(performance.now() - t0);
  }
  return out;
}

/** Subject and baseline, `rounds` alternating blocks of `perRound` calls each, after a warmup of both. */
export async function compare(
  subject: Op,
  baseline: Op,
  opts: { rounds: number; perRound: number; warmup: number },
): Promise<{ subject: Sample; baseline: Sample }> {
  const [s, b] = await interleave([subject, baseline], opts, [1, 0]);
  return { subject: s!, baseline: b! };
}

/**
 * Several ops timed in the same rounds: each warms up in turn, then every round runs a block of
 * `perRound` calls of each, in `order` (indexes into `ops`; all of them, in the given order, by
 * default). A figure that divides two of them compares them under the same machine state.
 */
export async function interleave(
  ops: Op[],
  opts: { rounds: number; perRound: number; warmup: number },
  order: number[] = ops.map((_, k) => k),
): Promise<Sample[]> {
  const out: number[][] = ops.map(() => []);
  const next = ops.map(() => 0);
  for (const k of [...order].reverse()) {
    await time(ops[k]!, 0, opts.warmup, next[k]);
    next[k]! += opts.warmup;
  }
  for (let r = 0; r < opts.rounds; r++) {
    for (const k of order) {
      out[k]!.push(...(await time(ops[k]!, opts.perRound, 0, next[k])));
      next[k]! += opts.perRound;
    }
  }
  return out.map(summarize);
}

/** Calls per second of `workers` concurrent loops of `op` for `ms` milliseconds. */
export async function throughput(
  op: (worker: number, i: number) => Promise<boolean>,
  workers: number,
  ms: number,
  warmupMs = 0,
  onWindowOpen?: () => void,
): Promise<{ ops: number; perSecond: number; latencies: Sample; errors: number }> {
  // The first `warmupMs` run the same load unmeasured (JIT, caches), then the window opens.
  const start = performance.now() + warmupMs;
  let opened = false;
  const end = start + ms;
  let ops = 0;
  let errors = 0;
  const latencies: number[] = [];
  const counters = Array.from({ length: workers }, () => 0);
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      while (performance.now() < end) {
        const s = performance.now();
        if (!opened && s >= start) {
          // Once, as the first measured call starts: what the caller samples from here (CPU) is the window's.
          opened = true;
          onWindowOpen?.();
        }
        const ok = await op(w, counters[w]!++);
        if (s < start) continue;
        latencies.push(performance.now() - s);
        if (ok) ops++;
        else errors++;
      }
    }),
  );
  const elapsed = performance.now() - start;
  return { ops, perSecond: (ops / elapsed) * 1000, latencies: summarize(latencies), errors };
}
