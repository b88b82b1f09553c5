/**
 * `lock`: `health` over HTTP while another process holds the memory database's write lock, and an
 * agent write arrives meanwhile, beside `health` of the same API process with no lock holder
 * (issue 24, point 11). The ratio is of the p99s: the point is the tail (before the fix the event
 * loop waited in SQLite's busy handler, and every request waited with it: p99 3,048 ms).
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { LOCK_HOLDER } from '@oh/memory/testing';
import { lat, ms, round } from '../figure.ts';
import type { BenchContext, Row } from '../figure.ts';
import { acceptRun, loginOwner, must, startApi, trpc } from '../http.ts';
import { summarize } from '../stats.ts';
import type { Sample } from '../stats.ts';

/** How long the other process holds the lock, as in the measurement. */
const HOLD_MS = 3_000;

export async function healthWhileLocked(ctx: BenchContext): Promise<Row[]> {
  const { quick, work, log } = ctx;
  const dataDir = join(work, 'lock-wait');
  mkdirSync(dataDir);
  const api = await startApi(dataDir);
  try {
    const owner = await loginOwner(api.port);
    const run = await acceptRun(api.port, owner);
    let version = 0;
    const health = async (): Promise<number> => {
      const t0 = performance.now();
      must(await trpc(api.port, 'query', 'health'), 'health');
      return performance.now() - t0;
    };
    /** `health` back to back (5 ms apart, as a load balancer's probe would not be) until `done()`. */
    const probe = async (done: () => boolean, into: number[]) => {
      while (!done()) {
        into.push(await health());
        await new Promise((r) => setTimeout(r, 5));
      }
    };

    const free: number[] = [];
    const locked: number[] = [];
    const writes: number[] = [];
    const rounds = quick ? 1 : 3;
    for (let round = 0; round < rounds; round++) {
      log(`health with no lock holder, ${HOLD_MS} ms (round ${round + 1}/${rounds})`);
      const until = performance.now() + HOLD_MS;
      await probe(() => performance.now() >= until, free);

      log(`health while another process holds the memory write lock ${HOLD_MS} ms, an agent write arriving`);
      const holder = spawn(process.execPath, [LOCK_HOLDER, join(dataDir, 'memory.db'), String(HOLD_MS)], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const lines = createInterface({ input: holder.stdout });
      const exited = new Promise<void>((r) => holder.on('exit', () => r()));
      await new Promise<void>((resolve) => lines.once('line', () => resolve()));
      let writing = true;
      const t0 = performance.now();
      const write = trpc(
        api.port,
        'mutation',
        'agent.remember',
        {
          basedOn: version,
          requestId: `locked-${round}`,
          changes: [{ op: 'add', name: `lead:locked-${round}`, text: 'written while the lock was held' }],
        },
        run.runToken,
      ).then((a) => {
        version = must<{ version: number }>(a, 'agent.remember').version;
        writes.push(performance.now() - t0);
        writing = false;
      });
      await Promise.all([probe(() => !writing, locked), write]);
      await exited;
    }
    const free_: Sample = summarize(free);
    const locked_: Sample = summarize(locked);
    const writeSample = summarize(writes);
    return [
      {
        figure: `health while another process holds the memory write lock ${HOLD_MS / 1000} s (an agent write arriving meanwhile)`,
        sync: 'FULL',
        project: lat(locked_),
        baseline: `no lock holder ${lat(free_)} (same API process)`,
        ratio: round(locked_.p99 / free_.p99),
        target: 'p99 < 100 ms',
        met: locked_.p99 < 100,
        note: `ratio of p99s; ${locked_.n} and ${free_.n} health calls; the agent write answered after ${ms(writeSample.max)} ms at most (it waits for the lock, on the database thread)`,
        raw: { locked: locked_, free: free_, agentWrite: writeSample },
      },
    ];
  } finally {
    await api.stop();
  }
}
