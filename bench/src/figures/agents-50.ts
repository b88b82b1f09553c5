/**
 * `agents`: 50 agents, each writing to its own session through one API process, as applied
 * changes per second, against the transport floor: what the same process answers 50 callers of
 * `health` (the same HTTP and tRPC with no credential and no database). Beside it, against the
 * slower of that and what the machine gives one raw writer (one fsync per commit): the API groups
 * commits, so with 50 agents it is bound by its CPU, not the disk (issue 42).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { lat, round, settleDisk } from '../figure.ts';
import type { BenchContext, Row } from '../figure.ts';
import { cpuWindow, cpuWords } from '../cpu.ts';
import { acceptRun, loginOwner, startApi, trpc } from '../http.ts';
import { openRaw, rawBatch } from '../raw.ts';
import type { Sync } from '../raw.ts';
import { throughput } from '../stats.ts';
import { NOTE_TEXT } from '../store.ts';

/**
 * `thread`: the API's MEMORY_DB_THREAD. 'worker' (its default) runs the memory database's SQLite
 * calls on a thread of its own; 'main' runs them on the event loop. `recall`: the API's
 * RECALL_MODE, `shadow` by default (every note is embedded and indexed in the background).
 */
export async function agentsConcurrently(
  ctx: BenchContext,
  thread: 'worker' | 'main',
  sync: Sync = 'FULL',
  recall: 'shadow' | 'off' = 'shadow',
): Promise<Row[]> {
  const { quick, work, log } = ctx;
  const dataDir = join(work, `agents-${thread}-${sync}-${recall}`);
  mkdirSync(dataDir);
  const api = await startApi(dataDir, {
    RECALL_MODE: recall,
    MEMORY_DB_THREAD: thread,
    MEMORY_DB_SYNCHRONOUS: sync,
  });
  const seconds = quick ? 4 : 10;
  try {
    const owner = await loginOwner(api.port);
    const agents = await Promise.all(Array.from({ length: 50 }, () => acceptRun(api.port, owner)));
    const versions = agents.map(() => 0);
    log(
      `50 agents writing to 50 sessions through one API process (MEMORY_DB_THREAD=${thread}, ${sync}, RECALL_MODE=${recall})`,
    );
    // One CPU window per throughput run, opened as its first measured call starts; closing takes
    // it away, so a run whose window never opened cannot report the one before it.
    let cpu: ReturnType<typeof cpuWindow> | undefined;
    const openCpu = () => (cpu = cpuWindow(api.pid));
    const closeCpu = (calls: number) => {
      if (cpu === undefined) throw new Error('no call started inside the measured window: no CPU to report');
      const used = cpu.close(calls);
      cpu = undefined;
      return used;
    };
    const writes = await throughput(
      async (w, i) => {
        const a = await trpc(
          api.port,
          'mutation',
          'agent.remember',
          {
            basedOn: versions[w],
            requestId: `a${w}-${i}`,
            changes: [{ op: 'add', name: `lead:a${i}`, text: NOTE_TEXT }],
          },
          agents[w]!.runToken,
        );
        if (a.ok) versions[w] = (a.data as { version: number }).version;
        return a.ok;
      },
      50,
      seconds * 1000,
      2_000,
      openCpu,
    );
    const writesCpu = closeCpu(writes.ops + writes.errors);
    const health = await throughput(
      async () => (await trpc(api.port, 'query', 'health')).ok,
      50,
      (quick ? 3 : 5) * 1000,
      1_000,
      openCpu,
    );
    const healthCpu = closeCpu(health.ops + health.errors);
    const raws: Partial<Record<Sync, number>> = {};
    for (const rawSync of ['FULL', 'NORMAL'] as const) {
      // The agents' commits left writeback behind; the raw writer starts from a settled disk as
      // the agents did (each figure starts after settleDisk).
      settleDisk();
      const raw = await openRaw(join(work, `raw-commits-${thread}-${sync}-${recall}-${rawSync}.db`), rawSync);
      let i = 0;
      const r = await throughput(
        async () => (await rawBatch(raw, 's', i++, 1, NOTE_TEXT), true),
        1,
        (quick ? 2 : 5) * 1000,
        500,
      );
      raws[rawSync] = r.perSecond;
      raw.close();
    }
    const other: Sync = sync === 'FULL' ? 'NORMAL' : 'FULL';
    const floor = Math.min(raws[sync]!, health.perSecond);
    const ratio = writes.perSecond / health.perSecond;
    const ofFloor = writes.perSecond / floor;
    return [
      {
        figure: `50 agents → 50 sessions, one API process (applied changes/s), MEMORY_DB_THREAD=${thread}, RECALL_MODE=${recall}${thread === 'worker' && recall === 'shadow' ? ' (the defaults)' : ''}`,
        sync,
        project: `${writes.perSecond.toFixed(0)}/s (latency ${lat(writes.latencies)}, ${writes.errors} refused)`,
        baseline: `transport floor, 50 callers of health: ${health.perSecond.toFixed(0)}/s; against min(raw 1-writer commits ${raws[sync]!.toFixed(0)}/s, transport) = ${floor.toFixed(0)}/s: ${ofFloor.toFixed(2)}×; raw at ${other} ${raws[other]!.toFixed(0)}/s; ${cpuWords(writesCpu, healthCpu)}`,
        ratio: round(ratio),
        target: '≥ 0.5× of the transport floor',
        met: sync === 'FULL' ? ratio >= 0.5 : null,
        raw: {
          writes,
          health,
          rawCommitsPerSecond: raws,
          recall,
          ofTransport: ratio,
          ofMinRawTransport: ofFloor,
          cpuPerCall: { remember: writesCpu, health: healthCpu },
        },
      },
    ];
  } finally {
    await api.stop();
  }
}
