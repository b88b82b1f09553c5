/**
 * `shadow`: what shadow indexing costs under load (issue 19, point 2). Two API processes, one with
 * the defaults (RECALL_MODE=shadow: every note embedded and its vector written in the background)
 * and one with recall off, each with 50 agents of its own. Their measuring windows alternate
 * (shadow, off, off, shadow, shadow, off, …) so that a slow minute of the machine falls on both
 * alike; the figure is the ratio of their total rates. Target: ≥ 0.9. Beside it, how much of
 * what was written the shadow index held when the load stopped, and 10 s later (background
 * indexing yields under load: recall/queue.ts, `busyShare`).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { round, settleDisk } from '../figure.ts';
import type { BenchContext, Row } from '../figure.ts';
import { acceptRun, loginOwner, startApi, trpc } from '../http.ts';
import type { Api } from '../http.ts';
import { throughput } from '../stats.ts';
import { NOTE_TEXT } from '../store.ts';

const AGENTS = 50;

/** Notes in the database, and how many of them have a vector at their current digest. */
async function coverage(dataDir: string): Promise<{ notes: number; indexed: number }> {
  const client = createClient({ url: `file:${join(dataDir, 'memory.db')}` });
  try {
    const rs = await client.execute(`SELECT
        (SELECT count(*) FROM notes) AS notes,
        (SELECT count(*) FROM notes n JOIN note_vectors v
           ON v.session_id = n.session_id AND v.name = n.name AND v.digest = n.digest) AS indexed`);
    return { notes: Number(rs.rows[0]!.notes), indexed: Number(rs.rows[0]!.indexed) };
  } finally {
    client.close();
  }
}

interface Fleet {
  api: Api;
  dataDir: string;
  window: (ms: number) => Promise<{ ops: number; perSecond: number; errors: number }>;
}

/** An API process with 50 accepted runs; each window writes one note per call, as `agents` does. */
async function fleet(ctx: BenchContext, recall: 'shadow' | 'off'): Promise<Fleet> {
  const dataDir = join(ctx.work, `shadow-cost-${recall}`);
  mkdirSync(dataDir);
  const api = await startApi(dataDir, { RECALL_MODE: recall });
  const owner = await loginOwner(api.port);
  const agents = await Promise.all(Array.from({ length: AGENTS }, () => acceptRun(api.port, owner)));
  const versions = agents.map(() => 0);
  let call = 0;
  return {
    api,
    dataDir,
    window: (ms) =>
      throughput(
        async (w) => {
          const a = await trpc(
            api.port,
            'mutation',
            'agent.remember',
            {
              basedOn: versions[w],
              requestId: `c${w}-${call}`,
              changes: [{ op: 'add', name: `lead:c${call++}`, text: NOTE_TEXT }],
            },
            agents[w]!.runToken,
          );
          if (a.ok) versions[w] = (a.data as { version: number }).version;
          return a.ok;
        },
        AGENTS,
        ms,
        500,
      ),
  };
}

export async function shadowCost(ctx: BenchContext): Promise<Row[]> {
  const { quick, log } = ctx;
  const pairs = quick ? 2 : 4;
  const windowMs = quick ? 3_000 : 6_000;
  const shadow = await fleet(ctx, 'shadow');
  let off: Fleet | undefined;
  try {
    off = await fleet(ctx, 'off');
    log(`50 agents, shadow against recall off: ${pairs} pairs of ${windowMs / 1000} s windows, alternating`);
    // One unmeasured window each first: the first window of a fresh process ran slow in every
    // trial run (JIT, caches, the files' first pages).
    await shadow.window(2_000);
    await off.window(2_000);
    const totals = { shadow: { ops: 0, errors: 0 }, off: { ops: 0, errors: 0 } };
    const pairRatios: number[] = [];
    for (let p = 0; p < pairs; p++) {
      const rates: Record<string, number> = {};
      // ABBA order: neither side always goes first.
      for (const side of p % 2 === 0 ? (['shadow', 'off'] as const) : (['off', 'shadow'] as const)) {
        settleDisk();
        const r = await (side === 'shadow' ? shadow : off).window(windowMs);
        totals[side].ops += r.ops;
        totals[side].errors += r.errors;
        rates[side] = r.perSecond;
      }
      pairRatios.push(rates.shadow! / rates.off!);
    }
    const atStop = await coverage(shadow.dataDir);
    await new Promise((r) => setTimeout(r, 10_000));
    const later = await coverage(shadow.dataDir);
    const share = (c: { notes: number; indexed: number }) =>
      `${((100 * c.indexed) / Math.max(1, c.notes)).toFixed(0)} % of ${c.notes.toLocaleString('en')}`;
    const seconds = (pairs * windowMs) / 1000;
    const shadowRate = totals.shadow.ops / seconds;
    const offRate = totals.off.ops / seconds;
    const ratio = shadowRate / offRate;
    return [
      {
        figure:
          '50 agents: the defaults (recall in shadow) against recall off, alternating windows (applied changes/s)',
        sync: 'FULL',
        project: `shadow ${shadowRate.toFixed(0)}/s (${totals.shadow.errors} refused); notes indexed when the load stopped ${share(atStop)}, 10 s later ${share(later)}`,
        baseline: `recall off ${offRate.toFixed(0)}/s (${totals.off.errors} refused); pair ratios ${pairRatios.map((r) => r.toFixed(2)).join(', ')}`,
        ratio: round(ratio),
        target: '≥ 0.9×',
        met: quick ? null : ratio >= 0.9,
        raw: { totals, pairRatios, windowMs, pairs, coverage: { atStop, later } },
      },
    ];
  } finally {
    await shadow.api.stop();
    await off?.api.stop();
  }
}
